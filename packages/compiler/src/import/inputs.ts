/**
 * A tool's input schema as it is assembled: one property per parameter (and one for the body), named so
 * templates can reference them, and texts made fit for a spec.
 */
import type { SpecPath } from "../diagnostics/diagnostic.ts";
import type { ImportContext } from "./context.ts";
import { identifierFrom } from "./names.ts";
import { put } from "./refs.ts";
import type { Comment } from "./emit.ts";
import {
  firstHidden,
  type JsonSchema,
  LOOSENED,
  type LoosenedNote,
  MAX_SCHEMA_DESCRIPTION,
  type SchemaConverter,
} from "./schema.ts";
import { cleanText, removedCharacters, shorten } from "./text.ts";

/** What a parameter or body contributes to the input. */
export interface InputSource {
  readonly name: string;
  readonly required: boolean;
  readonly description: string | undefined;
  readonly schema: unknown;
  readonly schemaAt: SpecPath;
}

export class Inputs {
  readonly converter: SchemaConverter;
  readonly #ctx: ImportContext;
  readonly #properties: [string, JsonSchema][] = [];
  readonly #required: string[] = [];
  readonly #taken = new Set<string>();

  constructor(ctx: ImportContext, converter: SchemaConverter) {
    this.#ctx = ctx;
    this.converter = converter;
  }

  /** A property name not yet taken: the base, else with the location (`id_query`), else numbered. */
  name(base: string, location: string): string {
    let candidate = base;
    if (this.#taken.has(candidate)) candidate = location === "body" ? "request_body" : `${base}_${location}`;
    for (let n = 2; this.#taken.has(candidate); n++) candidate = `${base}_${location}_${n}`;
    this.#taken.add(candidate);
    return candidate;
  }

  /** Whether a property has this name already. */
  taken(name: string): boolean {
    return this.#taken.has(name);
  }

  /** Adds a property for a parameter; returns its name. */
  add(param: InputSource, location: string): string {
    const id = this.name(identifierFrom(param.name), location);
    let schema = param.schema === undefined ? { type: "string" } : this.converter.convert(param.schema, param.schemaAt);
    if (param.description !== undefined) schema = withDescription(schema, param.description);
    this.#properties.push([id, schema]);
    if (param.required) this.#required.push(id);
    return id;
  }

  /** Adds a property already converted. */
  addSchema(id: string, schema: JsonSchema, required: boolean): void {
    this.#properties.push([id, schema]);
    if (required) this.require(id);
  }

  require(id: string): void {
    if (!this.#required.includes(id)) this.#required.push(id);
  }

  /** A description made fit for a spec (invisible characters removed and reported, cut to length). */
  describe(text: unknown, path: SpecPath): string | undefined {
    if (typeof text !== "string") return undefined;
    const clean = cleanText(text, "multiline");
    if (clean.removed > 0) this.#ctx.report(removedCharacters(path, "description", clean.removed, firstHidden(text)));
    return clean.text === "" ? undefined : shorten(clean.text, MAX_SCHEMA_DESCRIPTION).text;
  }

  /**
   * Comments for the spec's reader at the schemas the conversion loosened (schema.ts, LOOSENED), with their paths
   * in the tool: `input.properties.<id>...`.
   */
  comments(): Comment[] {
    const found: Comment[] = [];
    const walk = (schema: unknown, path: (string | number)[], depth: number): void => {
      if (schema === null || typeof schema !== "object" || depth > 64) return;
      const note = (schema as Record<PropertyKey, unknown>)[LOOSENED] as LoosenedNote | undefined;
      if (note !== undefined) found.push({ path: [...path, note.key], text: note.text });
      const s = schema as Record<string, unknown>;
      for (const key of SUBSCHEMA_KEYS) if (Object.hasOwn(s, key)) walk(s[key], [...path, key], depth + 1);
      for (const key of SUBSCHEMA_LISTS)
        if (Array.isArray(s[key])) (s[key] as unknown[]).forEach((v, i) => walk(v, [...path, key, i], depth + 1));
      for (const key of SUBSCHEMA_MAPS) {
        const map = s[key];
        if (map !== null && typeof map === "object" && !Array.isArray(map))
          for (const [name, v] of Object.entries(map)) walk(v, [...path, key, name], depth + 1);
      }
    };
    for (const [id, schema] of this.#properties) walk(schema, ["input", "properties", id], 0);
    return found;
  }

  /** The input schema, as plain JSON. */
  schema(): Record<string, unknown> {
    const propertyMap: Record<string, unknown> = {};
    for (const [id, schema] of this.#properties) put(propertyMap, id, schema);
    const input: Record<string, unknown> = {
      type: "object",
      properties: propertyMap,
      ...(this.#required.length > 0 ? { required: this.#required } : {}),
      additionalProperties: false,
    };
    return JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
  }
}

/** The description of a parameter or body goes on its schema (a `$ref`'d schema's own description gives way). */
export function withDescription(schema: JsonSchema, description: string): JsonSchema {
  if (typeof schema === "boolean") return schema ? { description } : { description, not: {} };
  // First, where a reader of the spec looks for it.
  const { description: _replaced, ...rest } = schema;
  return { description, ...rest };
}

const SUBSCHEMA_KEYS = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas"];
