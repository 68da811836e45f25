/**
 * Output proposals: from an operation's success response, an `output.select` that keeps what a model usually
 * needs, and an `output.schema` for it.
 *
 * Raw API responses are large and mostly noise to a model (links, internal ids, audit fields). The proposal
 * keeps, from the response schema, the highest ranked fields (rank.ts) of the answer, of nested objects and of
 * the items of lists (`items[*].{id: id, name: name}`), up to three objects deep; and before any of them, past
 * every cap, the identifiers and references of each record and the payload (payload.ts): the lists the answer
 * carries, maps, and fields named for content. It is a proposal: the spec marks it with a comment for review,
 * saying what was left out and why, and the rules are kept simple so a reviewer can predict them.
 */
import { HTTP_DEFAULTS, SPEC_LIMITS } from "../analyze/spec-format.ts";
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { jsonLengthWithin } from "./json-size.ts";
import { ImportProblem, isPlainObject, own, put, type Resolver } from "./refs.ts";
import { ESTIMATE_RULE, fieldRank, isIdentityField, Rank, ranked, scalarChars } from "./rank.ts";
import { identifierFields, isPayloadName, isPlumbingName, referenceFields } from "./payload.ts";
import { KEYWORD_NAMES } from "./schema.ts";

/** Fields kept at the top level and in each nested object. */
export const MAX_TOP_FIELDS = 12;
export const MAX_NESTED_FIELDS = 8;
const MAX_SELECT = 1000;
/** An enum value's length is measured up to here (the most output any spec allows): past it, the estimate is no use. */
const MAX_HINT = SPEC_LIMITS.maxOutputChars;

/** Field names a select may not read (the compiler refuses them: they name JavaScript object internals). */
const REFUSED_FIELDS = new Set(["__proto__", "constructor", "prototype", ...KEYWORD_NAMES]);
const SCALARS = new Set(["string", "number", "integer", "boolean"]);
/** The keywords that say what a value is, as opposed to annotations (`description`, `nullable`, `example`). */
const SHAPE_KEYWORDS = [
  "type",
  "properties",
  "items",
  "allOf",
  "oneOf",
  "anyOf",
  "enum",
  "$ref",
  "additionalProperties",
];

export type Output =
  | { readonly select: string; readonly schema?: Record<string, unknown> }
  | { readonly raw: true }
  /** kervanc import --binary-output: the kervanc extension binary-output, for an operation that answers files. */
  | { readonly binary: Record<string, never> };

export interface Proposal {
  readonly output: Output;
  /** The review comment written above the output. */
  readonly comment: string;
  /** A warning for the import's report, when the proposal cannot be good. */
  readonly warning?: Finding;
  /** Set when the operation cannot be a tool at all (its answer is binary). */
  readonly skip?: Finding;
  /** The success response's media type the proposal reads (JSON or text), without parameters; absent for none. */
  readonly mediaType?: string;
  /**
   * A page of the document's default size would not fit maxOutputChars: the default the page-size input should
   * have instead.
   */
  readonly pageSize?: PageSize;
}

type Shape =
  | {
      readonly kind: "scalar";
      readonly types: readonly string[];
      readonly nullable: boolean;
      readonly hints: ScalarHints;
    }
  | { readonly kind: "array"; readonly items: Shape; readonly nullable: boolean }
  | ObjectShape
  /** An object whose keys the document does not name; `explicit` when it says so with `additionalProperties`. */
  | { readonly kind: "map"; readonly nullable: boolean; readonly explicit: boolean }
  /**
   * `undocumented`: the schema says nothing of the value (`items: {}`), as opposed to shapes a select cannot read.
   * `mixed`: a oneOf of plain values and objects (GitHub's labels, a name or a label object), which a list's items
   * can still be picked from, one way for each type.
   */
  | { readonly kind: "unknown"; readonly undocumented?: true; readonly mixed?: Mixed };

interface Mixed {
  /** The plain values' types (`string`, `integer`, ...). */
  readonly types: readonly string[];
  /** The objects, read as one. */
  readonly object: ObjectShape;
}

interface ObjectShape {
  readonly kind: "object";
  /** Read when first asked for. */
  readonly fields: readonly Field[];
  readonly nullable: boolean;
  /** The names of the schemas it was read from (`Invoice`), to tell its identifier (`InvoiceID`). */
  readonly names: readonly string[];
}

interface ScalarHints {
  readonly format?: string;
  readonly maxLength?: number;
  readonly longestEnum?: number;
}

interface Field {
  readonly name: string;
  readonly shape: Shape;
  readonly required: boolean;
}

const SUCCESS = ["200", "201", "202", "203", "206", "2XX", "2xx", "204", "205"];
/** Codes whose answer never has a body (RFC 9110), whatever content the document gives them. */
const BODILESS = new Set(["204", "205"]);

export function isJsonMediaType(type: string): boolean {
  const t = type.split(";")[0]!.trim().toLowerCase();
  return (
    t === "application/json" ||
    /^[a-z0-9.!#$&^_-]+\/[a-z0-9.!#$&^_-]+\+json$/.test(t) ||
    t === "*/*" ||
    t === "application/*"
  );
}

/**
 * The proposal for an operation. A list answer is fitted to `maxChars` at `page`'s size (the document's default
 * page size), when the operation has one.
 */
export function proposeOutput(
  resolver: Resolver,
  operation: Record<string, unknown>,
  at: SpecPath,
  page: PageSize | null = null,
  maxChars: number = HTTP_DEFAULTS.maxOutputChars,
  binaryOutput = false,
): Proposal {
  const responsesAt = [...at, "responses"];
  const responses = resolver.deref(own(operation, "responses"), responsesAt);
  const code = SUCCESS.find((c) => own(responses.value, c) !== undefined);
  const documented = isPlainObject(responses.value) ? Object.keys(responses.value) : [];
  if (code === undefined && documented.length > 0 && documented.every((c) => /^3(\d\d|XX)$/i.test(c))) {
    // A call can never succeed: a redirect is not followed unless the spec says so, and then its answer is
    // undocumented.
    return {
      output: { select: "@" },
      comment: "",
      skip: report("KV7010", responses.path, (m) => m.redirectOnly({ codes: documented.join(", ") })),
    };
  }
  if (code === undefined) {
    return {
      output: { select: "@" },
      comment: "proposal: no success response is documented, so this returns the whole JSON answer; narrow it",
    };
  }
  const response = resolver.deref(own(responses.value, code), [...responses.path, code]);
  const content = BODILESS.has(code) ? undefined : own(response.value, "content");
  const types = isPlainObject(content) ? Object.keys(content) : [];
  if (types.length === 0) {
    // The generated server reports an empty success as a success with a short text (docs/runtime.md).
    return {
      output: { select: "@" },
      comment: `proposal: the ${code} response has no body; a call that succeeds says so in a short text`,
    };
  }
  const jsonType =
    types.find((t) => t.split(";")[0]!.trim().toLowerCase() === "application/json") ?? types.find(isJsonMediaType);
  if (jsonType === undefined) {
    const textType = types.find((t) => t.toLowerCase().startsWith("text/"));
    if (textType !== undefined)
      return {
        output: { raw: true },
        comment: `proposal: the API answers ${types.join(", ")}, returned as text`,
        mediaType: textType.split(";")[0]!.trim(),
      };
    if (binaryOutput)
      return {
        output: { binary: {} },
        comment: `the API answers ${types.join(", ")}: returned as image, audio or file content (kervanc extension binary-output)`,
      };
    return {
      output: { raw: true },
      comment: "",
      skip: report("KV7010", [...response.path, "content"], (m) => m.answerType({ types: types.join(", ") })),
    };
  }
  const mediaAt = [...response.path, "content", jsonType];
  const schema = own(own(content, jsonType), "schema");
  const mediaType = jsonType.split(";")[0]!.trim();
  if (schema === undefined) {
    return {
      output: { select: "@" },
      comment: `proposal: the ${code} response has no schema, so this returns the whole answer; narrow it`,
      mediaType,
    };
  }
  const shape = new ShapeReader(resolver).read(schema, [...mediaAt, "schema"]);
  const proposal = { ...buildProposal(shape, code, page, maxChars), mediaType };
  const empty = emptySuccessCode(resolver, responses.value, responses.path);
  if (empty === null || !("schema" in proposal.output)) return proposal;
  // An empty answer carries no structured content, which a client refuses from a tool with an output schema.
  return {
    ...proposal,
    output: { select: proposal.output.select },
    comment: `${proposal.comment}; no output schema, since the ${empty} response has no body`,
  };
}

/** A documented success code whose response has no body (a 204 or 205 never has one), if there is one. */
function emptySuccessCode(resolver: Resolver, responses: unknown, at: SpecPath): string | null {
  for (const code of SUCCESS) {
    const raw = own(responses, code);
    if (raw === undefined) continue;
    if (BODILESS.has(code)) return code;
    const content = own(resolver.deref(raw, [...at, code]).value, "content");
    if (!isPlainObject(content) || Object.keys(content).length === 0) return code;
  }
  return null;
}

/** The page size a list answer is fitted to: the default of the operation's page-size parameter. */
export interface PageSize {
  readonly parameter: string;
  readonly size: number;
}

/**
 * How much a proposal keeps, tightened step by step until the select fits its 1000 characters and a page fits
 * maxOutputChars: fields kept at the top and in each record (`top`), in other nested objects (`nested`), and how
 * many objects deep it reads (`depth`). Identifiers and payload are kept at every step, past these caps; the
 * references (`owner_id`) too but at the last step, which ranks them like other fields: they go only after every
 * ranked field that can.
 */
interface Caps {
  readonly top: number;
  readonly nested: number;
  readonly depth: number;
  readonly references: boolean;
}
const CAPS: readonly Caps[] = [
  { top: MAX_TOP_FIELDS, nested: MAX_NESTED_FIELDS, depth: 3, references: true },
  { top: 12, nested: 6, depth: 3, references: true },
  { top: 12, nested: 4, depth: 3, references: true },
  { top: 10, nested: 4, depth: 3, references: true },
  { top: 8, nested: 3, depth: 3, references: true },
  { top: 6, nested: 3, depth: 2, references: true },
  { top: 4, nested: 2, depth: 2, references: true },
  { top: 3, nested: 1, depth: 2, references: true },
  { top: 1, nested: 0, depth: 1, references: true },
  { top: 1, nested: 0, depth: 1, references: false },
];
/** Per-record fields are not trimmed below this cap to fit a page; the page size is lowered instead. */
const MIN_FIT_CAPS = 3;

/** Estimated characters of a value kept whole whose size the schema does not say (a map, an untyped value). */
const WHOLE_CHARS = 300;

interface Entry {
  readonly key: string;
  readonly expression: string;
  readonly schema: Record<string, unknown>;
  /** Estimated characters of this entry in the returned JSON (key included), lists at their page size. */
  readonly chars: number;
  /** An identifier, a reference or payload: kept past the field caps. */
  readonly kept: boolean;
  /** Payload (not only an identifier): an object holding some is payload too. */
  readonly payload?: boolean;
  /** An identity field the document requires: required in the output schema, and never null. */
  readonly required?: boolean;
}

/** One pass over the response shape at one step of CAPS. */
class Walk {
  readonly caps: Caps;
  readonly page: PageSize | null;
  /** Where fields were left out: path → count. */
  readonly left = new Map<string, number>();
  /** Payload values kept whole because they sit deeper than `depth`. */
  readonly whole: string[] = [];
  /** Characters of one item of every page list (lists on the answer's own object chain), summed. */
  perItem = 0;
  /** Whether some page list was found. */
  paged = false;

  constructor(caps: Caps, page: PageSize | null) {
    this.caps = caps;
    this.page = page;
  }

  leave(path: string): void {
    this.left.set(path, (this.left.get(path) ?? 0) + 1);
  }

  /**
   * The kept fields of an object. `chain`: the object is the answer or reached from it through objects only, so
   * its lists are the page. `record`: the object is an item of such a list, or the record the answer is or wraps
   * (as many fields as at the top); `answer`: the latter, whose lists are payload.
   */
  object(shape: ObjectShape, path: string, depth: number, chain: boolean, record: boolean, answer = false): Entry[] {
    const fields = shape.fields;
    const cap = depth === 0 || record ? this.caps.top : this.caps.nested;
    const scalars = fields.filter((f) => f.shape.kind === "scalar").map((f) => f.name);
    const ids = identifierFields(scalars, [
      ...shape.names,
      ...(path === "" ? [] : [path.replace(/\[\]$/, "").split(".").pop()!]),
    ]);
    if (this.caps.references) for (const name of referenceFields(scalars)) ids.add(name);
    const payload = (f: Field): boolean => isPayload(f, chain, record, answer);
    // A record's own list is kept past the cap but keeps its rank's place: it does not push out the record's
    // content and people (an issue's `user`), as the page of a wrapper, payload first, does.
    const ownList = (f: Field): boolean => answer && f.shape.kind === "array" && !isPayload(f, chain, record);
    const rankOf = (f: Field): Rank => (payload(f) && !ownList(f) ? Rank.Content : fieldRank(f.name));
    const out: Entry[] = [];
    for (const field of ranked(fields, rankOf)) {
      if (REFUSED_FIELDS.has(field.name)) continue;
      const kept = ids.has(field.name) || payload(field);
      // Inside a nested object or a list item, hypermedia and node ids are never worth their characters.
      if (!kept && depth > 0 && rankOf(field) === Rank.Plumbing) continue;
      if (!kept && out.length >= cap) {
        this.leave(path === "" ? "the answer" : path);
        continue;
      }
      const entry = this.#entry(field, kept, payload(field), path, depth, chain);
      if (entry === null) continue;
      out.push(entry);
    }
    return out;
  }

  #entry(field: Field, kept: boolean, payload: boolean, parent: string, depth: number, chain: boolean): Entry | null {
    const name = identifier(field.name);
    const path = parent === "" ? field.name : `${parent}.${field.name}`;
    const s = field.shape;
    const keyChars = name.length + 4;
    // A value ranked within the cap whose shape the document does not say (`items: {}`) is kept whole: there is
    // nothing to pick from it, and dropping it would lose it. (A oneOf of plain values and objects, GitHub's labels
    // or Stripe's expandable ids, is not: whole, it would bring the objects' hypermedia; a list of them is picked
    // from item by item, below.)
    const whole = (schema: Record<string, unknown>, chars: number, ranked = false): Entry | null => {
      if (!kept && !ranked) return null;
      return { key: name, expression: name, schema, chars: keyChars + chars, kept, payload };
    };
    if (s.kind === "scalar") {
      const required = field.required && isIdentityField(field.name);
      return {
        key: name,
        expression: name,
        schema: scalarSchema(s, required),
        chars: keyChars + scalarChars(field.name, s.types, s.hints),
        kept,
        ...(required ? { required } : {}),
      };
    }
    if (s.kind === "map") return whole({ type: ["object", "null"] }, WHOLE_CHARS);
    if (s.kind === "unknown") return whole({}, WHOLE_CHARS, s.undocumented === true);
    if (s.kind === "object") {
      if (depth + 1 > this.caps.depth) {
        if (kept) this.whole.push(path);
        return whole({ type: ["object", "null"] }, WHOLE_CHARS);
      }
      // A record the answer wraps (Apideck's `{status, data: {id, ...}}`) is read like an answer that is a record:
      // as many fields as at the top, its own lists kept past the cap in their rank's place. Only the answer's own
      // field: deeper (Slack's `message.file`), a record is one of the payload's nested objects.
      const wrapped = chain && depth === 0 && isRecord(s);
      const inner = this.object(s, path, depth + 1, chain && !wrapped, wrapped, wrapped);
      if (inner.length === 0) return whole({ type: ["object", "null"] }, WHOLE_CHARS);
      // A multiselect on a missing object gives null, so the object may always be null.
      return {
        key: name,
        expression: `${name}.${hash(inner)}`,
        schema: { ...objectSchema(inner), type: ["object", "null"] },
        chars: keyChars + sumChars(inner),
        kept: payload || kept,
        payload,
      };
    }
    // An array.
    const items = s.items;
    const onPage = chain && this.page !== null;
    const count = onPage ? this.page!.size : 3;
    if (items.kind === "scalar")
      return {
        key: name,
        expression: name,
        schema: {
          type: ["array", "null"],
          items: { type: typeOf(items.nullable ? [...items.types, "null"] : items.types) },
        },
        chars: keyChars + count * scalarChars(field.name, items.types, items.hints),
        kept,
      };
    if (kept && items.kind === "unknown" && items.mixed !== undefined && depth + 1 <= this.caps.depth) {
      // A kept list of plain values and objects (GitHub's labels: names or label objects): the values as they are,
      // the objects' kept fields, one or the other for each item, since a projection cannot tell them apart.
      const inner = this.object(items.mixed.object, `${path}[]`, depth + 1, false, false);
      if (inner.length > 0) {
        const types = [...items.mixed.types, "object"];
        return {
          key: name,
          expression: `${name}[*].[type(@) == 'object' && ${hash(inner)} || @][]`,
          schema: { type: ["array", "null"], items: { ...objectSchema(inner), type: types } },
          chars: keyChars + count * (sumChars(inner) + 1),
          kept,
        };
      }
    }
    if (items.kind !== "object" || depth + 1 > this.caps.depth) {
      if (kept && (items.kind === "object" || (items.kind === "unknown" && items.mixed !== undefined)))
        this.whole.push(`${path}[]`);
      return whole(
        { type: ["array", "null"] },
        2 * WHOLE_CHARS,
        items.kind === "unknown" && items.undocumented === true,
      );
    }
    const inner = this.object(items, `${path}[]`, depth + 1, false, chain);
    if (inner.length === 0) return whole({ type: ["array", "null"] }, 2 * WHOLE_CHARS);
    const per = sumChars(inner) + 1;
    if (onPage) {
      this.perItem += per;
      this.paged = true;
    }
    return {
      key: name,
      expression: `${name}[*].${hash(inner)}`,
      schema: { type: ["array", "null"], items: objectSchema(inner) },
      chars: keyChars + count * per,
      kept,
    };
  }
}

/**
 * The payload of an object: a field named for content (`message`, `content`, `embedding`, `document`, ...), an
 * object holding one (`commit.message`, Spotify's `tracks.items`); on the answer's own object chain, a list (the
 * page); in an answer that is a record or wraps one (`answer`), each of its own lists (an issue's `labels` and
 * `assignees`, a person's `full_name_aliases`); there and in the page's records, a map the document declares
 * (Jira's `fields`, HubSpot's `properties`). Deeper, lists and maps are ranked like other fields: a page record's
 * or a nested user's `groups` is no payload. Plumbing (`links`, `_links`) never is.
 */
function isPayload(field: Field, chain: boolean, record: boolean, answer = false, depth = 0): boolean {
  if (isPlumbingName(field.name) || REFUSED_FIELDS.has(field.name)) return false;
  if (isPayloadName(field.name)) return true;
  const s = field.shape;
  if (s.kind === "unknown" || s.kind === "scalar") return false;
  if (s.kind === "map") return (chain || record) && s.explicit;
  if (s.kind === "array") return answer || (chain && s.items.kind !== "unknown" && s.items.kind !== "scalar");
  if (s.kind === "object" && depth < 1) return s.fields.some((f) => isPayload(f, chain, false, false, depth + 1));
  return false;
}

/** An object with an identifier is one record; one without is a page or a wrapper, whose lists are its payload. */
function isRecord(shape: ObjectShape): boolean {
  const scalars = shape.fields.filter((f) => f.shape.kind === "scalar").map((f) => f.name);
  return identifierFields(scalars, shape.names).size > 0;
}

function sumChars(entries: readonly Entry[]): number {
  return entries.reduce((n, e) => n + e.chars, 2);
}

interface Built {
  readonly select: string;
  readonly schema: Record<string, unknown>;
  readonly kept: number;
  readonly walk: Walk;
  readonly total: number;
}

function buildOnce(shape: Shape, walk: Walk): Built | null {
  if (shape.kind === "object") {
    // An answer with an identifier is one record (an issue), whose own lists are kept past the cap in their rank's
    // place (`labels`, `assignees`); one without is a page or a wrapper (`{data: [...], has_more}`), whose lists are
    // its payload, kept first.
    const page = !isRecord(shape);
    const entries = walk.object(shape, "", 0, page, !page, !page);
    if (entries.length === 0) return null;
    return {
      select: hash(entries),
      schema: objectSchema(entries),
      kept: entries.length,
      walk,
      total: sumChars(entries),
    };
  }
  if (shape.kind === "array" && shape.items.kind === "object") {
    // structuredContent must be an object, so a list answer is wrapped as {items: [...]}.
    const entries = walk.object(shape.items, "items[]", 1, false, true);
    if (entries.length === 0) return null;
    const per = sumChars(entries) + 1;
    if (walk.page !== null) {
      walk.perItem += per;
      walk.paged = true;
    }
    return {
      select: `{items: [*].${hash(entries)}}`,
      schema: {
        type: "object",
        properties: { items: { type: ["array", "null"], items: objectSchema(entries) } },
        required: ["items"],
      },
      kept: entries.length,
      walk,
      total: 12 + (walk.page?.size ?? 3) * per,
    };
  }
  return null;
}

function leftComment(walk: Walk): string {
  const parts = [...walk.left].sort((a, b) => b[1] - a[1]);
  let text = "";
  if (parts.length > 0) {
    const shown = parts.slice(0, 6).map(([path, n]) => `${n} of ${path}`);
    const more = parts.length > 6 ? ` and fields of ${parts.length - 6} more objects` : "";
    text += `; left out, as the lowest ranked past ${walk.caps.top} fields in the answer and each item and ${walk.caps.nested} in nested objects: ${shown.join(", ")}${more}`;
  }
  if (walk.whole.length > 0)
    text += `; kept whole, being payload deeper than ${walk.caps.depth} objects: ${walk.whole.slice(0, 6).join(", ")}`;
  if (!walk.caps.references)
    text += "; references (`*_id` fields) ranked like other fields, to fit the select's 1000 characters";
  return text;
}

function buildProposal(shape: Shape, code: string, page: PageSize | null, maxChars: number): Proposal {
  if (shape.kind === "array" && shape.items.kind === "scalar") {
    return {
      output: {
        select: "{items: @}",
        schema: {
          type: "object",
          properties: { items: { type: ["array", "null"], items: { type: typeOf(shape.items.types) } } },
          required: ["items"],
        },
      },
      comment: `proposal: review this select and schema (the ${code} response is a list of values)`,
    };
  }
  if (shape.kind === "map")
    return {
      output: { select: "@" },
      comment: `proposal: the ${code} response is a map with keys the document does not name; this returns it whole`,
    };
  let chosen: Built | null = null;
  let index = 0;
  for (; index < CAPS.length; index++) {
    const built = buildOnce(shape, new Walk(CAPS[index]!, page));
    if (built === null) break;
    if (built.select.length > MAX_SELECT) continue;
    chosen = built;
    if (page === null || !built.walk.paged || built.total <= maxChars) break;
    // A page over maxOutputChars: fewer fields in each item, down to MIN_FIT_CAPS, then a smaller page.
    if (CAPS[index]!.nested <= MIN_FIT_CAPS) break;
  }
  if (chosen === null) {
    const what =
      index < CAPS.length
        ? "gives nothing simple to pick"
        : "needs a longer select than 1000 characters to keep its payload";
    return {
      output: { select: "@" },
      comment: `proposal: the ${code} response schema ${what}; this returns the whole answer`,
    };
  }
  const { walk } = chosen;
  const fieldCount =
    shape.kind === "object"
      ? shape.fields.length
      : shape.kind === "array" && shape.items.kind === "object"
        ? shape.items.fields.length
        : 0;
  const of = shape.kind === "object" ? `of the ${code} response` : `of each item of the ${code} response`;
  let comment = `proposal: review this select and schema; they keep ${chosen.kept} of the ${fieldCount} fields ${of}${leftComment(walk)}`;
  let pageSize: PageSize | undefined;
  if (page !== null && walk.paged) {
    const estimate = `about ${walk.perItem} characters an item, ${chosen.total} for ${page.size} items (the default of ${page.parameter}), estimated from the schema (${ESTIMATE_RULE})`;
    if (chosen.total <= maxChars) comment += `; fitted to maxOutputChars ${maxChars}: ${estimate}`;
    else {
      const fixed = chosen.total - page.size * walk.perItem;
      const size = Math.max(1, Math.floor((maxChars - fixed) / walk.perItem));
      if (size < page.size) pageSize = { parameter: page.parameter, size };
      comment += `; ${estimate}, more than maxOutputChars ${maxChars}: ${page.parameter} defaults to ${size} here instead (a model that asks for more may get an answer over the limit)`;
    }
  }
  return { output: { select: chosen.select, schema: chosen.schema }, comment, ...(pageSize ? { pageSize } : {}) };
}

function hash(entries: readonly Entry[]): string {
  return `{${entries.map((e) => `${e.key}: ${e.expression}`).join(", ")}}`;
}

/**
 * The schema of a picked object: tolerant of answers that drift from the document, since a value that fails the
 * output schema turns a call that succeeded upstream (perhaps a write) into an error. Only identity fields are
 * required and keep their exact type, and only when the document requires them too (an invented `required`, as on
 * petstore's tags[].id, turned real answers into errors); every other field may be null (a select gives null for a
 * missing field). Objects stay open: a map or an object the document leaves open keeps its other keys.
 */
function objectSchema(entries: readonly Entry[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const e of entries) put(properties, unquote(e.key), e.schema);
  const required = entries.filter((e) => e.required === true).map((e) => unquote(e.key));
  return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * A scalar's schema in the output: only the type (the model reads the schema in every listing), null allowed but
 * for identity fields the document requires.
 */
function scalarSchema(s: Extract<Shape, { kind: "scalar" }>, required: boolean): Record<string, unknown> {
  const types = [...s.types];
  if ((s.nullable || !required) && !types.includes("null")) types.push("null");
  return { type: typeOf(types) };
}

function typeOf(types: readonly string[]): string | string[] {
  return types.length === 1 ? types[0]! : [...types];
}

/** A JMESPath identifier: bare when it can be, else quoted (JSON string syntax). */
function identifier(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : JSON.stringify(name);
}

function unquote(key: string): string {
  return key.startsWith('"') ? (JSON.parse(key) as string) : key;
}

/** The name a `$ref` gives its schema (`Invoice` of `#/components/schemas/Invoice`). */
function refName(schema: unknown): string | null {
  const ref = own(schema, "$ref");
  return typeof ref === "string"
    ? decodeURIComponent(ref.split("/").pop()!.replace(/~1/g, "/").replace(/~0/g, "~"))
    : null;
}

/**
 * Reads a response schema into a shape, following references. An object's fields are read when first asked for,
 * so only the parts a proposal walks into are read, and a reference cycle is a shape that contains itself.
 * `oneOf`/`anyOf` of objects read as one object with the fields of all of them (common ones first), required only
 * where every one requires it; with `null` they are nullable.
 */
class ShapeReader {
  readonly #resolver: Resolver;
  readonly #cache = new WeakMap<object, Shape>();
  readonly #reading = new WeakSet<object>();

  constructor(resolver: Resolver) {
    this.#resolver = resolver;
  }

  read(schema: unknown, path: SpecPath): Shape {
    // Followed first: a `$ref` that is no pointer, or has a malformed escape, is reported there (KV7005).
    const { value, path: at } = this.#deref(schema, path);
    const name = refName(schema);
    if (!isPlainObject(value)) return { kind: "unknown" };
    const cached = this.#cache.get(value);
    if (cached !== undefined) return cached;
    if (this.#reading.has(value)) return { kind: "unknown" };
    this.#reading.add(value);
    try {
      const shape = this.#read(value, at, name);
      this.#cache.set(value, shape);
      return shape;
    } finally {
      this.#reading.delete(value);
    }
  }

  #read(value: Record<string, unknown>, at: SpecPath, name: string | null): Shape {
    const rawType = value["type"];
    const types = (Array.isArray(rawType) ? rawType : rawType === undefined ? [] : [rawType]).filter(
      (t): t is string => typeof t === "string",
    );
    const nullable = value["nullable"] === true || types.includes("null");
    const nonNull = types.filter((t) => t !== "null");
    const allOf = Array.isArray(value["allOf"]) ? value["allOf"] : [];
    const properties = value["properties"];
    const variantsKey = Array.isArray(value["oneOf"]) ? "oneOf" : Array.isArray(value["anyOf"]) ? "anyOf" : null;
    if (variantsKey !== null && !isPlainObject(properties) && allOf.length === 0)
      return this.#variants(value[variantsKey] as unknown[], [...at, variantsKey], nullable);
    if (nonNull.length === 0 && !isPlainObject(properties) && allOf.length > 0) {
      // `allOf: [{type: string, description}, {nullable: false}]` (Box's `sequence_id`): a scalar or a list with
      // annotations, not an object, when only one part says what the value is.
      const shaped = allOf.filter((part, i) => {
        const v = this.#deref(part, [...at, "allOf", i]).value;
        return isPlainObject(v) && SHAPE_KEYWORDS.some((k) => own(v, k) !== undefined);
      });
      if (shaped.length === 1) {
        const part = this.read(shaped[0], [...at, "allOf", allOf.indexOf(shaped[0])]);
        if (part.kind === "scalar" || part.kind === "array") return withNullable(part, nullable);
      }
    }
    if (nonNull.includes("object") || isPlainObject(properties) || (nonNull.length === 0 && allOf.length > 0)) {
      const additional = value["additionalProperties"];
      const hasProperties = isPlainObject(properties) && Object.keys(properties).length > 0;
      if (!hasProperties && allOf.length === 0 && additional !== false)
        return { kind: "map", nullable, explicit: additional === true || isPlainObject(additional) };
      const names = name === null ? [] : [name];
      let fields: Field[] | null = null;
      const load = (): Field[] => (fields ??= this.#fields(value, at));
      return {
        kind: "object",
        nullable,
        names,
        get fields(): readonly Field[] {
          return load();
        },
      };
    }
    // `items` without a `type` (Slack's channel_actions_ts) is a list all the same.
    if ((nonNull.length === 1 && nonNull[0] === "array") || (nonNull.length === 0 && value["items"] !== undefined)) {
      return { kind: "array", items: this.read(value["items"], [...at, "items"]), nullable };
    }
    const enumValues = Array.isArray(value["enum"]) ? value["enum"] : null;
    const hints: ScalarHints = {
      ...(typeof value["format"] === "string" ? { format: value["format"] } : {}),
      ...(typeof value["maxLength"] === "number" ? { maxLength: value["maxLength"] } : {}),
      ...(enumValues !== null && enumValues.length > 0
        ? {
            // Measured, not written out: a shared (aliased) value can be huge as text; a hint needs no more.
            longestEnum: Math.max(...enumValues.slice(0, 100).map((v) => jsonLengthWithin(v, MAX_HINT) ?? MAX_HINT)),
          }
        : {}),
    };
    if (nonNull.length > 0 && nonNull.every((t) => SCALARS.has(t)))
      return { kind: "scalar", types: nonNull, nullable, hints };
    if (nonNull.length === 0 && enumValues !== null && enumValues.every((v) => typeof v === "string"))
      return { kind: "scalar", types: ["string"], nullable, hints };
    return SHAPE_KEYWORDS.some((k) => own(value, k) !== undefined)
      ? { kind: "unknown" }
      : { kind: "unknown", undocumented: true };
  }

  /** `oneOf`/`anyOf`: one shape for all the variants, when they are all objects, all scalars, or one and null. */
  #variants(variants: readonly unknown[], at: SpecPath, nullable: boolean): Shape {
    const shapes: Shape[] = [];
    let isNullable = nullable;
    variants.slice(0, 32).forEach((v, i) => {
      const resolved = this.#deref(v, [...at, i]).value;
      if (
        isPlainObject(resolved) &&
        (resolved["type"] === "null" ||
          (own(resolved, "enum") !== undefined && JSON.stringify(resolved["enum"]) === "[null]") ||
          // `anyOf: [{type: integer}, {nullable: true}]`: a variant that only says null is allowed.
          (resolved["nullable"] === true && !SHAPE_KEYWORDS.some((k) => own(resolved, k) !== undefined)))
      ) {
        isNullable = true;
        return;
      }
      shapes.push(this.read(v, [...at, i]));
    });
    if (shapes.length === 0) return { kind: "unknown" };
    if (shapes.length === 1) return withNullable(shapes[0]!, isNullable);
    if (shapes.every((s) => s.kind === "scalar")) {
      const types = [...new Set(shapes.flatMap((s) => (s.kind === "scalar" ? s.types : [])))];
      return { kind: "scalar", types, nullable: isNullable, hints: {} };
    }
    const objects = shapes.filter((s): s is ObjectShape => s.kind === "object");
    if (objects.length === shapes.length) return mergedObject(objects, isNullable);
    const scalars = shapes.filter((s) => s.kind === "scalar");
    if (objects.length === 0 || objects.length + scalars.length !== shapes.length) return { kind: "unknown" };
    const types = [...new Set(scalars.flatMap((s) => s.types))];
    return { kind: "unknown", mixed: { types, object: mergedObject(objects, false) } };
  }

  /** The properties of an object schema, with those of its allOf parts, in document order; writeOnly ones left out. */
  #fields(schema: Record<string, unknown>, at: SpecPath): Field[] {
    const out = new Map<string, Field>();
    const required = new Set<string>();
    const collect = (s: Record<string, unknown>, path: SpecPath, depth: number): void => {
      if (Array.isArray(s["required"])) for (const n of s["required"]) if (typeof n === "string") required.add(n);
      const allOf = Array.isArray(s["allOf"]) ? s["allOf"] : [];
      allOf.forEach((part, i) => {
        if (depth > 4) return;
        const resolved = this.#deref(part, [...path, "allOf", i]);
        if (isPlainObject(resolved.value)) collect(resolved.value, resolved.path, depth + 1);
      });
      const properties = s["properties"];
      if (!isPlainObject(properties)) return;
      for (const [name, value] of Object.entries(properties)) {
        if (out.has(name)) continue;
        const propertyAt = [...path, "properties", name];
        const resolved = this.#deref(value, propertyAt);
        if (own(resolved.value, "writeOnly") === true) continue;
        out.set(name, { name, shape: this.read(value, propertyAt), required: false });
      }
    };
    collect(schema, at, 0);
    return [...out.values()].map((f) => ({ ...f, required: required.has(f.name) }));
  }

  #deref(schema: unknown, path: SpecPath): { value: unknown; path: SpecPath } {
    try {
      return this.#resolver.deref(schema, path);
    } catch (error) {
      // A reference loop in a response only ends the walk; references that leave the document stay errors.
      if (error instanceof ImportProblem && error.code === "KV7005" && /never reaches a value/.test(error.message))
        return { value: undefined, path };
      throw error;
    }
  }
}

function withNullable(shape: Shape, nullable: boolean): Shape {
  if (!nullable || shape.kind === "unknown" || shape.nullable) return shape;
  if (shape.kind === "object") {
    const base = shape;
    return {
      kind: "object",
      nullable: true,
      names: base.names,
      get fields(): readonly Field[] {
        return base.fields;
      },
    };
  }
  return { ...shape, nullable: true };
}

/** Objects read as one, with the fields of all of them (mergeVariants). */
function mergedObject(objects: readonly ObjectShape[], nullable: boolean): ObjectShape {
  let fields: Field[] | null = null;
  return {
    kind: "object",
    nullable,
    names: objects.flatMap((o) => o.names),
    get fields(): readonly Field[] {
      return (fields ??= mergeVariants(objects));
    },
  };
}

/** The fields of all variants: those every variant has first, then the ones that tell them apart, in order. */
function mergeVariants(objects: readonly ObjectShape[]): Field[] {
  const all = objects.map((o) => o.fields);
  const first = new Map<string, Field>();
  for (const fields of all) for (const f of fields) if (!first.has(f.name)) first.set(f.name, f);
  const inAll = (name: string): boolean => all.every((fields) => fields.some((f) => f.name === name));
  const requiredInAll = (name: string): boolean =>
    all.every((fields) => fields.some((f) => f.name === name && f.required));
  const merged = [...first.values()].map((f) => ({ ...f, required: requiredInAll(f.name) }));
  return [...merged.filter((f) => inAll(f.name)), ...merged.filter((f) => !inAll(f.name))];
}

/**
 * Sets the default of the page-size input a proposal lowered (`limit`, `per_page`, ...), when the query sends it
 * from one input. The server sends nothing for an absent argument, so the upstream's own default still applies
 * then; the default in the tool's input schema is what tells a model the page size that fits.
 */
export function lowerPageSize(input: Record<string, unknown>, query: Record<string, unknown>, page: PageSize): void {
  const template = own(query, page.parameter);
  const match = typeof template === "string" ? /^\{\{\s*input\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(template) : null;
  if (match === null) return;
  const schema = own(own(input, "properties"), match[1]!);
  if (!isPlainObject(schema)) return;
  const minimum = own(schema, "minimum");
  if (typeof minimum === "number" && minimum > page.size) return;
  schema["default"] = page.size;
}
