/**
 * `select`'s result against the output schema's root `type`: an expression that always builds an array cannot
 * satisfy an object schema, and every call would fail with "data must be object". Only the root type is compared;
 * deeper checks would need the upstream's shape, which the spec does not declare.
 */
import type { JsonObject, SelectNode } from "@kervanc/runtime";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { describeTypes, inferType, type JsonType, UNKNOWN } from "../select-types.ts";

const SCHEMA_TYPES: Readonly<Record<string, JsonType>> = {
  object: "object",
  array: "array",
  string: "string",
  number: "number",
  integer: "number",
  boolean: "boolean",
  null: "null",
};

export function checkSelectResult(ast: SelectNode, schema: JsonObject, at: SpecPath, out: Finding[]): void {
  const declared = schema["type"];
  const names =
    typeof declared === "string"
      ? [declared]
      : Array.isArray(declared)
        ? declared.filter((t): t is string => typeof t === "string")
        : [];
  const allowed = new Set(names.flatMap((n) => (SCHEMA_TYPES[n] ? [SCHEMA_TYPES[n]] : [])));
  if (allowed.size === 0) return;
  const result = inferType(ast);
  if (result.size === UNKNOWN.size) return;
  const shown = typeof declared === "string" ? `type ${JSON.stringify(declared)}` : `type ${JSON.stringify(declared)}`;
  const fitting = [...result].filter((t) => allowed.has(t));
  if (fitting.length === 0) {
    const what = { returns: describeTypes(result), schemaType: shown, first: names[0]! };
    out.push(report("KV6008", at, (m) => (allowed.has("object") ? m.neverFitsObject(what) : m.neverFits(what))));
    return;
  }
  if (fitting.length < result.size) {
    const others = new Set([...result].filter((t) => !allowed.has(t)));
    out.push(
      report("KV6009", at, (m) =>
        m.sometimesFits({ returns: describeTypes(result), schemaType: shown, others: describeTypes(others) }),
      ),
    );
  }
}
