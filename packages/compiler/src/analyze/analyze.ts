/**
 * Stage 2, analyze: a loaded spec against every rule of the spec format (named apart from `kervanc check`,
 * which compares a committed package with a fresh build).
 *
 * Structure first (strict keys, types, limits, visible text). If the structure is wrong, the semantic checks
 * do not run: they would only report noise. Otherwise every tool is checked for templates and references, URL
 * rules, headers, body, secrets and bindings, schema limits, the Ajv pass over both schemas, and `select`.
 * All findings are collected; the result carries the parsed pieces (templates, compiled schemas, ASTs) so no
 * later stage parses anything again.
 */
import type { JsonObject } from "@kervanc/runtime";
import { type Finding, report, severityOf } from "../diagnostics/diagnostic.ts";
import { type AnalyzeResult, type AnalyzedTool, DEFAULT_INPUT_SCHEMA } from "./analyzed.ts";
import { PatternBudget } from "./regex-backtracking.ts";
import type { SpecContext, ToolContext } from "./rules/context.ts";
import { FINAL_RULES, SPEC_RULES, TOOL_RULES } from "./rules/index.ts";
import { toolSettings } from "./settings.ts";
import { specShape, type SpecFile, type ToolSpec } from "./spec-format.ts";
import { checkShape, type ShapeContext } from "./structure.ts";

export * from "./analyzed.ts";

export type AnalyzeOptions = ShapeContext & {
  /** Development relaxation (`kervanc call`, `dev`, `test`; never `build`): plain http to loopback hosts, secrets included. */
  readonly devLoopbackHttp?: boolean;
};

export function analyzeSpec(value: unknown, options: AnalyzeOptions = {}): AnalyzeResult {
  const out: Finding[] = [];
  checkShape(value, specShape, [], out, options);
  const errors = out.filter((f) => severityOf(f) === "error");
  if (errors.length > 0) {
    // When every problem names its fix (a misspelled key), the note would only be a second finding for one mistake.
    if (errors.every((f) => f.fix !== undefined)) return { findings: out, analyzed: null };
    out.push(report("KV2012", [], (m) => m.structureFirst));
    return { findings: out, analyzed: null };
  }
  const ctx: SpecContext = {
    spec: value as SpecFile,
    out,
    devLoopbackHttp: options.devLoopbackHttp === true,
    // Each spec (and each rebuild of one in kervanc dev) gets its own time for the backtracking analysis (KV5019).
    // Deferred: the analyses run after every tool's other checks (PatternBudget explains why).
    patterns: new PatternBudget({ deferred: true }),
    secrets: { declarations: [], paths: new Map(), bindings: new Map() },
    credentials: { plans: new Map(), paths: new Map(), extension: false },
    used: { secrets: new Set(), credentials: new Set() },
    tools: [],
  };
  for (const rule of SPEC_RULES) rule.check(ctx);
  ctx.spec.tools.forEach((tool, index) => {
    const analyzed = analyzeTool(ctx, tool, index);
    if (analyzed !== null) ctx.tools.push(analyzed);
  });
  out.push(...ctx.patterns.settle());
  for (const rule of FINAL_RULES) rule.check(ctx);
  if (out.some((f) => severityOf(f) === "error")) return { findings: out, analyzed: null };
  const { spec, secrets, credentials, tools } = ctx;
  return {
    findings: out,
    analyzed: {
      spec,
      secrets: secrets.declarations,
      secretPaths: secrets.paths,
      credentials: [...credentials.plans.values()],
      tools,
    },
  };
}

/** One tool through the tool rules; what it sends counts as used even when it fails. Null when it failed. */
function analyzeTool(spec: SpecContext, tool: ToolSpec, index: number): AnalyzedTool | null {
  const before = spec.out.length;
  const ctx: ToolContext = {
    spec,
    tool,
    index,
    at: ["tools", index],
    settings: toolSettings(tool, spec.spec),
    inputSchema: (tool.input ?? DEFAULT_INPUT_SCHEMA) as JsonObject,
    request: null,
    input: null,
    secrets: new Set(),
    credentials: new Set(),
    output: null,
  };
  for (const rule of TOOL_RULES) rule.check(ctx);
  const secrets = [...ctx.secrets].sort();
  const credentials = [...ctx.credentials].sort();
  for (const name of secrets) spec.used.secrets.add(name);
  for (const name of credentials) spec.used.credentials.add(name);
  const failed = spec.out.slice(before).some((f) => severityOf(f) === "error");
  const { request, input, output, errorDetail, binary, view } = ctx;
  if (failed || !request?.url || !input || !output) return null;
  return {
    index,
    spec: tool,
    request: { ...request, url: request.url },
    secrets,
    credentials,
    input,
    output,
    settings: ctx.settings,
    ...(errorDetail !== undefined ? { errorDetail } : {}),
    ...(binary !== undefined ? { binary } : {}),
    ...(view !== undefined && view !== null ? { view } : {}),
  };
}
