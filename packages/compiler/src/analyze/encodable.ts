/**
 * Which JSON values an input schema admits, by type, and whether the place a template sends it in can encode them
 * (packages/runtime/src/call/render.ts): a path segment, a header and text mixed into a query value or a body
 * string carry a string, number or boolean only (`scalarText`); a query value that is exactly one reference also
 * carries a list of them, one parameter per item (`renderSearch`); a body value that is exactly one reference
 * carries any JSON value. Null is an absent value in every place (left out of the query, an error in a path or a
 * header as a missing argument is), so it is not counted here.
 *
 * The reading is by type only and errs towards "admits": a keyword it does not follow (`not`, `if`) is read as
 * admitting everything. The analyze rule encodable-inputs reports with it, and `kervanc import` narrows what it
 * writes with it (import/encodable.ts), so the two cannot disagree.
 */

export type JsonType = "string" | "number" | "boolean" | "null" | "object" | "array";

const ALL: readonly JsonType[] = ["string", "number", "boolean", "null", "object", "array"];

/** The places a template sends a value in, by what they can encode. */
export type Place = "text" | "query";

/** Why a place cannot encode every value a schema admits (a KV3020 message), or null when it can. */
export type EncodeProblem = "object" | "list" | "anyValue" | "queryObject" | "queryAnyValue" | "queryItems";

const MAX_DEPTH = 32;
/**
 * Schemas visited for one question at most: references can share a schema many times over (a DAG of `anyOf`s), and
 * past this the answer is "admits everything", which errs the safe way.
 */
const MAX_STEPS = 10_000;

interface Walk {
  readonly root: unknown;
  steps: number;
  /** A reference that could not be followed was met: the answer is not known (another check reports it). */
  unknown: boolean;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function typeOfValue(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  return t === "string" || t === "number" || t === "boolean" ? t : "object";
}

/** A same-document reference (`#/...`) within the input schema, or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  const pointer = ref.slice(1);
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return findAnchor(root, pointer, 0);
  for (const raw of pointer.slice(1).split("/")) {
    let token = raw;
    try {
      token = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    token = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

/** The schema with this `$anchor` (`#named`), looked for through the input's objects and lists. */
function findAnchor(node: unknown, anchor: string, depth: number): unknown {
  if (node === null || typeof node !== "object" || depth > MAX_DEPTH) return undefined;
  if (!Array.isArray(node) && (node as Record<string, unknown>)["$anchor"] === anchor) return node;
  for (const child of Array.isArray(node) ? node : Object.values(node)) {
    const found = findAnchor(child, anchor, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function intersect(a: ReadonlySet<JsonType>, b: ReadonlySet<JsonType>): Set<JsonType> {
  return new Set([...a].filter((t) => b.has(t)));
}

/** The JSON types of the values `schema` admits; null when a reference in it cannot be followed. */
export function admittedTypes(schema: unknown, root: unknown): Set<JsonType> | null {
  const walk: Walk = { root, steps: 0, unknown: false };
  const types = admitted(schema, walk, 0);
  return walk.unknown ? null : types;
}

function admitted(schema: unknown, walk: Walk, depth: number): Set<JsonType> {
  if (schema === false) return new Set();
  if (!isObject(schema) || depth > MAX_DEPTH || ++walk.steps > MAX_STEPS) return new Set(ALL);
  let types = new Set<JsonType>(ALL);
  const type = schema["type"];
  const listed = typeof type === "string" ? [type] : Array.isArray(type) ? type : null;
  if (listed !== null) {
    const named = new Set<JsonType>();
    for (const t of listed) {
      if (t === "integer") named.add("number");
      else if (typeof t === "string" && (ALL as readonly string[]).includes(t)) named.add(t as JsonType);
    }
    types = intersect(types, named);
  }
  if (Object.hasOwn(schema, "const")) types = intersect(types, new Set([typeOfValue(schema["const"])]));
  if (Array.isArray(schema["enum"])) types = intersect(types, new Set(schema["enum"].map(typeOfValue)));
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const union = new Set<JsonType>();
    for (const branch of branches) for (const t of admitted(branch, walk, depth + 1)) union.add(t);
    types = intersect(types, union);
  }
  if (Array.isArray(schema["allOf"]))
    for (const part of schema["allOf"]) types = intersect(types, admitted(part, walk, depth + 1));
  if (Object.hasOwn(schema, "$ref")) {
    const target = typeof schema["$ref"] === "string" ? resolvePointer(walk.root, schema["$ref"]) : undefined;
    if (target === undefined) walk.unknown = true;
    else types = intersect(types, admitted(target, walk, depth + 1));
  }
  return types;
}

/**
 * The JSON types of the items of the lists `schema` admits (every type when it says nothing of them); null when a
 * reference in it cannot be followed.
 */
export function admittedItemTypes(schema: unknown, root: unknown): Set<JsonType> | null {
  const walk: Walk = { root, steps: 0, unknown: false };
  const types = itemTypes(schema, walk, 0);
  return walk.unknown ? null : types;
}

function itemTypes(schema: unknown, walk: Walk, depth: number): Set<JsonType> {
  if (!isObject(schema) || depth > MAX_DEPTH || ++walk.steps > MAX_STEPS) return new Set(ALL);
  const found: Set<JsonType>[] = [];
  if (Object.hasOwn(schema, "items") || Array.isArray(schema["prefixItems"])) {
    // prefixItems without items leaves the later items free.
    const items = Object.hasOwn(schema, "items") ? admitted(schema["items"], walk, depth + 1) : new Set(ALL);
    if (Array.isArray(schema["prefixItems"]))
      for (const p of schema["prefixItems"]) for (const t of admitted(p, walk, depth + 1)) items.add(t);
    found.push(items);
  }
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const union = new Set<JsonType>();
    for (const branch of branches) {
      if (!admitted(branch, walk, depth + 1).has("array")) continue;
      for (const t of itemTypes(branch, walk, depth + 1)) union.add(t);
    }
    found.push(union);
  }
  if (Array.isArray(schema["allOf"]))
    for (const part of schema["allOf"]) {
      const partSays = isObject(part) && (Object.hasOwn(part, "items") || typeof part["$ref"] === "string");
      if (partSays) found.push(itemTypes(part, walk, depth + 1));
    }
  if (typeof schema["$ref"] === "string") {
    const target = resolvePointer(walk.root, schema["$ref"]);
    if (target === undefined) walk.unknown = true;
    else found.push(itemTypes(target, walk, depth + 1));
  }
  return found.reduce((a, b) => intersect(a, b), new Set<JsonType>(ALL));
}

/** Whether a schema says nothing of its values' type (then it admits everything). */
function untyped(types: ReadonlySet<JsonType>): boolean {
  return ALL.every((t) => types.has(t));
}

/** What a place cannot encode of the values `schema` admits, or null when it can encode them all. */
export function encodeProblem(schema: unknown, root: unknown, place: Place): EncodeProblem | null {
  const types = admittedTypes(schema, root);
  if (types === null) return null;
  if (place === "text") {
    if (untyped(types)) return "anyValue";
    if (types.has("object")) return "object";
    if (types.has("array")) return "list";
    return null;
  }
  if (untyped(types)) return "queryAnyValue";
  if (types.has("object")) return "queryObject";
  if (types.has("array")) {
    const items = admittedItemTypes(schema, root);
    if (items !== null && (items.has("object") || items.has("array") || items.has("null"))) return "queryItems";
  }
  return null;
}

/**
 * The schema an input reference names, following `properties` from the input's root as the reference check does
 * (templates.ts, inputPathDeclared); undefined where a level has no `properties` (the value below is not
 * declared, and not judged) or the name is not declared (KV3004's to report).
 */
export function schemaAtInputPath(input: unknown, path: readonly string[]): unknown {
  let schema: unknown = input;
  for (const key of path) {
    if (!isObject(schema)) return undefined;
    const properties = schema["properties"];
    if (!isObject(properties) || !Object.hasOwn(properties, key)) return undefined;
    schema = properties[key];
  }
  return schema;
}
