/**
 * Schema profiles: a tool's input schema rewritten, at build time, for a family of clients that refuses parts of
 * JSON Schema, and advertised instead of the spec's schema when a server runs with `--schema-profile NAME`.
 *
 * The one profile today is `gemini`: Gemini's function declarations take a subset of the OpenAPI 3.0 Schema
 * object (https://ai.google.dev/api/caching#Schema): one `type` per schema (with `nullable`), `format` only as
 * that subset defines it, string `enum`s, `properties`/`required`/`items`, the size keywords, `anyOf`; no `$ref`,
 * `oneOf`, `allOf`, `const`, `additionalProperties` or type arrays, and clients that forward them fail the whole
 * request.
 *
 * The rewrite only ever loosens: every value valid under the spec's schema is valid under the advertised one
 * (test/plan/schema-profiles.test.ts checks that as a property). A keyword the profile lacks is dropped and
 * written into the description, so the model still reads it; a choice the profile cannot say is merged into the
 * loosest form it can. Validation always uses the spec's own schema (the validators compiled at build time), so
 * a call the advertised schema would have allowed but the spec's does not is refused as before, with the
 * validator's message.
 */
import type { JsonObject, JsonValue, ToolListing } from "@kervanc/runtime";
import type { SchemaProfile } from "@kervanc/runtime/schema-profiles";

export { SCHEMA_PROFILES, type SchemaProfile } from "@kervanc/runtime/schema-profiles";

/** The keywords the profile keeps (anything else is dropped, and said in the description). */
const GEMINI_KEYWORDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "default",
  "anyOf",
]);
/** Keywords that only describe; dropping them changes nothing a validator checks, so they go unremarked. */
const SILENT = new Set([
  "$schema",
  "$id",
  "$comment",
  "$defs",
  "definitions",
  "$anchor",
  "$dynamicAnchor",
  "examples",
  "example",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);
/** The formats Gemini's Schema documents, per type; other formats move into the description. */
const GEMINI_FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ["enum", "date-time"],
  number: ["float", "double"],
  integer: ["int32", "int64"],
};
/** How deep `$ref`s are followed; past it a reference becomes the loosest schema, `{}`. */
const MAX_REF_DEPTH = 4;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** What the rewrite found it had to change, per listing: empty when the spec's schema fits the profile as it is. */
export interface ProfileRewrite {
  readonly listing: ToolListing;
  readonly changes: readonly string[];
}

/** The tool's listing with its input schema rewritten for `profile`, or null when nothing needed to change. */
export function profileListing(listing: ToolListing, profile: SchemaProfile): ProfileRewrite | null {
  const changes: string[] = [];
  const root = listing.inputSchema;
  const inputSchema = PROFILE_REWRITES[profile](root, { root, depth: 0, refs: [], changes, at: "inputSchema" });
  if (changes.length === 0) return null;
  return { listing: { ...listing, inputSchema: { ...inputSchema, type: "object" } }, changes: [...new Set(changes)] };
}

/** Each profile's rewrite of one schema node (and what is under it). */
const PROFILE_REWRITES: Readonly<Record<SchemaProfile, (schema: JsonValue, walk: Walk) => JsonObject>> = {
  gemini: (schema, walk) => rewrite(schema, walk),
};

interface Walk {
  readonly root: JsonObject;
  readonly depth: number;
  /** The references being expanded on the way here: one met again is recursion, and becomes `{}`. */
  readonly refs: readonly string[];
  readonly changes: string[];
  readonly at: string;
}

function rewrite(schema: JsonValue, walk: Walk): JsonObject {
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return {};
  if (!isObject(schema)) {
    // `false` admits nothing; the loosest form the profile has admits everything, which is looser.
    walk.changes.push(`${walk.at}: false`);
    return {};
  }
  if (typeof schema["$ref"] === "string") return rewriteRef(schema, walk);
  const notes: string[] = [];
  let out: JsonObject = {};
  // A choice first: what it merges to is the base the node's own keywords then narrow.
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) out = mergeInto(out, choice(key, branches, walk, notes));
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === "anyOf" || key === "oneOf" || key === "allOf") continue;
    if (key === "type") {
      Object.assign(out, typeOf(value, walk, notes));
    } else if (key === "properties" && isObject(value)) {
      const properties: JsonObject = isObject(out["properties"]) ? { ...out["properties"] } : {};
      for (const [name, sub] of Object.entries(value))
        properties[name] = rewrite(sub, { ...walk, at: `${walk.at}.properties.${name}` });
      out["properties"] = properties;
    } else if (key === "items" && !Array.isArray(value)) {
      out["items"] = rewrite(value, { ...walk, at: `${walk.at}.items` });
    } else if (key === "enum" && Array.isArray(value)) {
      if (value.every((v) => typeof v === "string")) out["enum"] = value;
      else dropped(walk, notes, key, value);
    } else if (key === "const") {
      if (typeof value === "string") out["enum"] = [value];
      else dropped(walk, notes, key, value);
    } else if (key === "format" && typeof value === "string") {
      out["format"] = value; // checked against the type below, once the type is known
    } else if (GEMINI_KEYWORDS.has(key)) {
      out[key] = value;
    } else if (!SILENT.has(key)) {
      dropped(walk, notes, key, value);
    }
  }
  const type = out["type"];
  if (typeof out["format"] === "string") {
    const allowed = typeof type === "string" ? (GEMINI_FORMATS[type] ?? []) : [];
    if (!allowed.includes(out["format"])) {
      dropped(walk, notes, "format", out["format"]);
      delete out["format"];
    }
  }
  if (notes.length > 0) {
    const said = typeof out["description"] === "string" ? `${out["description"]} ` : "";
    out["description"] = `${said}(${notes.join("; ")})`;
  }
  return out;
}

function dropped(walk: Walk, notes: string[], key: string, value: JsonValue): void {
  walk.changes.push(`${walk.at}: ${key}`);
  const text = JSON.stringify(value);
  notes.push(`${key}: ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`);
}

/** `type`: one name stays; `[T, "null"]` is `T` with `nullable`; any other list is left out (any type). */
function typeOf(value: JsonValue, walk: Walk, notes: string[]): JsonObject {
  if (typeof value === "string") {
    if (value === "null") {
      dropped(walk, notes, "type", value);
      return { nullable: true };
    }
    return TYPES.has(value) ? { type: value } : {};
  }
  if (!Array.isArray(value)) return {};
  walk.changes.push(`${walk.at}: type list`);
  const types = value.filter((t): t is string => typeof t === "string");
  const real = types.filter((t) => t !== "null");
  const nullable: JsonObject = types.includes("null") ? { nullable: true } : {};
  if (real.length === 1 && TYPES.has(real[0]!)) return { type: real[0]!, ...nullable };
  notes.push(`one of the types ${real.join(", ")}`);
  return nullable;
}

/**
 * `anyOf`, `oneOf` or `allOf`: branches that are all objects become one object (every branch's properties; for
 * `anyOf`/`oneOf` only the properties every branch requires are required, for `allOf` all of them); a branch
 * `{type: "null"}` beside one other type becomes `nullable`; anything else becomes the loosest schema, `{}`, with
 * the choice described.
 */
function choice(key: string, branches: readonly JsonValue[], walk: Walk, notes: string[]): JsonObject {
  walk.changes.push(`${walk.at}: ${key}`);
  const rewritten = branches.map((b, i) => rewrite(b, { ...walk, at: `${walk.at}.${key}[${i}]` }));
  const nulls = rewritten.filter(
    (b) => b["nullable"] === true && b["type"] === undefined && Object.keys(b).length <= 2,
  );
  const rest = rewritten.filter((b) => !nulls.includes(b));
  if (rest.length === 1 && nulls.length > 0) return { ...rest[0]!, nullable: true };
  if (rest.length > 0 && rest.every((b) => b["type"] === "object" || isObject(b["properties"]))) {
    const properties: JsonObject = {};
    for (const branch of rest) {
      for (const [name, sub] of Object.entries(isObject(branch["properties"]) ? branch["properties"] : {})) {
        // Two branches that describe one property differently: the property takes the loosest schema.
        properties[name] =
          Object.hasOwn(properties, name) && JSON.stringify(properties[name]) !== JSON.stringify(sub) ? {} : sub;
      }
    }
    const requiredOf = (b: JsonObject): string[] =>
      Array.isArray(b["required"]) ? b["required"].filter((r): r is string => typeof r === "string") : [];
    const required =
      key === "allOf"
        ? [...new Set(rest.flatMap(requiredOf))]
        : requiredOf(rest[0]!).filter((name) => rest.every((b) => requiredOf(b).includes(name)));
    if (key !== "allOf") notes.push(`${key === "oneOf" ? "exactly one" : "at least one"} of ${rest.length} shapes`);
    return {
      type: "object",
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...(nulls.length > 0 ? { nullable: true } : {}),
    };
  }
  notes.push(`${key} of ${branches.length} schemas`);
  return nulls.length > 0 ? { nullable: true } : {};
}

/** A merge of what a choice gave with the node's own keywords: the node's keywords are applied after it. */
function mergeInto(base: JsonObject, extra: JsonObject): JsonObject {
  return { ...base, ...extra };
}

/**
 * `$ref` to a place in the same schema by JSON pointer (`#/$defs/x`, `#`), inlined. Anything else (an anchor, a
 * recursion, a chain deeper than MAX_REF_DEPTH) becomes the loosest schema, `{}`, with the reference described.
 */
function rewriteRef(schema: JsonObject, walk: Walk): JsonObject {
  walk.changes.push(`${walk.at}: $ref`);
  const ref = schema["$ref"] as string;
  const byPointer = ref === "#" || ref.startsWith("#/");
  const target =
    byPointer && walk.depth < MAX_REF_DEPTH && !walk.refs.includes(ref) ? pointer(walk.root, ref.slice(1)) : undefined;
  if (target === undefined) return { description: `(a ${JSON.stringify(ref)} schema)` };
  const { $ref: _ref, ...siblings } = schema;
  // Keywords beside a $ref apply too (2020-12): they can only narrow, so the inlined target with them is exact.
  const merged = isObject(target) ? { ...target, ...siblings } : target;
  return rewrite(merged, { ...walk, depth: walk.depth + 1, refs: [...walk.refs, ref] });
}

function pointer(root: JsonValue, path: string): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const raw of path.split("/").slice(1)) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node) && Object.hasOwn(node, part)) node = node[part];
    else return undefined;
  }
  return node;
}
