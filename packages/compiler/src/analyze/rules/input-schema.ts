/**
 * The input schema: an object at its root (KV5010), within the format's limits (schema-limits.ts), and one Ajv
 * compiles in strict mode (schemas.ts). `analyzeSchema` is the same pass for the output schema (output.ts).
 */
import type { JsonObject } from "@kervanc/runtime";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import type { AnalyzedSchema } from "../analyzed.ts";
import type { PatternBudget } from "../regex-backtracking.ts";
import type { Rule, ToolContext } from "./context.ts";
import { checkSchemaLimits } from "./schema-limits.ts";
import { checkAndCompileSchema } from "./schemas.ts";

/** What `analyzeSchema` reports: the limits (schema-limits.ts), Ajv's strict mode (schemas.ts), slow patterns. */
export const SCHEMA_CODES = [
  "KV2010",
  "KV2013",
  "KV5001",
  "KV5002",
  "KV5003",
  "KV5004",
  "KV5005",
  "KV5006",
  "KV5007",
  "KV5008",
  "KV5009",
  "KV5011",
  "KV5012",
  "KV5013",
  "KV5014",
  "KV5015",
  "KV5016",
  "KV5017",
  "KV5018",
  "KV5019",
] as const;

export const inputSchemaRule: Rule<ToolContext> = {
  name: "input-schema",
  codes: ["KV5010", ...SCHEMA_CODES],
  check(ctx) {
    const { out } = ctx.spec;
    const inputAt: SpecPath = ctx.tool.input !== undefined ? [...ctx.at, "input"] : ctx.at;
    const type = ctx.inputSchema["type"];
    const notObject = type !== "object";
    if (notObject)
      out.push(
        report("KV5010", [...inputAt, "type"], (m) =>
          Object.hasOwn(ctx.inputSchema, "type")
            ? m.inputTypeNotObject({ type: JSON.stringify(type) })
            : m.inputWithoutType,
        ),
      );
    const found: Finding[] = [];
    ctx.input = analyzeSchema(ctx.inputSchema, inputAt, found, ctx.spec.patterns);
    // Ajv's "missing type object" warnings at the root only repeat KV5010.
    out.push(...found.filter((f) => !(notObject && f.code === "KV5013" && f.path.length === inputAt.length)));
  },
};

/** A schema within the limits, then compiled by Ajv: the findings of both, and the schema when it passed. */
export function analyzeSchema(
  schema: JsonObject,
  at: SpecPath,
  out: Finding[],
  patterns: PatternBudget,
): AnalyzedSchema | null {
  const found = checkSchemaLimits(schema, at);
  out.push(...found);
  // Hidden characters in a name or value are a warning (KV5018): the schema is built as it is.
  const limits = found.filter((f) => f.code !== "KV5018");
  // Hidden characters in a title do not stop Ajv; a schema over a limit (or with a remote $ref) is not given to it.
  if (limits.some((f) => f.code !== "KV2010")) return null;
  const result = checkAndCompileSchema(schema, at, patterns);
  out.push(...result.findings);
  if (limits.length > 0) return null;
  return result.compiled ? { schema, compiled: result.compiled } : null;
}
