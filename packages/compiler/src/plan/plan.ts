/**
 * Stage 3, plan: a checked spec to the typed plan the runtime executes.
 *
 * Defaults are resolved here (tool value, then `defaults`, then the format's defaults), the published tool
 * listing is fixed, and each tool gets a file name for its module. The plan is plain data; the emit stage
 * writes it as JSON literals.
 */
import type { JsonObject, ServerPlan, ToolListing, ToolPlan } from "@kervanc/runtime";
import type { CheckedSpec, CheckedTool } from "../check/check.ts";
import type { CompiledSchema } from "../check/schemas.ts";
import type { SpecPath } from "../diagnostics/diagnostic.ts";
import { HTTP_DEFAULTS } from "../check/spec-format.ts";

export interface PlannedTool {
  readonly plan: ToolPlan;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | null;
  /** File-safe, unique (case-insensitively) base name for this tool's modules. */
  readonly moduleName: string;
}

export interface PlannedServer {
  readonly plan: ServerPlan;
  readonly tools: readonly PlannedTool[];
}

/**
 * `placeOf` names a spec path's place (`kervan.yaml:7:5 secrets[0]`); the plan carries it where the server reports
 * a spec problem it can only see at start (a secret value too short to redact).
 */
export function planServer(checked: CheckedSpec, placeOf?: (path: SpecPath) => string): PlannedServer {
  const { spec } = checked;
  const taken = new Set<string>();
  const tools = checked.tools.map((tool) => {
    const moduleName = uniqueModuleName(tool.spec.name, taken);
    return { plan: planTool(tool, checked), input: tool.input.compiled, output: tool.output.kind === "select" ? (tool.output.schema?.compiled ?? null) : null, moduleName };
  });
  return {
    plan: {
      name: spec.name,
      version: spec.version,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      secrets: checked.secrets.map((s) => {
        const path = checked.secretPaths.get(s.name);
        return placeOf === undefined || path === undefined ? s : { ...s, at: placeOf(path) };
      }),
    },
    tools,
  };
}

function planTool(tool: CheckedTool, checked: CheckedSpec): ToolPlan {
  const { spec: t } = tool;
  const defaults = checked.spec.defaults;
  const http = t.http;
  const maxOutputChars = t.output.maxOutputChars ?? defaults?.http?.maxOutputChars ?? HTTP_DEFAULTS.maxOutputChars;
  const listing: ToolListing = {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: t.description,
    inputSchema: tool.input.schema,
    ...(tool.output.kind === "select" && tool.output.schema ? { outputSchema: tool.output.schema.schema as JsonObject } : {}),
    annotations: { openWorldHint: true, ...(t.annotations ?? {}) },
  };
  const url = tool.request.url;
  return {
    listing,
    request: {
      method: (http.method ?? "GET") as ToolPlan["request"]["method"],
      protocol: url.protocol,
      origin: url.origin,
      host: url.host,
      hostPort: url.hostPort,
      path: url.path,
      search: url.search,
      query: tool.request.query,
      headers: tool.request.headers,
      body: tool.request.body,
      // The kervanc form-body extension (check/extensions.ts); absent for a Kervan spec.
      ...(http.bodyEncoding === "form" ? { bodyEncoding: "form" as const } : {}),
    },
    output:
      tool.output.kind === "raw"
        ? { kind: "raw", maxOutputChars }
        : { kind: "select", expression: tool.output.expression, ast: tool.output.ast, structured: tool.output.schema !== null, maxOutputChars },
    limits: {
      timeoutMs: http.timeoutMs ?? defaults?.http?.timeoutMs ?? HTTP_DEFAULTS.timeoutMs,
      maxResponseBytes: http.maxResponseBytes ?? defaults?.http?.maxResponseBytes ?? HTTP_DEFAULTS.maxResponseBytes,
      allowInsecureHttp: http.allowInsecureHttp ?? defaults?.http?.allowInsecureHttp ?? HTTP_DEFAULTS.allowInsecureHttp,
      followRedirects: http.followRedirects ?? defaults?.http?.followRedirects ?? HTTP_DEFAULTS.followRedirects,
    },
    rateLimit: {
      perMinute: t.rateLimit?.perMinute ?? defaults?.rateLimit?.perMinute ?? HTTP_DEFAULTS.rateLimit.perMinute,
      concurrency: t.rateLimit?.concurrency ?? defaults?.rateLimit?.concurrency ?? HTTP_DEFAULTS.rateLimit.concurrency,
    },
    secrets: tool.secrets,
  };
}

/**
 * Tool names are `[A-Za-z0-9_.-]`, so they are nearly file names already; two names that differ only in case
 * would collide on case-insensitive file systems, and a leading dot would hide the file.
 */
function uniqueModuleName(name: string, taken: Set<string>): string {
  const base = name.replace(/^[.-]/, "_");
  let candidate = base;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${base}-${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}
