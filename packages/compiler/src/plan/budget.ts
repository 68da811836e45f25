/**
 * The tool-surface budget: how much of a model's context a server's `tools/list` takes.
 *
 * Every client puts the whole listing (names, titles, descriptions, input and output schemas, annotations) in
 * front of the model for every conversation, so its size is a cost paid on every call. The size is measured on
 * the JSON of `{ tools: [...] }` exactly as the generated server answers it (the plan's listings, in spec
 * order). Tokens are estimated as characters / 4 (rounded up): a common rule of thumb for English text and
 * JSON with tokenizers in the GPT and Claude families. Real counts vary by model, and JSON with many short keys
 * and punctuation often comes out nearer 3 characters per token, so treat the budget as a guard rail, not an
 * exact limit.
 *
 * `kervanc build` and `kervanc import` print the size of every server and warn (KV9006) above the budget.
 */
import type { PlannedServer } from "./plan.ts";

/** The default budget, in estimated tokens: about 4% of a 200k-token context window. */
export const DEFAULT_TOOLS_BUDGET = 8000;
export const CHARS_PER_TOKEN = 4;

export interface ListingSize {
  readonly tools: number;
  /** Characters (UTF-16 code units) of the JSON text of `{ tools: [...] }`. */
  readonly characters: number;
  /** characters / 4, rounded up. */
  readonly tokens: number;
}

export function listingSize(planned: PlannedServer): ListingSize {
  const characters = JSON.stringify({ tools: planned.tools.map((tool) => tool.plan.listing) }).length;
  return { tools: planned.tools.length, characters, tokens: Math.ceil(characters / CHARS_PER_TOKEN) };
}

/**
 * `1,234`: sizes are read by people. Grouped by hand as en-US does (the same text, whatever the machine's
 * locale): `toLocaleString` loads ICU's number formatting on its first call, about 18 ms of every build for three
 * commas.
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** One line per server for the build and import summaries. */
export function sizeLine(name: string, size: ListingSize, budget: number): string {
  const tools = `${size.tools} tool${size.tools === 1 ? "" : "s"}`;
  const verdict = size.tokens > budget ? `, over the budget of ${count(budget)} tokens` : ` (budget ${count(budget)})`;
  return `${name}: tools/list has ${tools} in ${count(size.characters)} characters, about ${count(size.tokens)} tokens${verdict}.`;
}
