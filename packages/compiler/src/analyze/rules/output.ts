/**
 * The output: a `select` that parses and reads only data (select.ts, select-static.ts), an output schema Ajv
 * compiles (input-schema.ts's pass), a `select` whose result can fit that schema (select-result.ts), the
 * error-detail extension's expression, and the binary-output extension, which cannot promise a schema: a binary
 * answer has no structured content, and clients refuse a result without the structured content it declares
 * (KV8020).
 */
import type { JsonObject } from "@kervanc/runtime";
import { report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import type { AnalyzedSchema } from "../analyzed.ts";
import type { Rule, ToolContext } from "./context.ts";
import { analyzeSchema, SCHEMA_CODES } from "./input-schema.ts";
import { checkSelect } from "./select.ts";
import { checkSelectResult } from "./select-result.ts";

/** The largest binary answer returned by default (docs/extensions/binary-output.md): 5 MiB. */
const DEFAULT_BINARY_MAX_BYTES = 5_242_880;

/** How much of an error answer's detail is shown by default (docs/extensions/error-detail.md). */
const DEFAULT_ERROR_DETAIL_CHARS = 600;

export const outputRule: Rule<ToolContext> = {
  name: "output",
  codes: [
    // select.ts, select-static.ts, select-result.ts
    "KV6001",
    "KV6002",
    "KV6003",
    "KV6004",
    "KV6005",
    "KV6006",
    "KV6007",
    "KV6008",
    "KV6009",
    "KV6010",
    ...SCHEMA_CODES,
    "KV8020",
  ],
  check(ctx) {
    const { out } = ctx.spec;
    const output = ctx.tool.output;
    const outAt: SpecPath = [...ctx.at, "output"];
    if ("raw" in output) ctx.output = { kind: "raw" };
    else if (!("select" in output)) ctx.output = { kind: "binary" };
    else {
      const select = checkSelect(output.select, [...outAt, "select"], out);
      let schema: AnalyzedSchema | null = null;
      let schemaOk = true;
      if (output.schema !== undefined) {
        schema = analyzeSchema(output.schema as JsonObject, [...outAt, "schema"], out, ctx.spec.patterns);
        schemaOk = schema !== null;
      }
      if (select.ok && schema !== null) checkSelectResult(select.ast, schema.schema, [...outAt, "select"], out);
      if (select.ok && schemaOk) ctx.output = { kind: "select", expression: output.select, ast: select.ast, schema };
    }
    if (output.error !== undefined) {
      const detail = checkSelect(output.error.select, [...outAt, "error", "select"], out);
      if (detail.ok)
        ctx.errorDetail = {
          expression: output.error.select,
          ast: detail.ast,
          maxChars: output.error.maxChars ?? DEFAULT_ERROR_DETAIL_CHARS,
        };
    }
    if (output.binary !== undefined) {
      ctx.binary = { maxBytes: output.binary.maxBytes ?? DEFAULT_BINARY_MAX_BYTES };
      if ("schema" in output && output.schema !== undefined)
        out.push(report("KV8020", [...outAt, "binary"], (m) => m.withSchema, { atKey: true }));
    }
  },
};
