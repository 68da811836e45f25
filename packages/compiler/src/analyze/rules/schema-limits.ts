/**
 * The spec format's limits on JSON Schemas (`input` and `output.schema`), as Kervan applies them.
 *
 * Limits keep a hostile or careless schema from costing much to compile or to validate against, and keep
 * validation self-contained: only same-document `$ref`s, no `$id`, no dynamic references, one dialect.
 * Keyword rules are matched on the key name at any depth, as Kervan matches them (so a property *named* `$id`
 * is refused too); the Ajv pass that follows is the keyword-aware one.
 */
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { visibleTextProblem } from "../visible-text.ts";

export const SCHEMA_LIMITS = {
  maxBytes: 65_536,
  maxDepth: 32,
  maxNodes: 2000,
  maxCombinators: 64,
  maxPatternLength: 512,
  /** The walk stops collecting problems after this many. */
  maxProblems: 10,
} as const;

export const DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
const REFUSED_KEYWORDS = new Set(["$id", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"]);
const COMBINATORS = new Set(["anyOf", "oneOf", "allOf"]);

/** `#/properties/a~1b` style pointer text for a path inside a schema. */
export function pointer(path: readonly (string | number)[]): string {
  return "#" + path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export function checkSchemaLimits(schema: unknown, at: SpecPath): Finding[] {
  const out: Finding[] = [];
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return [report("KV5002", at, (m) => m.notPlain)];
  }
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > SCHEMA_LIMITS.maxBytes)
    out.push(report("KV5001", at, (m) => m.tooLarge({ max: SCHEMA_LIMITS.maxBytes, size: bytes })));

  let nodes = 0;
  let combinators = 0;
  let problems = 0;
  let tooMany = false;
  const add = (f: Finding): void => {
    if (problems <= SCHEMA_LIMITS.maxProblems) out.push(f);
    problems++;
  };
  // Iterative walk: a schema from YAML can be nested far deeper than the call stack allows.
  const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [{ value: schema, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    // Array elements add a level, but only objects are nodes: an `enum` list under an object at depth 32 is fine.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i], depth: depth + 1 });
      continue;
    }
    if (depth > SCHEMA_LIMITS.maxDepth) {
      add(report("KV5003", [...at, ...path], (m) => m.tooDeep({ max: SCHEMA_LIMITS.maxDepth, at: pointer(path) })));
      continue;
    }
    nodes++;
    if (nodes === SCHEMA_LIMITS.maxNodes + 1 && !tooMany) {
      tooMany = true;
      add(report("KV5004", at, (m) => m.tooManyNodes({ max: SCHEMA_LIMITS.maxNodes })));
    }
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [key, child] of entries) {
      const childPath = [...path, key];
      const where = [...at, ...childPath];
      if (COMBINATORS.has(key)) combinators++;
      if (key === "$ref" && (typeof child !== "string" || !child.startsWith("#"))) {
        add(report("KV5006", where, (m) => m.remoteRef({ at: pointer(childPath) })));
      }
      if (REFUSED_KEYWORDS.has(key)) add(report("KV5007", where, (m) => m.refused({ key, at: pointer(childPath) })));
      if (key === "$schema" && child !== DIALECT_2020_12) {
        add(report("KV5008", where, (m) => m.dialect({ dialect: DIALECT_2020_12, at: pointer(childPath) })));
      }
      if (key === "pattern" && typeof child === "string" && child.length > SCHEMA_LIMITS.maxPatternLength) {
        add(
          report("KV5009", where, (m) =>
            m.longPattern({ max: SCHEMA_LIMITS.maxPatternLength, at: pointer(childPath) }),
          ),
        );
      }
      if (key === "patternProperties" && child !== null && typeof child === "object" && !Array.isArray(child)) {
        for (const name of Object.keys(child)) {
          if (name.length > SCHEMA_LIMITS.maxPatternLength) {
            add(
              report("KV5009", [...where, name], (m) =>
                m.longPattern({ max: SCHEMA_LIMITS.maxPatternLength, at: pointer([...childPath, name]) }),
              ),
            );
          }
        }
      }
      // Names and values the model reads as they are, which the README and the generated code show escaped:
      // a warning, not an error like a title's (an upstream API can really expect such a value).
      if (key === "properties" && child !== null && typeof child === "object" && !Array.isArray(child)) {
        for (const name of Object.keys(child)) {
          const problem = visibleTextProblem(name, "line");
          if (problem) {
            const at = pointer([...childPath, name]);
            add(report("KV5018", [...where, name], (m) => m.propertyName({ code: problem.code, at }), { atKey: true }));
          }
        }
      }
      if ((key === "enum" && Array.isArray(child)) || key === "const") {
        const values = Array.isArray(child) && key === "enum" ? child : [child];
        values.forEach((value, i) => {
          const problem = typeof value === "string" ? visibleTextProblem(value, "line") : null;
          if (problem) {
            const valuePath = key === "enum" ? [...childPath, i] : childPath;
            add(
              report(
                "KV5018",
                [...at, ...valuePath],
                (m) =>
                  key === "enum"
                    ? m.enumValue({ code: problem.code, at: pointer(valuePath) })
                    : m.constValue({ code: problem.code, at: pointer(valuePath) }),
                { offset: problem.offset },
              ),
            );
          }
        });
      }
      if ((key === "title" || key === "description") && typeof child === "string") {
        const problem = visibleTextProblem(child, key === "description" ? "multiline" : "line");
        if (problem) {
          add(
            report(
              "KV2010",
              where,
              (m) => m.hiddenInSchema({ keyword: key, code: problem.code, at: pointer(childPath) }),
              { offset: problem.offset },
            ),
          );
        }
      }
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      stack.push({ value: child, path: [...path, key], depth: depth + 1 });
    }
  }
  if (combinators > SCHEMA_LIMITS.maxCombinators) {
    out.push(
      report("KV5005", at, (m) => m.tooManyCombinators({ max: SCHEMA_LIMITS.maxCombinators, count: combinators })),
    );
  }
  return out;
}
