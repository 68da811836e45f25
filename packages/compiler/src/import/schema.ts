/**
 * OpenAPI schema objects to the JSON Schemas (2020-12) a spec's `input` holds.
 *
 * A tool's input schema must stand alone: it is published to clients as is, and many clients do not follow
 * `$ref`s. So every local `$ref` is inlined, within the spec's schema limits (a node budget stops a document
 * whose references multiply, before it costs memory). A reference cycle cannot be inlined: it is an error at the
 * `$ref` that closes it (see README, "kervanc import"), because cutting it to `{}` would let the server forward
 * unchecked values without anyone deciding that.
 *
 * OpenAPI 3.0 schema objects are a dialect of their own; 3.1 ones are 2020-12 with extra keywords. Both are
 * rebuilt keyword by keyword from a list of the 2020-12 keywords Ajv's strict mode knows: `nullable` becomes a
 * `"null"` type, boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers, properties marked `readOnly`
 * (set by the server) leave request schemas, a `oneOf`'s `discriminator` becomes a `const` in each branch
 * (#discriminate), and everything else (`example`, `examples`, `xml`, `externalDocs`, `x-` extensions, unknown
 * formats) is dropped: it would cost tokens in every listing, or make `build` warn, and checks nothing.
 */
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { SCHEMA_LIMITS } from "../analyze/rules/schema-limits.ts";
import { jsonLengthWithin } from "./json-size.ts";
import { ImportProblem, isPlainObject, own, pointerOf, put, type Resolver } from "./refs.ts";
import { cleanText, removedCharacters, shorten } from "./text.ts";

export type OpenApiVersion = "3.0" | "3.1";
export type JsonSchema = Record<string, unknown> | boolean;

/** Descriptions inside schemas are cut to this length: they are repeated in every listing of the tool. */
export const MAX_SCHEMA_DESCRIPTION = 300;

const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

/** Formats Ajv (with ajv-formats) checks; others are annotations that `build` would warn about. */
const KNOWN_FORMATS = new Set([
  "binary",
  "byte",
  "date",
  "date-time",
  "double",
  "duration",
  "email",
  "float",
  "hostname",
  "int32",
  "int64",
  "ipv4",
  "ipv6",
  "iso-date-time",
  "iso-time",
  "json-pointer",
  "json-pointer-uri-fragment",
  "password",
  "regex",
  "relative-json-pointer",
  "time",
  "uri",
  "uri-reference",
  "uri-template",
  "url",
  "uuid",
]);

const NUMBER_KEYWORDS = ["multipleOf", "maximum", "minimum"] as const;
const COUNT_KEYWORDS = [
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
] as const;
const SCHEMA_KEYWORDS = [
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
const LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "example",
  "examples",
  "externalDocs",
  "xml",
]);
/**
 * Property names the spec format reads as keywords wherever they appear, as Kervan does (analyze/rules/schema-limits.ts):
 * a property of such a name cannot be written in a spec, so it is left out (with a warning) rather than the
 * whole operation refused. In the document they are names, and are read as names everywhere else.
 */
export const KEYWORD_NAMES: ReadonlySet<string> = new Set([
  "$id",
  "$ref",
  "$schema",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
]);

/** Keywords 2020-12 does not have that a document may still carry; refused rather than dropped, since they change what validates. */
const DYNAMIC = ["$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"];

/**
 * A note for the spec's reader on a converted schema the conversion had to loosen (a discriminated `oneOf` kept as
 * `anyOf`): the keyword it is about and the text. It is a symbol-keyed property, so copies of the schema (`{...s}`)
 * keep it and JSON leaves it out; inputs.ts turns it into a comment on that keyword in the spec.
 */
export const LOOSENED: unique symbol = Symbol("loosened");
export interface LoosenedNote {
  readonly key: string;
  readonly text: string;
}

/** What the conversion left out or changed (KV7010, KV7014), for the import's report. */
export type ConvertNote = Finding;

/**
 * Converts the schemas of one tool. One converter per tool: its node budget counts every node the tool's
 * input holds, inlined references included.
 */
export class SchemaConverter {
  readonly #resolver: Resolver;
  readonly #version: OpenApiVersion;
  readonly #notes: ConvertNote[];
  readonly #cache = new Map<string, { schema: JsonSchema; nodes: number; valueBytes: number }>();
  #nodes = 0;
  /**
   * The JSON bytes of the values copied as they are (`const`, `default`, `enum`), inlined references included.
   * The node budget does not see inside them, and a document can make one huge by sharing (YAML aliases) or
   * repeat it through `$ref`s; the spec refuses a schema over SCHEMA_LIMITS.maxBytes anyway, so past that the
   * import stops before writing them out.
   */
  #valueBytes = 0;
  readonly #budget: number;
  readonly #dropped = new Map<string, number>();

  constructor(
    resolver: Resolver,
    version: OpenApiVersion,
    notes: ConvertNote[],
    budget: number = SCHEMA_LIMITS.maxNodes,
  ) {
    this.#resolver = resolver;
    this.#version = version;
    this.#notes = notes;
    this.#budget = budget;
  }

  get nodes(): number {
    return this.#nodes;
  }

  /** Converts a request-side schema found at `path`; throws ImportProblem for what cannot be converted. */
  convert(schema: unknown, path: SpecPath): JsonSchema {
    return this.#convert(schema, path, [], 0);
  }

  /** Whether a (possibly referenced) schema is marked `readOnly: true`: such properties are set by the server. */
  isReadOnly(schema: unknown, path: SpecPath): boolean {
    try {
      return own(this.#resolver.deref(schema, path).value, "readOnly") === true;
    } catch {
      // The problem is reported when the schema itself is converted.
      return false;
    }
  }

  #count(n: number, path: SpecPath): void {
    this.#nodes += n;
    if (this.#nodes > this.#budget)
      throw new ImportProblem(report("KV7007", path, (m) => m.tooManyNodes({ max: this.#budget })));
  }

  #chargeValueBytes(n: number, path: SpecPath): void {
    this.#valueBytes += n;
    if (this.#valueBytes > SCHEMA_LIMITS.maxBytes)
      throw new ImportProblem(report("KV7007", path, (m) => m.valuesTooLarge({ max: SCHEMA_LIMITS.maxBytes })));
  }

  /** `value`, to be copied into the input schema as it is, once its size fits what is left of the budget. */
  #copied<T>(value: T, path: SpecPath): T {
    const length = jsonLengthWithin(value, SCHEMA_LIMITS.maxBytes - this.#valueBytes);
    this.#chargeValueBytes(length ?? SCHEMA_LIMITS.maxBytes + 1, path);
    return value;
  }

  #convert(schema: unknown, path: SpecPath, refs: readonly string[], depth: number): JsonSchema {
    if (typeof schema === "boolean") return schema;
    if (!isPlainObject(schema)) throw new ImportProblem(report("KV7003", path, (m) => m.schemaNotMapping));
    // Each schema level is at least one level of the spec's depth limit, so this is past it for sure; stopping
    // here also keeps a hostile document's nesting off the call stack.
    if (depth > SCHEMA_LIMITS.maxDepth)
      throw new ImportProblem(report("KV7007", path, (m) => m.tooDeep({ max: SCHEMA_LIMITS.maxDepth })));
    for (const key of DYNAMIC) {
      if (Object.hasOwn(schema, key))
        throw new ImportProblem(report("KV7005", [...path, key], (m) => m.dynamic({ key })));
    }
    if (Object.hasOwn(schema, "$ref")) return this.#convertRef(schema, path, refs, depth);
    this.#count(1, path);
    const out: Record<string, unknown> = {};

    // type, with OpenAPI 3.0's nullable folded in.
    const rawType = schema["type"];
    let types = (Array.isArray(rawType) ? rawType : rawType === undefined ? [] : [rawType]).filter(
      (t): t is string => typeof t === "string" && TYPES.has(t),
    );
    const nullable = schema["nullable"] === true;
    if (nullable && types.length > 0 && !types.includes("null")) types = [...types, "null"];
    types = [...new Set(types)];
    if (types.length === 1) out["type"] = types[0];
    else if (types.length > 1) out["type"] = types;

    this.#annotation(schema, path, out, "title", "line");
    this.#annotation(schema, path, out, "description", "multiline");
    if (Object.hasOwn(schema, "default") && schema["default"] !== undefined)
      out["default"] = this.#copied(schema["default"], [...path, "default"]);
    if (schema["deprecated"] === true) out["deprecated"] = true;

    if (Array.isArray(schema["enum"]) && schema["enum"].length > 0) {
      const values = [...this.#copied(schema["enum"] as unknown[], [...path, "enum"])];
      if (nullable && !values.includes(null)) values.push(null);
      out["enum"] = values;
    }
    if (Object.hasOwn(schema, "const")) out["const"] = this.#copied(schema["const"], [...path, "const"]);
    if (typeof schema["format"] === "string" && KNOWN_FORMATS.has(schema["format"])) out["format"] = schema["format"];

    for (const key of NUMBER_KEYWORDS) if (typeof schema[key] === "number") out[key] = schema[key];
    if (typeof out["multipleOf"] === "number" && !((out["multipleOf"] as number) > 0)) delete out["multipleOf"];
    // 3.0: `exclusiveMinimum: true` makes `minimum` exclusive; 2020-12 writes the bound itself.
    for (const [exclusive, bound] of [
      ["exclusiveMinimum", "minimum"],
      ["exclusiveMaximum", "maximum"],
    ] as const) {
      const value = schema[exclusive];
      if (typeof value === "number") out[exclusive] = value;
      else if (value === true && typeof out[bound] === "number") {
        out[exclusive] = out[bound];
        delete out[bound];
      }
    }
    for (const key of COUNT_KEYWORDS)
      if (Number.isInteger(schema[key]) && (schema[key] as number) >= 0) out[key] = schema[key];
    if (schema["uniqueItems"] === true) out["uniqueItems"] = true;
    if (typeof schema["pattern"] === "string") {
      const problem = patternProblem(schema["pattern"]);
      if (problem === null) out["pattern"] = schema["pattern"];
      else this.#notes.push(report("KV7010", [...path, "pattern"], (m) => m.patternLeftOut({ problem })));
    }

    for (const key of SCHEMA_KEYWORDS) {
      if (Object.hasOwn(schema, key)) out[key] = this.#convert(schema[key], [...path, key], refs, depth + 1);
    }
    for (const key of LIST_KEYWORDS) {
      const list = schema[key];
      if (Array.isArray(list) && list.length > 0)
        out[key] = list.map((item, i) => this.#convert(item, [...path, key, i], refs, depth + 1));
    }
    if (Array.isArray(out["oneOf"]) && isPlainObject(schema["discriminator"]))
      this.#discriminate(out, schema["oneOf"] as unknown[], schema["discriminator"], path);
    const items = schema["items"];
    if (Array.isArray(items)) {
      // Draft 4 tuple form, which some 3.0 documents use: 2020-12 calls it prefixItems.
      if (items.length > 0 && out["prefixItems"] === undefined)
        out["prefixItems"] = items.map((item, i) => this.#convert(item, [...path, "items", i], refs, depth + 1));
    } else if (items !== undefined) out["items"] = this.#convert(items, [...path, "items"], refs, depth + 1);

    const properties = schema["properties"];
    const dropped = new Set<string>();
    if (isPlainObject(properties)) {
      const converted: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(properties)) {
        const at = [...path, "properties", name];
        // Properties the server sets (ids, timestamps) are not the client's to send.
        if (this.isReadOnly(value, at)) {
          dropped.add(name);
          continue;
        }
        if (KEYWORD_NAMES.has(name)) {
          dropped.add(name);
          this.#notes.push(report("KV7010", at, (m) => m.keywordProperty({ name })));
          continue;
        }
        put(converted, name, this.#convert(value, at, refs, depth + 1));
      }
      out["properties"] = converted;
    }
    if (Array.isArray(schema["required"])) {
      const declared = isPlainObject(out["properties"]) ? (out["properties"] as Record<string, unknown>) : null;
      // A required name that `properties` does not declare makes Ajv's strict mode warn; in OpenAPI it is
      // usually a property dropped above (readOnly) or declared in an allOf sibling, which is kept.
      const required = [
        ...new Set(
          schema["required"].filter(
            (n): n is string =>
              typeof n === "string" && !dropped.has(n) && (declared === null || Object.hasOwn(declared, n)),
          ),
        ),
      ];
      // A required name declared nowhere (Asana's SectionRequest requires `project` without a schema for it): the
      // request must still carry it, so it becomes a property of any value rather than a requirement dropped,
      // unless extra properties are refused (then the document allows no object at all) or a combinator may
      // declare it.
      const combined = ["allOf", "anyOf", "oneOf"].some((k) => Array.isArray(schema[k]));
      if (declared !== null && !combined && schema["additionalProperties"] !== false)
        for (const n of new Set(schema["required"]))
          if (typeof n === "string" && !dropped.has(n) && !Object.hasOwn(declared, n) && !KEYWORD_NAMES.has(n)) {
            put(declared, n, { description: "Required by the API; its document gives no schema for it." });
            required.push(n);
          }
      if (required.length > 0) out["required"] = required;
    }
    const additional = schema["additionalProperties"];
    if (typeof additional === "boolean") out["additionalProperties"] = additional;
    else if (additional !== undefined)
      out["additionalProperties"] = this.#convert(additional, [...path, "additionalProperties"], refs, depth + 1);
    const patternProperties = schema["patternProperties"];
    if (isPlainObject(patternProperties)) {
      const converted: Record<string, unknown> = {};
      for (const [pattern, value] of Object.entries(patternProperties)) {
        const problem = patternProblem(pattern);
        if (problem !== null) {
          this.#notes.push(
            report("KV7010", [...path, "patternProperties", pattern], (m) => m.patternPropertyLeftOut({ problem })),
          );
          continue;
        }
        put(converted, pattern, this.#convert(value, [...path, "patternProperties", pattern], refs, depth + 1));
      }
      if (Object.keys(converted).length > 0) out["patternProperties"] = converted;
    }
    const dependentRequired = schema["dependentRequired"];
    if (isPlainObject(dependentRequired)) {
      const converted: Record<string, unknown> = {};
      for (const [name, list] of Object.entries(dependentRequired)) {
        if (Array.isArray(list))
          put(
            converted,
            name,
            list.filter((n): n is string => typeof n === "string"),
          );
      }
      out["dependentRequired"] = converted;
    }
    const dependentSchemas = schema["dependentSchemas"];
    if (isPlainObject(dependentSchemas)) {
      const converted: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(dependentSchemas))
        put(converted, name, this.#convert(value, [...path, "dependentSchemas", name], refs, depth + 1));
      out["dependentSchemas"] = converted;
    }
    // `then`/`else` without `if` mean nothing (and make Ajv's strict mode warn).
    if (out["if"] === undefined) {
      delete out["then"];
      delete out["else"];
    }
    // `properties` without a type: OpenAPI tools read it as an object, and so does this schema.
    if (
      out["type"] === undefined &&
      (out["properties"] !== undefined || out["additionalProperties"] !== undefined) &&
      !hasCombinator(out)
    )
      out["type"] = "object";
    if (
      out["type"] === undefined &&
      (out["items"] !== undefined || out["prefixItems"] !== undefined) &&
      !hasCombinator(out)
    )
      out["type"] = "array";
    if (out["prefixItems"] !== undefined && out["minItems"] === undefined) out["minItems"] = 0;
    this.#dropInapplicable(out);
    return out;
  }

  /**
   * Keywords that only constrain values of another type than the schema's own (`uniqueItems` on a string, as
   * Kubernetes writes thousands of times) check nothing, and make Ajv's strict mode warn once each: they are
   * dropped and counted, for one summary note.
   */
  #dropInapplicable(out: Record<string, unknown>): void {
    const type = out["type"];
    if (type === undefined) return;
    const types = new Set(Array.isArray(type) ? (type as string[]) : [type as string]);
    if (types.has("integer")) types.add("number");
    for (const [applies, keywords] of TYPE_KEYWORDS) {
      if (types.has(applies)) continue;
      for (const keyword of keywords) {
        if (out[keyword] === undefined) continue;
        delete out[keyword];
        this.#dropped.set(keyword, (this.#dropped.get(keyword) ?? 0) + 1);
      }
    }
  }

  /**
   * A `oneOf` with an OpenAPI `discriminator`: the discriminator is what tells its branches apart, and dropping it
   * (it is not JSON Schema) leaves a `oneOf` that refuses a correct value whenever two branches overlap (Spotify's
   * track and episode objects share most fields). Each branch gets the discriminator property as a required
   * `const` (an `enum` when several values map to it), so exactly one branch matches. The values are the branch's
   * own `const`/`enum` for the property when it has one (the document's truth: Spotify's `type: track` rather than
   * the schema name `TrackObject`), else its `mapping` keys, else the name of the schema it references. When a
   * branch cannot be tagged so (an inline branch without its own value, a branch that is not an object, values
   * shared by two branches, a mapping that contradicts the branch), the `oneOf` becomes an `anyOf`, which accepts a
   * value matching several branches, with a comment in the spec saying why.
   */
  #discriminate(out: Record<string, unknown>, raw: readonly unknown[], discriminator: unknown, path: SpecPath): void {
    const property = own(discriminator, "propertyName");
    const branches = out["oneOf"] as JsonSchema[];
    if (typeof property !== "string" || property === "" || KEYWORD_NAMES.has(property)) return;
    const mapping = own(discriminator, "mapping");
    const targets = new Map<string, string[]>();
    if (isPlainObject(mapping)) {
      for (const [value, target] of Object.entries(mapping)) {
        if (typeof target !== "string") continue;
        const key = schemaPointer(target);
        targets.set(key, [...(targets.get(key) ?? []), value]);
      }
    }
    const tagged: JsonSchema[] = [];
    const seen = new Set<unknown>();
    let problem: string | null = null;
    for (const [i, branch] of branches.entries()) {
      const ref = own(raw[i], "$ref");
      const label = typeof ref === "string" ? JSON.stringify(ref) : `branch ${i + 1}`;
      if (typeof branch === "boolean" || !admitsObject(branch)) {
        problem = `${label} is not an object`;
        break;
      }
      const ownValues = tagValues(branch, property, 0);
      const mapped = typeof ref === "string" ? targets.get(schemaPointer(ref)) : undefined;
      const implicit = typeof ref === "string" ? /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1] : undefined;
      let values: readonly unknown[] | undefined;
      if (ownValues !== null) {
        values = mapped === undefined ? ownValues : mapped;
        if (mapped !== undefined && !mapped.every((v) => ownValues.includes(v))) {
          problem = `the mapping gives ${label} a value its own "${property}" does not allow`;
          break;
        }
      } else values = mapped ?? (implicit === undefined ? undefined : [decodePointerToken(implicit)]);
      if (values === undefined || values.length === 0) {
        problem = `${label} has no discriminator value of its own, in the mapping or by a schema name`;
        break;
      }
      if (values.some((v) => seen.has(v))) {
        problem = `two branches share the value ${JSON.stringify(values.find((v) => seen.has(v)))}`;
        break;
      }
      for (const v of values) seen.add(v);
      this.#count(1, path);
      const properties = isPlainObject(branch["properties"]) ? branch["properties"] : {};
      const existing = properties[property];
      const base: Record<string, unknown> = isPlainObject(existing) ? { ...existing } : {};
      delete base["enum"];
      delete base["const"];
      const tag = values.length === 1 ? { ...base, const: values[0] } : { ...base, enum: [...values] };
      const copy: Record<string, unknown> = { ...branch };
      const props: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(properties)) put(props, name, value);
      put(props, property, tag);
      copy["properties"] = props;
      const required = Array.isArray(branch["required"]) ? (branch["required"] as unknown[]) : [];
      copy["required"] = required.includes(property) ? required : [...required, property];
      if (copy["type"] === undefined) copy["type"] = "object";
      tagged.push(copy);
    }
    if (problem === null) {
      out["oneOf"] = tagged;
      return;
    }
    delete out["oneOf"];
    if (out["anyOf"] === undefined) out["anyOf"] = branches;
    else out["allOf"] = [...(Array.isArray(out["allOf"]) ? out["allOf"] : []), { anyOf: branches }];
    (out as Record<PropertyKey, unknown>)[LOOSENED] = {
      key: out["anyOf"] === branches ? "anyOf" : "allOf",
      text: `anyOf: the document's oneOf with discriminator ${JSON.stringify(property)} could not be kept exact (${problem}): a value matching several branches is accepted`,
    } satisfies LoosenedNote;
  }

  /** Keywords dropped because they do not apply to their schema's type, with counts. */
  get dropped(): ReadonlyMap<string, number> {
    return this.#dropped;
  }

  #convertRef(schema: Record<string, unknown>, path: SpecPath, refs: readonly string[], depth: number): JsonSchema {
    const refAt = [...path, "$ref"];
    const target = this.#resolver.resolve(schema["$ref"], refAt);
    const key = pointerOf(target.path);
    if (refs.includes(key)) {
      const cycle = [...refs.slice(refs.indexOf(key)), key];
      const through = cycle.length > 2 ? ` (through ${cycle.slice(1, -1).join(", ")})` : "";
      throw new ImportProblem(report("KV7006", refAt, (m) => m.cycle({ key, through })));
    }
    let resolved: JsonSchema;
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      this.#count(cached.nodes, path);
      this.#chargeValueBytes(cached.valueBytes, path);
      resolved = cached.schema;
    } else {
      const before = this.#nodes;
      const bytesBefore = this.#valueBytes;
      resolved = this.#convert(target.value, target.path, [...refs, key], depth);
      this.#cache.set(key, {
        schema: resolved,
        nodes: this.#nodes - before,
        valueBytes: this.#valueBytes - bytesBefore,
      });
    }
    // OpenAPI 3.0 ignores a $ref's siblings; 3.1 (2020-12) applies them next to the referenced schema. A 3.0
    // document's `title` or `description` beside a `$ref` is still what its author wrote for this place (GitHub's
    // and Spotify's documents do it throughout), and validates nothing: those are kept, as 3.1 would.
    const siblings = Object.keys(schema).filter(
      (k) => k !== "$ref" && (this.#version === "3.1" || k === "title" || k === "description"),
    );
    if (siblings.length === 0) return resolved;
    const rest: Record<string, unknown> = {};
    for (const k of siblings) put(rest, k, schema[k]);
    const extra = this.#convert(rest, path, refs, depth);
    if (typeof extra === "boolean" || Object.keys(extra).length === 0) return resolved;
    const onlyAnnotations = Object.keys(rest).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-"));
    if (onlyAnnotations && typeof resolved !== "boolean") return { ...resolved, ...extra };
    const merged: Record<string, unknown> = {
      ...extra,
      allOf: [resolved, ...(Array.isArray(extra["allOf"]) ? extra["allOf"] : [])],
    };
    // The allOf already requires the referenced type; stating it here too keeps keywords such as maxLength
    // next to their type, which Ajv's strict mode wants.
    if (merged["type"] === undefined && typeof resolved !== "boolean" && resolved["type"] !== undefined)
      merged["type"] = resolved["type"];
    return merged;
  }

  #annotation(
    schema: Record<string, unknown>,
    path: SpecPath,
    out: Record<string, unknown>,
    key: "title" | "description",
    mode: "line" | "multiline",
  ): void {
    const value = schema[key];
    if (typeof value !== "string") return;
    const clean = cleanText(value, mode);
    if (clean.removed > 0) this.#notes.push(removedCharacters([...path, key], key, clean.removed, firstHidden(value)));
    if (clean.text === "") return;
    out[key] = key === "description" ? shorten(clean.text, MAX_SCHEMA_DESCRIPTION).text : clean.text;
  }
}

/** The keywords that constrain only values of one type. */
const TYPE_KEYWORDS: readonly (readonly [string, readonly string[]])[] = [
  ["string", ["minLength", "maxLength", "pattern"]],
  ["number", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]],
  [
    "array",
    [
      "items",
      "prefixItems",
      "minItems",
      "maxItems",
      "uniqueItems",
      "contains",
      "minContains",
      "maxContains",
      "unevaluatedItems",
    ],
  ],
  [
    "object",
    [
      "properties",
      "required",
      "additionalProperties",
      "patternProperties",
      "minProperties",
      "maxProperties",
      "dependentRequired",
      "dependentSchemas",
      "propertyNames",
      "unevaluatedProperties",
    ],
  ],
];

/** A discriminator mapping's target or a branch's `$ref`, as a pointer: a bare name means a component schema. */
function schemaPointer(target: string): string {
  return target.startsWith("#") || target.includes("/") ? target : `#/components/schemas/${target}`;
}

function decodePointerToken(token: string): string {
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    // A malformed escape is read as written.
  }
  return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Whether a converted schema may hold an object (no type, or a type list with "object"). */
function admitsObject(schema: Record<string, unknown>): boolean {
  const type = schema["type"];
  return type === undefined || type === "object" || (Array.isArray(type) && type.includes("object"));
}

/**
 * The values a converted branch itself allows for its discriminator property (a `const`, or an `enum` of
 * strings), looked for in its `properties` and in those of its `allOf` parts (Spotify's episode is an `allOf` of a
 * base that declares `type: episode`); null when it has none.
 */
function tagValues(schema: JsonSchema, property: string, depth: number): unknown[] | null {
  if (typeof schema === "boolean" || depth > 4) return null;
  const properties = schema["properties"];
  const declared = isPlainObject(properties) && isPlainObject(properties[property]) ? properties[property] : undefined;
  if (declared !== undefined) {
    if (Object.hasOwn(declared, "const")) return [declared["const"]];
    if (Array.isArray(declared["enum"]) && declared["enum"].length > 0)
      return declared["enum"].filter((v) => v !== null);
  }
  const parts = schema["allOf"];
  if (Array.isArray(parts)) {
    for (const part of parts) {
      const found = tagValues(part as JsonSchema, property, depth + 1);
      if (found !== null) return found;
    }
  }
  return null;
}

function hasCombinator(schema: Record<string, unknown>): boolean {
  return schema["allOf"] !== undefined || schema["anyOf"] !== undefined || schema["oneOf"] !== undefined;
}

/** Why a pattern cannot be kept: Ajv compiles patterns as Unicode regular expressions, and the spec caps their length. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > SCHEMA_LIMITS.maxPatternLength)
    return `it is longer than ${SCHEMA_LIMITS.maxPatternLength} characters`;
  try {
    new RegExp(pattern, "u");
    return null;
  } catch (error) {
    return `it is not a valid regular expression in Unicode mode (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The first character `cleanText` would remove, as a code point. */
export function firstHidden(text: string): number {
  for (const ch of text) {
    if (cleanText(ch, "multiline").removed > 0) return ch.codePointAt(0)!;
  }
  return 0;
}
