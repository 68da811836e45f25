/**
 * Stage 3, plan: an analyzed spec to the typed plan the runtime executes.
 *
 * Defaults were resolved once by the analyze stage (analyze/settings.ts). Here the published tool listing is
 * fixed, and each tool gets a file name for its module. The plan is plain data; the emit stage writes it as
 * JSON literals.
 */
import type { JsonObject, OutputPlan, ServerPlan, ToolListing, ToolPlan } from "@kervanc/runtime";
import { DEFAULT_MAX_UPLOAD_BYTES } from "@kervanc/runtime/multipart";
import type { AnalyzedOutput, AnalyzedSchema, AnalyzedSpec, AnalyzedTool } from "../analyze/analyze.ts";
import type { CompiledSchema } from "../analyze/rules/schemas.ts";
import type { SpecPath } from "../diagnostics/diagnostic.ts";
import { profileListing, type ProfileRewrite, SCHEMA_PROFILES, type SchemaProfile } from "./schema-profiles.ts";
import { viewModel, type ViewModel } from "./view-model.ts";

export interface PlannedTool {
  readonly plan: ToolPlan;
  readonly input: CompiledSchema;
  readonly output: CompiledSchema | null;
  /** File-safe, unique (case-insensitively) base name for this tool's modules. */
  readonly moduleName: string;
  /** The listing rewritten for each schema profile that needed a rewrite (schema-profiles.ts), with what changed. */
  readonly profiles: Readonly<Partial<Record<SchemaProfile, ProfileRewrite>>>;
}

export interface PlannedServer {
  readonly plan: ServerPlan;
  readonly tools: readonly PlannedTool[];
  /** The kervanc views extension: one per tool with a view, in spec order; empty without. */
  readonly views: readonly PlannedView[];
}

/** A tool's view (kervanc extension views): its MCP Apps resource and what its page draws. */
export interface PlannedView {
  /** The tool's index in `tools`. */
  readonly tool: number;
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly model: ViewModel;
}

/** `ui://<server>/<tool>`: both names percent-encoded, so any server name makes one URI. */
export function viewUri(server: string, tool: string): string {
  return `ui://${encodeURIComponent(server)}/${encodeURIComponent(tool)}`;
}

/**
 * `placeOf` names a spec path's place (`kervan.yaml:7:5 secrets[0]`); the plan carries it where the server reports
 * a spec problem it can only see at start (a secret value too short to redact).
 */
export function planServer(analyzed: AnalyzedSpec, placeOf?: (path: SpecPath) => string): PlannedServer {
  const { spec } = analyzed;
  const taken = new Set<string>();
  const views: PlannedView[] = [];
  const tools = analyzed.tools.map((tool, index) => {
    const moduleName = uniqueModuleName(tool.spec.name, taken);
    const view = plannedView(tool, index, spec.name);
    if (view !== null) views.push(view);
    const plan = planTool(tool, view?.uri);
    const profiles: Partial<Record<SchemaProfile, ProfileRewrite>> = {};
    for (const profile of SCHEMA_PROFILES) {
      const rewritten = profileListing(plan.listing, profile);
      if (rewritten !== null) profiles[profile] = rewritten;
    }
    return {
      plan,
      input: tool.input.compiled,
      output: outputSchemaOf(tool.output)?.compiled ?? null,
      moduleName,
      profiles,
    };
  });
  return {
    views,
    plan: {
      name: spec.name,
      version: spec.version,
      ...(spec.description !== undefined ? { description: spec.description } : {}),
      secrets: analyzed.secrets.map((s) => {
        const path = analyzed.secretPaths.get(s.name);
        return placeOf === undefined || path === undefined ? s : { ...s, at: placeOf(path) };
      }),
      // The kervanc upstream-auth extension; absent for a Kervan spec, so its plan stays as it was.
      ...(analyzed.credentials.length > 0 ? { credentials: analyzed.credentials } : {}),
    },
    tools,
  };
}

/** A tool's view (kervanc extension views): one when the tool asks for one and has an output schema to draw. */
function plannedView(tool: AnalyzedTool, index: number, server: string): PlannedView | null {
  const schema = outputSchemaOf(tool.output);
  if (tool.view === undefined || tool.view === null || schema === null) return null;
  const t = tool.spec;
  return {
    tool: index,
    uri: viewUri(server, t.name),
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: `The result of ${t.name} as a ${tool.view}.`,
    model: viewModel(tool.view, schema.schema as JsonObject, t.title ?? t.name),
  };
}

/** What an http.retry that names only its attempts means (docs/extensions/retry.md). */
const RETRY_DEFAULTS = { on: [429, 502, 503, 504], maxDelayMs: 10_000, methods: ["GET", "PUT", "DELETE"] } as const;

/** `view`: the URI of the tool's view resource (kervanc extension views), or undefined for none. */
function planTool(tool: AnalyzedTool, view: string | undefined): ToolPlan {
  const { spec: t } = tool;
  const http = t.http;
  const { settings } = tool;
  const outputSchema = outputSchemaOf(tool.output);
  const listing: ToolListing = {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    description: t.description,
    inputSchema: tool.input.schema,
    ...(outputSchema !== null ? { outputSchema: outputSchema.schema as JsonObject } : {}),
    annotations: { openWorldHint: true, ...(t.annotations ?? {}) },
    // The kervanc views extension: the tool's MCP Apps view; hosts without views ignore it.
    ...(view !== undefined ? { _meta: { ui: { resourceUri: view } } } : {}),
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
      // The kervanc form-body extension (analyze/rules/extensions.ts); absent for a Kervan spec.
      ...(http.bodyEncoding === "form" ? { bodyEncoding: "form" as const } : {}),
      // The kervanc multipart-body extension, its upload limit filled in.
      ...(http.bodyEncoding === "multipart"
        ? { bodyEncoding: "multipart" as const, maxUploadBytes: http.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES }
        : {}),
      // The kervanc omit-absent extension; absent for a Kervan spec (and for omitAbsent: false).
      ...(http.omitAbsent === true ? { omitAbsent: true as const } : {}),
      // The kervanc retry extension, its defaults filled in; absent for a Kervan spec.
      ...(http.retry !== undefined
        ? {
            retry: {
              attempts: http.retry.attempts,
              on: [...new Set(http.retry.on ?? RETRY_DEFAULTS.on)].sort((a, b) => a - b),
              maxDelayMs: http.retry.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs,
              methods: [...new Set(http.retry.methods ?? RETRY_DEFAULTS.methods)] as ToolPlan["request"]["method"][],
            },
          }
        : {}),
    },
    output: planOutput(tool.output, settings.maxOutputChars),
    limits: {
      timeoutMs: settings.timeoutMs,
      // A binary answer up to the tool's maxBytes (kervanc extension binary-output) must be read whole to be analyzed.
      maxResponseBytes: Math.max(settings.maxResponseBytes, tool.binary?.maxBytes ?? 0),
      allowInsecureHttp: settings.allowInsecureHttp,
      followRedirects: settings.followRedirects,
    },
    rateLimit: { perMinute: settings.rateLimit.perMinute, concurrency: settings.rateLimit.concurrency },
    secrets: tool.secrets,
    ...(tool.errorDetail !== undefined ? { errorDetail: tool.errorDetail } : {}),
    ...(tool.credentials.length > 0 ? { credentials: tool.credentials } : {}),
    // The kervanc binary-output extension; absent for a Kervan spec.
    ...(tool.binary !== undefined ? { binary: tool.binary } : {}),
    // The kervanc toolsets extension: a tool's tags, deduplicated in the order written; absent without tags.
    ...(t.tags !== undefined && t.tags.length > 0 ? { toolsets: [...new Set(t.tags)] } : {}),
  };
}

/** The output schema a tool declares: only a `select` output can have one. */
function outputSchemaOf(output: AnalyzedOutput): AnalyzedSchema | null {
  switch (output.kind) {
    case "raw":
    case "binary":
      return null;
    case "select":
      return output.schema;
    default: {
      const unknown: never = output;
      throw new Error(`Unexpected output ${JSON.stringify(unknown)}.`);
    }
  }
}

function planOutput(output: AnalyzedOutput, maxOutputChars: number): OutputPlan {
  switch (output.kind) {
    case "raw":
      return { kind: "raw", maxOutputChars };
    case "binary":
      return { kind: "binary", maxOutputChars };
    case "select":
      return {
        kind: "select",
        expression: output.expression,
        ast: output.ast,
        structured: output.schema !== null,
        maxOutputChars,
      };
    default: {
      const unknown: never = output;
      throw new Error(`Unexpected output ${JSON.stringify(unknown)}.`);
    }
  }
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
