/**
 * The Ajv pass over a schema: meta-validation, strict-mode findings at the schema node's position, and the
 * compiled validator that the emit stage turns into standalone code.
 *
 * Each schema gets a fresh Ajv instance, so generated names never depend on what was compiled before.
 * Decisions (documented in docs/diagnostics.md):
 * - unknown keywords are errors (KV5011): in a validation schema they are almost always typos, and a typo
 *   silently validates nothing (`minimun: 1`);
 * - unknown formats are errors (KV5012): the server would otherwise accept anything for that field;
 * - Ajv's other strict-mode findings (`required` naming an undeclared property, `minLength` without
 *   `type: string`, incomplete tuples, ...) are warnings (KV5013): the schema works, but probably not as meant;
 * - a schema that is not valid 2020-12 (KV5014) or that Ajv cannot compile (KV5015) is an error.
 */
import { Ajv2020, type AnySchema, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { _ } from "ajv";
import { type Finding, finding, type SpecPath } from "../diagnostics/diagnostic.ts";
import { pointer } from "./schema-limits.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Keys whose value is one subschema. */
const SCHEMA_VALUED = new Set(["not", "if", "then", "else", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "items"]);
/** Keys whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keys whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

export interface CompiledSchema {
  readonly ajv: Ajv2020;
  readonly validate: ValidateFunction;
}

export type SchemaResult = { readonly findings: Finding[]; readonly compiled: CompiledSchema | null };

/** The Ajv instance a schema is compiled with: 2020-12, all errors, formats, standalone ESM code. */
export function newAjv(warn: (message: string) => void = () => {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: "log",
    strictTuples: "log",
    strictRequired: "log",
    logger: { log() {}, warn: (m: unknown) => warn(String(m)), error() {} },
    code: { source: true, esm: true, lines: true, formats: _`__kervanc_ajv.formats` },
  });
  addFormats(ajv);
  return ajv;
}

export function checkAndCompileSchema(schema: Record<string, unknown>, at: SpecPath): SchemaResult {
  const findings: Finding[] = [];
  const warnings: string[] = [];
  // Strict-mode warnings become findings instead of console output.
  const ajv = newAjv((m) => warnings.push(m));

  if (!ajv.validateSchema(schema as AnySchema)) {
    const seen = new Set<string>();
    for (const error of ajv.errors ?? []) {
      if (seen.has(error.instancePath)) continue;
      seen.add(error.instancePath);
      const segments = error.instancePath.split("/").slice(1).map(unescapePointer);
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
      const detail = allowed ? ` (${allowed.map((v) => JSON.stringify(v)).join(", ")})` : "";
      findings.push(finding("KV5014", [...at, ...segments], `The schema is not valid JSON Schema 2020-12: ${pointer(segments)} ${error.message ?? "is invalid"}${detail}.`));
    }
    return { findings, compiled: null };
  }

  // Keyword-aware walk: unknown keywords and formats, and $refs that point at nothing.
  walkSchema(schema, [], (node, path) => {
    for (const [key, value] of Object.entries(node)) {
      if (ajv.RULES.keywords[key] === undefined) {
        findings.push(finding("KV5011", [...at, ...path, key], `Unknown JSON Schema keyword "${key}" (at ${pointer([...path, key])}).${keywordHint(key)}`));
        ajv.addKeyword(key);
      }
      if (key === "format" && typeof value === "string" && ajv.formats[value] === undefined) {
        findings.push(finding("KV5012", [...at, ...path, key], `Unknown format "${value}" (at ${pointer([...path, key])}). Known formats: ${Object.keys(ajv.formats).sort().join(", ")}.`));
        ajv.addFormat(value, true);
      }
      if (key === "$ref" && typeof value === "string" && value.startsWith("#") && !resolvesLocally(schema, value)) {
        findings.push(finding("KV5015", [...at, ...path, key], `$ref ${JSON.stringify(value)} points at nothing in this schema (at ${pointer([...path, key])}).`));
      }
    }
  });
  if (findings.length > 0) return { findings, compiled: null };

  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as AnySchema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { findings: [finding("KV5015", at, `The schema cannot be compiled: ${message}`)], compiled: null };
  }
  for (const warning of warnings) {
    const match = /at "(#[^"]*)"/.exec(warning);
    const segments = match ? match[1]!.slice(1).split("/").slice(1).map(unescapePointer) : [];
    const text = warning.replace(/^strict mode: /, "").replace(/ at "#[^"]*"/, "").replace(/ \((strict\w+)\)$/, "");
    findings.push(finding("KV5013", [...at, ...segments], `${capitalize(text)} (at ${pointer(segments)}).`));
  }
  return { findings, compiled: { ajv, validate } };
}

function walkSchema(root: unknown, path: (string | number)[], visit: (node: Record<string, unknown>, path: (string | number)[]) => void): void {
  const stack: { node: unknown; path: (string | number)[] }[] = [{ node: root, path }];
  while (stack.length > 0) {
    const { node, path: p } = stack.pop()!;
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const record = node as Record<string, unknown>;
    visit(record, p);
    for (const [key, value] of Object.entries(record)) {
      if (SCHEMA_VALUED.has(key)) stack.push({ node: value, path: [...p, key] });
      else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) value.forEach((v, i) => stack.push({ node: v, path: [...p, key, i] }));
      else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [name, v] of Object.entries(value)) stack.push({ node: v, path: [...p, key, name] });
      }
    }
  }
}

function resolvesLocally(root: unknown, ref: string): boolean {
  if (ref === "#") return true;
  if (!ref.startsWith("#/")) return false;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let segment: string;
    try {
      segment = unescapePointer(decodeURIComponent(raw));
    } catch {
      return false;
    }
    if (node === null || typeof node !== "object") return false;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(segment) || Number(segment) >= node.length) return false;
      node = node[Number(segment)];
    } else {
      if (!Object.hasOwn(node, segment)) return false;
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return true;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

const COMMON_KEYWORDS = ["minimum", "maximum", "minLength", "maxLength", "pattern", "required", "properties", "additionalProperties", "items", "enum", "const", "format", "description", "default", "examples", "minItems", "maxItems", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems", "type"];

function keywordHint(key: string): string {
  const lower = key.toLowerCase();
  const close = COMMON_KEYWORDS.find((k) => k.toLowerCase() === lower || (Math.abs(k.length - key.length) <= 1 && [...k.toLowerCase()].filter((c, i) => c !== lower[i]).length <= 1));
  return close ? ` Did you mean "${close}"?` : "";
}

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}
