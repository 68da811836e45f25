/**
 * The ranking behind discovery mode's `search_tools`: BM25 over each tool's name, title, description, toolsets
 * and argument names, with the name, title and toolsets weighted above the description. No model, no network: the
 * same query over the same package always gives the same answer.
 *
 * The index is made from the `tools/list` entries the package already carries, once, the first time a server in
 * discovery mode is asked to search; a server not in discovery mode never builds it, so it costs nothing there
 * (no bytes in the bundle, no time at start). For 200 tools it takes a few milliseconds.
 */
import { cutIndex } from "../call/cut.ts";
import type { ToolListing } from "../plan.ts";

/** How much more a word counts in each field than in the description (a BM25F-style weight by repetition). */
const FIELD_WEIGHT = { name: 3, title: 2, toolsets: 2, description: 1, arguments: 1 } as const;
const K1 = 1.2;
/** Less length normalisation than BM25's usual 0.75: a long description is not a worse match for being long. */
const B = 0.5;
/** How many words of a description count: the first paragraph says what a tool does, the rest how. */
const DESCRIPTION_WORDS = 60;
/** A query word's synonyms count this much of the word itself. */
const SYNONYM_WEIGHT = 0.5;

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set("a an and are as at be by for from in into is it its of on or the this to with".split(" "));

/**
 * The verbs people use for the handful of things API operations do, each with the words an API uses for it, so
 * that "open a new issue" finds `issues_create` and "rename a label" finds `update_label`. Only query words are
 * expanded; what a tool says is taken as written.
 */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  add: ["create"],
  new: ["create"],
  open: ["create"],
  make: ["create"],
  file: ["create"],
  post: ["create"],
  submit: ["create"],
  edit: ["update"],
  change: ["update"],
  modify: ["update"],
  rename: ["update"],
  remove: ["delete"],
  erase: ["delete"],
  destroy: ["delete"],
  clear: ["delete", "remove"],
  fetch: ["get"],
  show: ["get", "list"],
  read: ["get"],
  retrieve: ["get"],
  view: ["get"],
  all: ["list"],
  every: ["list"],
  find: ["search", "list"],
  reply: ["comment"],
  assign: ["assignee"],
};

/** What a search answers per tool: enough for a model to choose, not its schemas (that is describe_tool). */
export interface ToolHit {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
}

/** The longest one-line description a hit carries. */
const HIT_DESCRIPTION_CHARS = 200;

/**
 * Words of a text: split at anything not a letter or digit and at camelCase humps, lower-cased, stop words
 * dropped, and stemmed, so that the forms of one word meet (issues, issue → issu; assigned, assign → assign;
 * deleting, deletes, delete → delet).
 */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[^\p{L}\p{N}]+/u)) {
    if (raw === "") continue;
    const lower = raw.toLowerCase();
    if (!STOP_WORDS.has(lower)) out.push(stem(lower));
  }
  return out;
}

/** A crude English stem: enough to make plurals and -ed/-ing forms meet their word. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ches|shes|sses|xes)$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** A query's terms with their weights: its own words, and their synonyms at a lower weight. */
function queryTerms(query: string): Map<string, number> {
  const terms = new Map<string, number>();
  for (const raw of query.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[^\p{L}\p{N}]+/u)) {
    const lower = raw.toLowerCase();
    if (lower === "" || STOP_WORDS.has(lower)) continue;
    terms.set(stem(lower), 1);
    for (const synonym of SYNONYMS[lower] ?? []) {
      const term = stem(synonym);
      if (!terms.has(term)) terms.set(term, SYNONYM_WEIGHT);
    }
  }
  return terms;
}

interface Entry {
  readonly hit: ToolHit;
  readonly terms: ReadonlyMap<string, number>;
  readonly length: number;
}

export class ToolIndex {
  readonly #entries: readonly Entry[];
  readonly #documentFrequency: ReadonlyMap<string, number>;
  readonly #averageLength: number;

  constructor(listings: readonly ToolListing[], toolsets: readonly (readonly string[] | undefined)[] = []) {
    const frequency = new Map<string, number>();
    this.#entries = listings.map((listing, i) => {
      const terms = new Map<string, number>();
      const add = (text: string, weight: number): void => {
        for (const word of words(text)) terms.set(word, (terms.get(word) ?? 0) + weight);
      };
      add(listing.name, FIELD_WEIGHT.name);
      if (listing.title !== undefined) add(listing.title, FIELD_WEIGHT.title);
      add((toolsets[i] ?? []).join(" "), FIELD_WEIGHT.toolsets);
      add(firstWords(listing.description, DESCRIPTION_WORDS), FIELD_WEIGHT.description);
      add(argumentNames(listing).join(" "), FIELD_WEIGHT.arguments);
      for (const term of terms.keys()) frequency.set(term, (frequency.get(term) ?? 0) + 1);
      let length = 0;
      for (const count of terms.values()) length += count;
      return { hit: hitOf(listing), terms, length };
    });
    this.#documentFrequency = frequency;
    const total = this.#entries.reduce((sum, entry) => sum + entry.length, 0);
    this.#averageLength = this.#entries.length === 0 ? 1 : Math.max(1, total / this.#entries.length);
  }

  /** The best `limit` tools for `query`, best first (ties in spec order); none when no word of it matches. */
  search(query: string, limit: number): ToolHit[] {
    const terms = queryTerms(query);
    const n = this.#entries.length;
    const scored: { score: number; index: number }[] = [];
    this.#entries.forEach((entry, index) => {
      let score = 0;
      for (const [term, weight] of terms) {
        const tf = entry.terms.get(term);
        if (tf === undefined) continue;
        const df = this.#documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (weight * idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * entry.length) / this.#averageLength));
      }
      if (score > 0) scored.push({ score, index });
    });
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.slice(0, limit).map(({ index }) => this.#entries[index]!.hit);
  }
}

/** The first paragraph of a description, at most `max` words of it. */
function firstWords(text: string, max: number): string {
  const paragraph = text.split(/\n\s*\n/, 1)[0]!;
  return paragraph.split(/\s+/, max).join(" ");
}

/** The top-level argument names of a tool's input schema (what a model would search by: "repo", "state"). */
function argumentNames(listing: ToolListing): string[] {
  const properties = listing.inputSchema["properties"];
  return properties !== null && typeof properties === "object" && !Array.isArray(properties)
    ? Object.keys(properties)
    : [];
}

function hitOf(listing: ToolListing): ToolHit {
  const firstLine = listing.description.split("\n", 1)[0]!.trim();
  const description =
    firstLine.length > HIT_DESCRIPTION_CHARS
      ? `${firstLine.slice(0, cutIndex(firstLine, HIT_DESCRIPTION_CHARS - 1))}…`
      : firstLine;
  return { name: listing.name, ...(listing.title !== undefined ? { title: listing.title } : {}), description };
}
