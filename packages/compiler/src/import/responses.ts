/**
 * Output proposals: from an operation's success response, an `output.select` that keeps what a model usually
 * needs, and an `output.schema` for it.
 *
 * Raw API responses are large and mostly noise to a model (links, internal ids, audit fields, nested
 * objects). The proposal keeps, from the response schema, the scalar fields and the arrays of scalars, and one
 * level down, the scalar fields of nested objects and of arrays of objects (`items[*].{id: id, name: name}`).
 * It is a proposal: the spec marks it with a comment for review, and the rules are kept simple so a reviewer can
 * predict them.
 */
import { HTTP_DEFAULTS, SPEC_LIMITS } from "../analyze/spec-format.ts";
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { jsonLengthWithin } from "./json-size.ts";
import { ImportProblem, isPlainObject, own, put, type Resolver } from "./refs.ts";
import { ESTIMATE_RULE, fieldRank, isIdentityField, Rank, ranked, scalarChars } from "./rank.ts";

/** Lists of objects that are hypermedia, not content. */
const PLUMBING_LIST = /^(_?links|_embedded)$/i;
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
}

type Shape =
  | {
      readonly kind: "scalar";
      readonly types: readonly string[];
      readonly nullable: boolean;
      readonly hints: ScalarHints;
    }
  | { readonly kind: "array"; readonly items: Shape; readonly nullable: boolean }
  | { readonly kind: "object"; readonly fields: readonly Field[]; readonly nullable: boolean }
  | { readonly kind: "unknown" };

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
  const content = own(response.value, "content");
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
  const shape = new ShapeReader(resolver).read(schema, [...mediaAt, "schema"], 0);
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

/** A documented success code whose response has no body, if there is one. */
function emptySuccessCode(resolver: Resolver, responses: unknown, at: SpecPath): string | null {
  for (const code of SUCCESS) {
    const raw = own(responses, code);
    if (raw === undefined) continue;
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

/** Fields of a list's items are not trimmed below this many to fit a page. */
const MIN_LIST_FIELDS = 3;

/** How a list's kept fields were fitted into maxOutputChars, for the comment. */
interface Fitting {
  readonly perItem: number;
  readonly total: number;
  readonly fits: boolean;
}

/**
 * Drops the lowest-ranked fields of a list's items until `size` items fit in `maxChars` (keeping at least
 * MIN_LIST_FIELDS), the estimate being `fixed + size × per item`.
 */
function fitList(
  items: readonly Entry[],
  fixed: number,
  size: number,
  maxChars: number,
): { items: Entry[]; fitting: Fitting } {
  let kept = [...items];
  const total = (entries: readonly Entry[]): number => fixed + size * (sumChars(entries) + 1);
  while (kept.length > MIN_LIST_FIELDS && total(kept) > maxChars) kept = kept.slice(0, -1);
  return { items: kept, fitting: { perItem: sumChars(kept), total: total(kept), fits: total(kept) <= maxChars } };
}

function fittingComment(fitting: Fitting | null, page: PageSize | null, maxChars: number): string {
  if (fitting === null || page === null) return "";
  const estimate = `about ${fitting.perItem} characters an item, ${fitting.total} for ${page.size} items (the default of ${page.parameter}), estimated from the schema (${ESTIMATE_RULE})`;
  return fitting.fits
    ? `; fitted to maxOutputChars ${maxChars}: ${estimate}`
    : `; ${estimate}, more than maxOutputChars ${maxChars} even with ${MIN_LIST_FIELDS} fields: lower ${page.parameter} or narrow the select`;
}

function buildProposal(shape: Shape, code: string, page: PageSize | null, maxChars: number): Proposal {
  if (shape.kind === "object") {
    let picked = pick(shape.fields, 0);
    if (picked.length === 0)
      return {
        output: { select: "@" },
        comment: `proposal: the ${code} response has no scalar fields to pick; this returns the whole answer`,
      };
    // An object answer that carries the page (`{messages: [...], has_more}`) is fitted like a list.
    let fitting: Fitting | null = null;
    const list = picked.find((e) => e.items !== undefined);
    if (list !== undefined && page !== null) {
      const fixed = sumChars(picked.filter((e) => e !== list)) + list.key.length + 6;
      const fittedList = fitList(list.items!, fixed, page.size, maxChars);
      fitting = fittedList.fitting;
      picked = picked.map((e) => (e === list ? listEntry(list.key, fittedList.items) : e));
    }
    const fitted = fit(picked, (entries) => hash(entries));
    return {
      output: { select: hash(fitted), schema: objectSchema(fitted) },
      comment: `proposal: review this select and schema; they keep ${fitted.length} of the ${shape.fields.length} fields of the ${code} response${fittingComment(fitting, page, maxChars)}`,
    };
  }
  if (shape.kind === "array") {
    // structuredContent must be an object, so a list answer is wrapped as {items: [...]}.
    if (shape.items.kind === "object") {
      // The items of a list answer are what the answer is about: as many fields as at the top, without nesting.
      let picked = pick(shape.items.fields, 1, MAX_TOP_FIELDS);
      if (picked.length > 0) {
        let fitting: Fitting | null = null;
        if (page !== null) {
          const fittedList = fitList(picked, 12, page.size, maxChars);
          picked = fittedList.items;
          fitting = fittedList.fitting;
        }
        const fitted = fit(picked, (entries) => `{items: [*].${hash(entries)}}`);
        return {
          output: {
            select: `{items: [*].${hash(fitted)}}`,
            schema: {
              type: "object",
              properties: { items: { type: ["array", "null"], items: objectSchema(fitted) } },
              required: ["items"],
            },
          },
          comment: `proposal: review this select and schema; they keep ${fitted.length} of the ${shape.items.fields.length} fields of each item of the ${code} response${fittingComment(fitting, page, maxChars)}`,
        };
      }
    }
    if (shape.items.kind === "scalar") {
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
  }
  return {
    output: { select: "@" },
    comment: `proposal: the ${code} response schema gives nothing simple to pick; this returns the whole answer`,
  };
}

interface Entry {
  readonly key: string;
  readonly expression: string;
  readonly schema: Record<string, unknown>;
  /** Estimated characters of this entry in the returned JSON (key included); per item for a list. */
  readonly chars: number;
  /** For a list of objects: the kept fields of each item, so a list can be trimmed to fit. */
  readonly items?: readonly Entry[];
  /** An identity field the document requires: required in the output schema, and never null. */
  readonly required?: boolean;
}

/**
 * The fields kept at one level, content and identity first (rank.ts): scalars and arrays of scalars everywhere,
 * nested objects and lists of objects only at the top.
 */
function pick(
  fields: readonly Field[],
  level: number,
  max = level === 0 ? MAX_TOP_FIELDS : MAX_NESTED_FIELDS,
): Entry[] {
  const out: Entry[] = [];
  // The list a page answer carries (`data`, `items`, `messages`) is what the answer is about.
  const rankOf = (f: Field): Rank =>
    level === 0 && f.shape.kind === "array" && f.shape.items.kind === "object" && !PLUMBING_LIST.test(f.name)
      ? Rank.Content
      : fieldRank(f.name);
  for (const field of ranked(fields, rankOf)) {
    if (out.length >= max) break;
    if (REFUSED_FIELDS.has(field.name)) continue;
    // Inside a nested object or a list item, hypermedia and node ids are never worth their characters.
    if (level > 0 && rankOf(field) === Rank.Plumbing) continue;
    const name = identifier(field.name);
    const s = field.shape;
    const keyChars = name.length + 4;
    if (s.kind === "scalar") {
      const required = field.required && isIdentityField(field.name);
      out.push({
        key: name,
        expression: name,
        schema: scalarSchema(s, required),
        chars: keyChars + scalarChars(field.name, s.types, s.hints),
        ...(required ? { required } : {}),
      });
    } else if (s.kind === "array" && s.items.kind === "scalar") {
      out.push({
        key: name,
        expression: name,
        schema: { type: ["array", "null"], items: { type: typeOf(s.items.types) } },
        chars: keyChars + 3 * scalarChars(field.name, s.items.types, s.items.hints),
      });
    } else if (level === 0 && s.kind === "array" && s.items.kind === "object") {
      const inner = pick(s.items.fields, 1);
      if (inner.length > 0) out.push(listEntry(name, inner));
    } else if (level === 0 && s.kind === "object") {
      const inner = pick(s.fields, 1);
      // A multiselect on a missing object gives null, so the object may always be null.
      if (inner.length > 0)
        out.push({
          key: name,
          expression: `${name}.${hash(inner)}`,
          schema: { ...objectSchema(inner), type: ["object", "null"] },
          chars: keyChars + sumChars(inner),
        });
    }
  }
  return out;
}

/** A top-level list of objects (`messages[*].{...}`); `chars` is per item. */
function listEntry(name: string, inner: readonly Entry[]): Entry {
  return {
    key: name,
    expression: `${name}[*].${hash(inner)}`,
    schema: { type: ["array", "null"], items: objectSchema(inner) },
    chars: sumChars(inner),
    items: inner,
  };
}

function sumChars(entries: readonly Entry[]): number {
  return entries.reduce((n, e) => n + e.chars, 2);
}

/** Drops fields from the end until the select fits the format's length limit. */
function fit(entries: Entry[], render: (entries: Entry[]) => string): Entry[] {
  let kept = entries;
  while (kept.length > 1 && render(kept).length > MAX_SELECT) kept = kept.slice(0, -1);
  return kept;
}

function hash(entries: readonly Entry[]): string {
  return `{${entries.map((e) => `${e.key}: ${e.expression}`).join(", ")}}`;
}

/**
 * The schema of a picked object: tolerant of answers that drift from the document, since a value that fails the
 * output schema turns a call that succeeded upstream (perhaps a write) into an error. Only identity fields are
 * required and keep their exact type, and only when the document requires them too (an invented `required`, as on
 * petstore's tags[].id, turned real answers into errors); every other field may be null (a select gives null for a
 * missing field).
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

/** Reads a response schema into a shape, two levels deep, following references (cycles end in `unknown`). */
class ShapeReader {
  readonly #resolver: Resolver;

  constructor(resolver: Resolver) {
    this.#resolver = resolver;
  }

  read(schema: unknown, path: SpecPath, level: number): Shape {
    const { value, path: at } = this.#deref(schema, path);
    if (!isPlainObject(value)) return { kind: "unknown" };
    const rawType = value["type"];
    const types = (Array.isArray(rawType) ? rawType : rawType === undefined ? [] : [rawType]).filter(
      (t): t is string => typeof t === "string",
    );
    const nullable = value["nullable"] === true || types.includes("null");
    const nonNull = types.filter((t) => t !== "null");
    const allOf = Array.isArray(value["allOf"]) ? value["allOf"] : [];
    const properties = value["properties"];
    if (nonNull.includes("object") || isPlainObject(properties) || (nonNull.length === 0 && allOf.length > 0)) {
      if (level > 2) return { kind: "unknown" };
      return { kind: "object", fields: this.#fields(value, at, level), nullable };
    }
    if (nonNull.length === 1 && nonNull[0] === "array") {
      if (level > 2) return { kind: "unknown" };
      return { kind: "array", items: this.read(value["items"], [...at, "items"], level + 1), nullable };
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
    return { kind: "unknown" };
  }

  /** The properties of an object schema, with those of its allOf parts, in document order; writeOnly ones left out. */
  #fields(schema: Record<string, unknown>, at: SpecPath, level: number): Field[] {
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
        out.set(name, { name, shape: this.read(value, propertyAt, level + 1), required: false });
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
