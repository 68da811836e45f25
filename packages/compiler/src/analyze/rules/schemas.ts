/**
 * The Ajv pass over a schema: meta-validation, strict-mode findings at the schema node's position, and the
 * compiled validator that the emit stage turns into standalone code.
 *
 * Each schema gets a fresh Ajv instance, so generated names never depend on what was compiled before.
 *
 * Kervan validates with Ajv in non-strict mode, so it accepts unknown keywords and formats and ignores them. kervanc
 * keeps accepting those specs, and reports what strict mode finds, with this split (also in docs/diagnostics.md):
 * - errors, because the schema would silently not check what its author meant:
 *   - KV5011: an unknown keyword that is a misspelling or wrong case of a validation keyword (`minimun`,
 *     `maxlength`, `require`), or `additionalItems`, which 2020-12 replaced with `items`;
 *   - KV5007: `$async`, which would make validation asynchronous (the server validates synchronously);
 *   - KV5014: the schema is not valid 2020-12 (`type: strin`, `minimum: "1"`);
 *   - KV5015: Ajv cannot compile it (an invalid regular expression, a `$ref` to nothing);
 *   - KV5017: `__proto__` in `properties` or `patternProperties`, a name Ajv skips, so nothing would check it;
 * - warnings, because the schema works but something in it is ignored or probably not as meant:
 *   - KV5016: any other unknown keyword (`example`, `x-order`): an annotation, published but not checked;
 *   - KV5012: an unknown `format`: not checked, every string passes (2020-12 treats formats as annotations);
 *   - KV5013: the rest of Ajv's strict mode: `required` naming a property `properties` does not declare,
 *     `minLength` without `type: string`, a tuple without `minItems`, `then` without `if`. (Not a property that
 *     also matches a `patternProperties` pattern: finding it runs the spec's regexes at build time; see newAjv.)
 *   - KV5019: a regular expression that backtracks super-linearly (slow-patterns.ts).
 */
import { Ajv2020, type AnySchema, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { _ } from "ajv";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { metaSchemaValidator } from "./meta-schema.ts";
import { pointer } from "./schema-limits.ts";
import { PatternBudget } from "../regex-backtracking.ts";
import { slowFormat, slowPattern } from "./slow-patterns.ts";
import { closest, isMisspelling } from "../suggest.ts";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Keys whose value is one subschema. */
const SCHEMA_VALUED = new Set([
  "not",
  "if",
  "then",
  "else",
  "contains",
  "additionalProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "items",
  "contentSchema",
]);
/** Keys whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keys whose value maps names to subschemas (`dependencies` values may also be lists of names). */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);

/** The keywords that constrain values: leaving one out by a typo makes the schema accept more than meant. */
const VALIDATION_KEYWORDS = [
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "properties",
  "patternProperties",
  "additionalProperties",
  "propertyNames",
  "items",
  "prefixItems",
  "contains",
  "unevaluatedItems",
  "unevaluatedProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "format",
  "$ref",
  "$defs",
];

/** Keywords Ajv handles while resolving references, not as validation keywords (so not in its keyword table). */
const RESOLVER_KEYWORDS = new Set(["$anchor"]);

/** Subschemas whose `required` usually names properties declared by the schema around them. */
const IN_CONTEXT = new Set(["anyOf", "oneOf", "allOf", "not", "if", "then", "else", "dependentSchemas"]);

/** Keywords of earlier drafts that 2020-12 ignores, with what to write instead. */
const REPLACED_KEYWORDS: Readonly<Record<string, string>> = {
  additionalItems: 'In 2020-12, "items" holds the schema for the items after "prefixItems".',
};

export interface CompiledSchema {
  readonly ajv: Ajv2020;
  readonly validate: ValidateFunction;
}

export type SchemaResult = { readonly findings: Finding[]; readonly compiled: CompiledSchema | null };

/**
 * The Ajv instance a schema is compiled with: 2020-12, all errors, formats, standalone ESM code. It does not
 * validate schemas against the meta-schema itself: compiling the meta-schema costs about 5 ms per instance, so
 * one validator (meta-schema.ts) does that for every schema, and a 200-tool spec stays well under a second.
 * Nor does it hold the meta-schemas (`meta: false`): adding them took about half of each instance's cost, and a
 * schema that reaches Ajv has only same-document `$ref`s (schema-limits.ts refuses the others), so nothing
 * compiled here can refer to them.
 */
export function newAjv(warn: (message: string) => void = () => {}): Ajv2020 {
  const ajv = new Ajv2020({
    meta: false,
    validateSchema: false,
    allErrors: true,
    strict: true,
    // Strict-mode findings are reported as warnings (KV5013) instead of stopping the compile.
    strictSchema: "log",
    strictTypes: "log",
    strictTuples: "log",
    strictRequired: "log",
    // `type: [string, number]` is valid JSON Schema, not a mistake.
    allowUnionTypes: true,
    // Strict mode would test every `patternProperties` pattern against every name in `properties` at build time:
    // spec regexes against spec strings in a backtracking engine, so `^(a+)+$` and a name of 30 `a`s and a `!`
    // would take minutes to build. That finding (a name that also matches a pattern, which is valid JSON Schema)
    // is not reported.
    allowMatchingProperties: true,
    // Properties are the object's own: without this, an argument object without `constructor` (or `toString`,
    // `hasOwnProperty`...) is checked against the member Object.prototype gives it, and `required: [constructor]`
    // is met by every object. The generated validators test `hasOwnProperty` and walk `Object.keys`.
    ownProperties: true,
    logger: { log() {}, warn: (m: unknown) => warn(String(m)), error() {} },
    code: { source: true, esm: true, lines: true, formats: _`__kervanc_ajv.formats` },
  });
  addFormats(ajv);
  return ajv;
}

export function checkAndCompileSchema(
  schema: Record<string, unknown>,
  at: SpecPath,
  budget: PatternBudget = new PatternBudget(),
): SchemaResult {
  const findings: Finding[] = [];
  const warnings: string[] = [];
  // Strict-mode warnings become findings instead of console output.
  const ajv = newAjv((m) => warnings.push(m));

  // Every schema that reaches Ajv is 2020-12 (KV5008 refuses any other `$schema`), so this is the meta-schema
  // Ajv's validateSchema would pick for it.
  const meta = metaSchemaValidator();
  let valid: boolean;
  try {
    valid = meta(schema);
  } catch (error) {
    return {
      findings: [
        report("KV5014", at, (m) => m.invalid({ reason: error instanceof Error ? error.message : String(error) })),
      ],
      compiled: null,
    };
  }
  if (!valid) {
    const seen = new Set<string>();
    for (const error of meta.errors ?? []) {
      if (seen.has(error.instancePath)) continue;
      seen.add(error.instancePath);
      const segments = pathOf(schema, error.instancePath.split("/").slice(1).map(unescapePointer));
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
      const detail = allowed ? ` (${allowed.map((v) => JSON.stringify(v)).join(", ")})` : "";
      findings.push(
        report("KV5014", [...at, ...segments], (m) =>
          m.invalidAt({ at: pointer(segments), reason: error.message ?? "is invalid", detail }),
        ),
      );
    }
    return { findings, compiled: null };
  }

  // Keyword-aware walk: unknown keywords and formats, $async, and $refs that point at nothing.
  const known = Object.keys(ajv.RULES.keywords);
  const formats = Object.keys(ajv.formats).sort();
  let fatal = false;
  let unresolvedRef = false;
  let badRegex = false;
  walkSchema(schema, [], (node, path) => {
    // What bounds the strings this node's pattern and format run on (validator-pattern-guard.ts), for KV5019.
    const maxLength = typeof node.maxLength === "number" ? node.maxLength : undefined;
    for (const [key, value] of Object.entries(node)) {
      const where = [...at, ...path, key];
      const ptr = pointer([...path, key]);
      if (ajv.RULES.keywords[key] === undefined && !RESOLVER_KEYWORDS.has(key)) {
        const misspelled = VALIDATION_KEYWORDS.find((k) => isMisspelling(key, k));
        const replaced = REPLACED_KEYWORDS[key];
        if (key === "<<") {
          findings.push(report("KV2013", where, (m) => m.mergeKeySchema({ at: ptr })));
          fatal = true;
        } else if (replaced !== undefined) {
          findings.push(report("KV5011", where, (m) => m.notKeyword({ key, at: ptr, replaced })));
          fatal = true;
        } else if (misspelled !== undefined) {
          findings.push(report("KV5011", where, (m) => m.misspelled({ key, at: ptr, meant: misspelled })));
          fatal = true;
        } else {
          const meant = closest(key, known);
          findings.push(
            report("KV5016", where, (m) =>
              meant !== undefined ? m.ignoredMeant({ key, at: ptr, meant }) : m.ignored({ key, at: ptr }),
            ),
          );
        }
        try {
          ajv.addKeyword(key);
        } catch {
          // Ajv refuses keyword names it cannot register (spaces, leading digits); in "log" strict mode it then
          // ignores them on its own, which is what we want.
        }
      }
      // Ajv drops "__proto__" from these maps (its allSchemaProperties), so the subschema would check nothing.
      if (
        (key === "properties" || key === "patternProperties") &&
        value !== null &&
        typeof value === "object" &&
        !Array.isArray(value) &&
        Object.hasOwn(value, "__proto__")
      ) {
        const at = pointer([...path, key, "__proto__"]);
        findings.push(
          report("KV5017", [...where, "__proto__"], (m) =>
            key === "properties" ? m.protoProperty({ at }) : m.protoPattern({ at }),
          ),
        );
        fatal = true;
      }
      if (key === "$async") {
        findings.push(report("KV5007", where, (m) => m.async({ at: ptr })));
        fatal = true;
      }
      if (key === "format" && typeof value === "string" && ajv.formats[value] === undefined) {
        const meant = closest(value, formats);
        const known = formats.join(", ");
        findings.push(
          report("KV5012", where, (m) =>
            meant !== undefined
              ? m.unknownFormatMeant({ format: value, at: ptr, meant, known })
              : m.unknownFormat({ format: value, at: ptr, known }),
          ),
        );
        ajv.addFormat(value, true);
      }
      // Ajv reports a bad regular expression without saying where it is; find it first.
      const patterns = key === "pattern" && typeof value === "string" ? [{ source: value, path: where, ptr }] : [];
      if (key === "patternProperties" && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const name of Object.keys(value))
          patterns.push({ source: name, path: [...where, name], ptr: pointer([...path, key, name]) });
      }
      for (const pattern of patterns) {
        const problem = regexProblem(pattern.source);
        if (problem !== null) {
          findings.push(
            report("KV5015", pattern.path, (m) =>
              m.badPattern({ pattern: JSON.stringify(pattern.source), at: pattern.ptr, problem }),
            ),
          );
          fatal = true;
          badRegex = true;
        } else {
          // A patternProperties key checks property names, which no maxLength bounds.
          const bound = key === "pattern" ? maxLength : null;
          budget.check(() => slowPattern(pattern.source, pattern.path, pattern.ptr, bound, budget), findings);
        }
      }
      if (key === "format" && typeof value === "string") {
        budget.check(() => slowFormat(ajv, value, where, ptr, maxLength, budget), findings);
      }
      if (
        key === "$ref" &&
        typeof value === "string" &&
        (value === "#" || value.startsWith("#/")) &&
        !resolvesLocally(schema, value)
      ) {
        findings.push(report("KV5015", where, (m) => m.danglingRef({ ref: JSON.stringify(value), at: ptr })));
        fatal = true;
        unresolvedRef = true;
      }
    }
  });

  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema as AnySchema);
  } catch (error) {
    const message = error instanceof Error ? firstLine(error.message) : String(error);
    // An unresolved $ref was already reported where it is written; Ajv's message would only repeat it.
    const repeated =
      (unresolvedRef && /resolve reference/.test(message)) || (badRegex && /regular expression/i.test(message));
    if (!repeated) findings.push(report("KV5015", at, (m) => m.cannotCompile({ reason: message })));
    return { findings, compiled: null };
  }
  for (const warning of warnings) {
    // Unknown keywords were reported above, with a position and a suggestion.
    if (/unknown keyword/.test(warning)) continue;
    const match = /at (?:path )?"(#[^"]*)"/.exec(warning);
    let segments: (string | number)[] = match
      ? pathOf(schema, match[1]!.slice(1).split("/").slice(1).map(unescapePointer))
      : [];
    // `required` inside anyOf/oneOf/allOf/not/if/then/else names properties the enclosing schema declares, a
    // common and correct pattern that Ajv's strictRequired cannot see; only report it where it is a mistake.
    if (/strictRequired/.test(warning) && segments.some((s) => typeof s === "string" && IN_CONTEXT.has(s))) continue;
    if (!match) {
      // Some messages name the keyword but not where it is: point at the first node that has it.
      const keyword = /^strict mode: "([^"]+)"/.exec(warning)?.[1];
      if (keyword !== undefined) segments = firstNodeWith(schema, keyword) ?? [];
    }
    const text = warning
      .replace(/^strict mode: /, "")
      .replace(/ at (?:path )?"#[^"]*"/, "")
      .replace(/ \((strict\w+)\)$/, "");
    findings.push(
      report("KV5013", [...at, ...segments], (m) => m.strict({ text: capitalize(text), at: pointer(segments) })),
    );
  }
  return { findings, compiled: fatal ? null : { ajv, validate } };
}

/** Why a pattern is not a regular expression as Ajv compiles it (Unicode mode), or null. */
function regexProblem(source: string): string | null {
  try {
    new RegExp(source, "u");
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^Invalid regular expression: \/.*\/u?: /s, "");
  }
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

function walkSchema(
  root: unknown,
  path: (string | number)[],
  visit: (node: Record<string, unknown>, path: (string | number)[]) => void,
): void {
  const stack: { node: unknown; path: (string | number)[] }[] = [{ node: root, path }];
  while (stack.length > 0) {
    const { node, path: p } = stack.pop()!;
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const record = node as Record<string, unknown>;
    visit(record, p);
    // Pushed in reverse so that nodes are visited (and findings listed) in document order.
    const children: { node: unknown; path: (string | number)[] }[] = [];
    for (const [key, value] of Object.entries(record)) {
      if (SCHEMA_VALUED.has(key)) children.push({ node: value, path: [...p, key] });
      else if (SCHEMA_LISTS.has(key) && Array.isArray(value))
        value.forEach((v, i) => children.push({ node: v, path: [...p, key, i] }));
      else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [name, v] of Object.entries(value)) children.push({ node: v, path: [...p, key, name] });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

function firstNodeWith(root: unknown, keyword: string): (string | number)[] | undefined {
  let found: (string | number)[] | undefined;
  walkSchema(root, [], (node, path) => {
    if (found === undefined && Object.hasOwn(node, keyword)) found = [...path, keyword];
  });
  return found;
}

function resolvesLocally(root: unknown, ref: string): boolean {
  if (ref === "#") return true;
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

/** JSON Pointer segments as a spec path: indexes into arrays become numbers, as the rest of the path has them. */
function pathOf(root: unknown, segments: readonly string[]): (string | number)[] {
  const out: (string | number)[] = [];
  let node: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(segment)) {
      out.push(Number(segment));
      node = node[Number(segment)];
    } else {
      out.push(segment);
      node =
        node !== null && typeof node === "object" && Object.hasOwn(node, segment)
          ? (node as Record<string, unknown>)[segment]
          : undefined;
    }
  }
  return out;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}
