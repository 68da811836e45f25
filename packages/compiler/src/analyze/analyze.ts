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
import type { CredentialPlan, JsonObject, SecretDeclaration, SelectNode } from "@kervanc/runtime";
import { checkCredentials, intendedHost } from "./credentials.ts";
import { type Finding, report, severityOf, type SpecPath } from "../diagnostics/diagnostic.ts";
import { checkClientNames } from "./client-names.ts";
import { checkExtensions } from "./extensions.ts";
import { newPatternBudget } from "./regex-backtracking.ts";
import { checkRequest, type ParsedRequest, type ParsedUrl } from "./request.ts";
import { checkSchemaLimits } from "./schema-limits.ts";
import { checkAndCompileSchema, type CompiledSchema } from "./schemas.ts";
import { checkSecretDeclarations, type SecretEntry } from "./secrets.ts";
import { checkSelect } from "./select.ts";
import { type ToolSettings, toolSettings } from "./settings.ts";
import { checkSelectResult } from "./select-result.ts";
import { specShape, type SpecFile, type ToolSpec } from "./spec-format.ts";
import { checkShape, type ShapeContext } from "./structure.ts";
import { closest } from "./suggest.ts";
import { inputPathDeclared, propertiesAt, refText } from "./templates.ts";

export const DEFAULT_INPUT_SCHEMA: JsonObject = { type: "object", properties: {} };

export type AnalyzedOutput =
  | {
      readonly kind: "select";
      readonly expression: string;
      readonly ast: SelectNode;
      readonly schema: AnalyzedSchema | null;
    }
  | { readonly kind: "raw" }
  /** Binary answers only (kervanc extension binary-output). */
  | { readonly kind: "binary" };

export interface AnalyzedSchema {
  readonly schema: JsonObject;
  readonly compiled: CompiledSchema;
}

export interface AnalyzedTool {
  readonly index: number;
  readonly spec: ToolSpec;
  readonly request: ParsedRequest & { readonly url: ParsedUrl };
  /** Declared secrets this tool sends, sorted. */
  readonly secrets: readonly string[];
  /** The credentials this tool sends (kervanc extension upstream-auth), sorted. */
  readonly credentials: readonly string[];
  readonly input: AnalyzedSchema;
  readonly output: AnalyzedOutput;
  /** The tool's settings with the spec's and the format's defaults applied (settings.ts). */
  readonly settings: ToolSettings;
  /** The kervanc error-detail extension's parsed expression; absent without it. */
  readonly errorDetail?: { readonly expression: string; readonly ast: SelectNode; readonly maxChars: number };
  /** The kervanc binary-output extension: the largest binary answer returned; absent without it. */
  readonly binary?: { readonly maxBytes: number };
}

export interface AnalyzedSpec {
  readonly spec: SpecFile;
  readonly secrets: readonly SecretDeclaration[];
  /** Where each secret is declared (`secrets[i]`). */
  readonly secretPaths: ReadonlyMap<string, SpecPath>;
  /** The kervanc upstream-auth extension's credentials, in plan form; empty without it. */
  readonly credentials: readonly CredentialPlan[];
  readonly tools: readonly AnalyzedTool[];
}

export type AnalyzeResult = { readonly findings: readonly Finding[]; readonly checked: AnalyzedSpec | null };

export type AnalyzeOptions = ShapeContext & {
  /** Development relaxation (`kervanc call`, `dev`, `test`; never `build`): plain http to loopback hosts, secrets included. */
  readonly devLoopbackHttp?: boolean;
};

export function analyzeSpec(value: unknown, options: AnalyzeOptions = {}): AnalyzeResult {
  const findings: Finding[] = [];
  // Each spec (and each rebuild of one in kervanc dev) gets its own time for the backtracking analysis (KV5019).
  newPatternBudget();
  checkShape(value, specShape, [], findings, options);
  const errors = findings.filter((f) => severityOf(f) === "error");
  if (errors.length > 0) {
    // When every problem names its fix (a misspelled key), the note would only be a second finding for one mistake.
    if (errors.every((f) => f.fix !== undefined)) return { findings, checked: null };
    findings.push(report("KV2012", [], (m) => m.structureFirst));
    return { findings, checked: null };
  }
  const spec = value as SpecFile;
  const { declarations, paths: secretPaths } = checkSecretDeclarations((spec.secrets ?? []) as SecretEntry[], findings);
  const bindings = new Map(declarations.map((d) => [d.name, d.hosts]));
  const used = new Set<string>();

  checkExtensions(spec, findings);
  checkClientNames(spec, findings);
  const credentials = checkCredentials(spec, bindings, findings, options.devLoopbackHttp === true);
  for (const name of credentials.secrets) used.add(name);
  const credentialContext: CredentialContext = {
    plans: new Map(credentials.plans.map((plan) => [plan.name, plan])),
    declared: new Set(credentials.paths.keys()),
    extension: (spec.kervancExtensions ?? []).includes("upstream-auth"),
  };
  const usedCredentials = new Set<string>();
  const names = new Map<string, number>();
  const tools: AnalyzedTool[] = [];
  spec.tools.forEach((tool, index) => {
    const at: SpecPath = ["tools", index];
    const first = names.get(tool.name);
    if (first !== undefined)
      findings.push(report("KV2014", [...at, "name"], (m) => m.duplicateTool({ name: tool.name, first })));
    else names.set(tool.name, index);
    const checked = checkTool(
      tool,
      index,
      spec,
      bindings,
      credentialContext,
      findings,
      options.devLoopbackHttp === true,
    );
    for (const name of checked.secrets) used.add(name);
    for (const name of checked.credentials) usedCredentials.add(name);
    if (checked.tool) tools.push(checked.tool);
  });
  // A secret whose only use is a refused look-alike ({{secret.X}}, ${X}) is not "never used": the error says so.
  const meant = new Set(
    findings.flatMap((f) =>
      [...(f.fix?.replacement ?? "").matchAll(/\{\{secrets\.([A-Z0-9_]+)\}\}/g)].map((m) => m[1]!),
    ),
  );
  for (const [name, path] of secretPaths) {
    if (!used.has(name) && !meant.has(name)) findings.push(report("KV4002", path, (m) => m.unused({ name })));
  }
  for (const [name, path] of credentials.paths)
    if (!usedCredentials.has(name)) findings.push(report("KV8016", path, (m) => m.unused({ name }), { atKey: true }));
  const ok = !findings.some((f) => severityOf(f) === "error");
  return {
    findings,
    checked: ok ? { spec, secrets: declarations, secretPaths, credentials: credentials.plans, tools } : null,
  };
}

/** What a tool's `{{credentials.x}}` references are checked against. */
interface CredentialContext {
  readonly plans: ReadonlyMap<string, CredentialPlan>;
  /** Every declared name, those refused for their content included (their error is already reported). */
  readonly declared: ReadonlySet<string>;
  /** Whether the spec declares the upstream-auth extension. */
  readonly extension: boolean;
}

function checkTool(
  tool: ToolSpec,
  index: number,
  spec: SpecFile,
  bindings: ReadonlyMap<string, readonly string[] | undefined>,
  credentialContext: CredentialContext,
  out: Finding[],
  devLoopbackHttp: boolean,
): { tool: AnalyzedTool | null; secrets: string[]; credentials: string[] } {
  const at: SpecPath = ["tools", index];
  const before = out.length;
  const settings = toolSettings(tool, spec);
  const allowInsecureHttp = settings.allowInsecureHttp;
  const method = tool.http.method ?? "GET";
  const request = checkRequest(
    {
      method,
      url: tool.http.url,
      ...(tool.http.query !== undefined ? { query: tool.http.query } : {}),
      ...(tool.http.headers !== undefined ? { headers: tool.http.headers } : {}),
      ...(tool.http.body !== undefined ? { body: tool.http.body } : {}),
      allowInsecureHttp,
      devLoopbackHttp,
    },
    [...at, "http"],
    out,
    tool.http.method !== undefined,
  );

  // The input schema: limits, type object, then Ajv.
  const inputSchema = (tool.input ?? DEFAULT_INPUT_SCHEMA) as JsonObject;
  const inputAt: SpecPath = tool.input !== undefined ? [...at, "input"] : at;
  const notObject = inputSchema["type"] !== "object";
  if (notObject) {
    const got = Object.hasOwn(inputSchema, "type")
      ? ` It has type: ${JSON.stringify(inputSchema["type"])}.`
      : " It has no type.";
    out.push(report("KV5010", [...inputAt, "type"], (m) => m.inputNotObject({ got })));
  }
  const schemaFindings: Finding[] = [];
  const inputChecked = checkSchema(inputSchema, inputAt, schemaFindings);
  // Ajv's "missing type object" warnings at the root only repeat KV5010.
  out.push(...schemaFindings.filter((f) => !(notObject && f.code === "KV5013" && f.path.length === inputAt.length)));

  // References: every input path must name a declared property; every secret must be declared and may go
  // to this tool's host.
  const secrets = new Set<string>();
  const credentials = new Set<string>();
  const declared = [...bindings.keys()];
  for (const { ref, path, offset, length } of request.refs) {
    const where = offset === undefined ? {} : { offset, length: length ?? refText(ref).length };
    if (ref.kind === "credential") {
      // The kervanc upstream-auth extension: declared, and never in the URL, where access logs keep it. A declared
      // credential a tool names is used, even where it is refused: one error for one mistake.
      if (credentialContext.declared.has(ref.name)) credentials.add(ref.name);
      if (!credentialContext.extension) {
        out.push(report("KV8002", path, (m) => m.credentialRefUndeclared({ ref: refText(ref) }), where));
        continue;
      }
      if (!credentialContext.declared.has(ref.name)) {
        const names = [...credentialContext.declared];
        const close = closest(ref.name, names);
        const meant = close !== undefined ? `{{credentials.${close}}}` : undefined;
        const text = refText(ref);
        out.push(
          report(
            "KV8011",
            path,
            (m) =>
              meant !== undefined
                ? m.undeclaredMeant({ ref: text, meant })
                : names.length > 0
                  ? m.undeclaredDeclared({ ref: text, declared: names.join(", ") })
                  : m.undeclared({ ref: text }),
            {
              ...where,
              ...(meant ? { fix: { description: `Write ${meant}`, replacement: meant } } : {}),
            },
          ),
        );
        continue;
      }
      if (path.length === at.length + 2 && path[at.length + 1] === "url")
        out.push(report("KV8011", path, (m) => m.inPath({ ref: refText(ref) }), where));
      continue;
    }
    if (ref.kind === "input") {
      if (!inputPathDeclared(inputSchema, ref.path)) {
        const level = propertiesAt(inputSchema, ref.path);
        const close = level ? closest(ref.path[level.depth]!, level.names, { abbreviations: true }) : undefined;
        const meant =
          close !== undefined
            ? refText({ kind: "input", path: [...ref.path.slice(0, level!.depth), close] })
            : undefined;
        const text = refText(ref);
        const names = level && level.names.length > 0 && level.names.length <= 10 ? level.names.join(", ") : null;
        out.push(
          report(
            "KV3004",
            path,
            (m) =>
              meant !== undefined
                ? m.unknownInputMeant({ ref: text, meant })
                : names !== null
                  ? m.unknownInputHas({ ref: text, names })
                  : tool.input === undefined
                    ? m.noInputSchema({ ref: text })
                    : m.unknownInput({ ref: text }),
            {
              ...where,
              ...(meant ? { fix: { description: `Write ${meant}`, replacement: meant } } : {}),
            },
          ),
        );
      }
      continue;
    }
    if (!bindings.has(ref.name)) {
      const close = closest(ref.name, declared);
      const meant = close !== undefined ? `{{secrets.${close}}}` : undefined;
      const text = refText(ref);
      out.push(
        report(
          "KV3003",
          path,
          (m) =>
            meant !== undefined
              ? m.undeclaredSecretMeant({ ref: text, meant })
              : declared.length > 0
                ? m.undeclaredSecretDeclared({ ref: text, declared: declared.join(", ") })
                : m.undeclaredSecret({ ref: text }),
          {
            ...where,
            ...(meant ? { fix: { description: `Write ${meant}`, replacement: meant } } : {}),
          },
        ),
      );
      continue;
    }
    secrets.add(ref.name);
  }
  for (const { path, lookAlike } of request.lookAlikes) {
    const inputNames = propertiesAt(inputSchema, [])?.names ?? [];
    if (lookAlike.bareName !== undefined) {
      // `{id}` is an OpenAPI path parameter, or text that really has braces: a finding only when the name is an input property.
      const name = closest(lookAlike.bareName, inputNames, { abbreviations: true });
      if (name === undefined) continue;
      const meant = `{{input.${name}}}`;
      out.push(
        report("KV3018", path, (m) => m.singleBraces({ written: lookAlike.written, meant }), {
          offset: lookAlike.offset,
          length: lookAlike.length,
          severity: "warning",
          fix: { description: `Write ${meant}`, replacement: meant },
        }),
      );
      continue;
    }
    const dollar = lookAlike.written.startsWith("$");
    // `${X}` may be meant literally (there is no escape for it); it is an error when X names a declared secret or
    // input property, or has a template's prefix, and a warning otherwise.
    const name = lookAlike.written.replace(/^\$?\{\s*|\s*\}$/g, "");
    const known = /^(input|inputs|secrets?|env)\./i.test(name) || bindings.has(name) || inputNames.includes(name);
    const severity = dollar && !known ? { severity: "warning" as const } : {};
    out.push(
      report(
        "KV3018",
        path,
        (m) => {
          const look = { written: lookAlike.written, meant: lookAlike.meant };
          return dollar ? m.dollarBraces(look) : m.singleBracesTwo(look);
        },
        {
          offset: lookAlike.offset,
          length: lookAlike.length,
          ...severity,
          fix: { description: `Write ${lookAlike.meant}`, replacement: lookAlike.meant },
        },
      ),
    );
  }
  if (request.url) {
    for (const name of credentials) {
      const plan = credentialContext.plans.get(name);
      const intended = plan !== undefined ? intendedHost(plan) : null;
      if (intended !== null && intended.host !== request.url.hostname)
        out.push(
          report("KV8015", [...at, "http", "url"], (m) =>
            m.otherHost({ name, meant: intended.host, what: intended.what, host: request.url!.hostname }),
          ),
        );
    }
    const host = request.url.hostPort;
    for (const name of secrets) {
      const hosts = bindings.get(name);
      // A binding whose every host was refused (KV4003) already has its error; a second one would only confuse.
      if (hosts !== undefined && hosts.length > 0 && !hosts.includes(request.url.hostPort)) {
        out.push(report("KV4004", [...at, "http", "url"], (m) => m.otherHost({ name, hosts: hosts.join(", "), host })));
      }
    }
  }

  let output: AnalyzedOutput | null = null;
  const outAt: SpecPath = [...at, "output"];
  if ("raw" in tool.output) output = { kind: "raw" };
  else if (!("select" in tool.output)) output = { kind: "binary" };
  else {
    const select = checkSelect(tool.output.select, [...outAt, "select"], out);
    let schema: AnalyzedSchema | null = null;
    let schemaOk = true;
    if (tool.output.schema !== undefined) {
      schema = checkSchema(tool.output.schema as JsonObject, [...outAt, "schema"], out);
      schemaOk = schema !== null;
    }
    if (select.ok && schema !== null) checkSelectResult(select.ast, schema.schema, [...outAt, "select"], out);
    if (select.ok && schemaOk) output = { kind: "select", expression: tool.output.select, ast: select.ast, schema };
  }

  let errorDetail: AnalyzedTool["errorDetail"];
  if (tool.output.error !== undefined) {
    const detail = checkSelect(tool.output.error.select, [...outAt, "error", "select"], out);
    if (detail.ok)
      errorDetail = {
        expression: tool.output.error.select,
        ast: detail.ast,
        maxChars: tool.output.error.maxChars ?? DEFAULT_ERROR_DETAIL_CHARS,
      };
  }

  // The kervanc binary-output extension: a binary answer has no structured content, so a tool that may answer
  // with one cannot promise a schema's (clients refuse a result without the structured content it declares).
  let binary: AnalyzedTool["binary"];
  if (tool.output.binary !== undefined) {
    binary = { maxBytes: tool.output.binary.maxBytes ?? DEFAULT_BINARY_MAX_BYTES };
    if ("schema" in tool.output && tool.output.schema !== undefined)
      out.push(report("KV8020", [...outAt, "binary"], (m) => m.withSchema, { atKey: true }));
  }

  const failed = out.slice(before).some((f) => severityOf(f) === "error");
  const sorted = [...secrets].sort();
  const sortedCredentials = [...credentials].sort();
  if (failed || !request.url || !inputChecked || !output)
    return { tool: null, secrets: sorted, credentials: sortedCredentials };
  return {
    tool: {
      index,
      spec: tool,
      request: { ...request, url: request.url },
      secrets: sorted,
      credentials: sortedCredentials,
      input: inputChecked,
      output,
      settings,
      ...(errorDetail !== undefined ? { errorDetail } : {}),
      ...(binary !== undefined ? { binary } : {}),
    },
    secrets: sorted,
    credentials: sortedCredentials,
  };
}

/** The largest binary answer returned by default (docs/extensions/binary-output.md): 5 MiB. */
const DEFAULT_BINARY_MAX_BYTES = 5_242_880;

/** How much of an error answer's detail is shown by default (docs/extensions/error-detail.md). */
const DEFAULT_ERROR_DETAIL_CHARS = 600;

function checkSchema(schema: JsonObject, at: SpecPath, out: Finding[]): AnalyzedSchema | null {
  const found = checkSchemaLimits(schema, at);
  out.push(...found);
  // Hidden characters in a name or value are a warning (KV5018): the schema is built as it is.
  const limits = found.filter((f) => f.code !== "KV5018");
  // Hidden characters in a title do not stop Ajv; a schema over a limit (or with a remote $ref) is not given to it.
  if (limits.some((f) => f.code !== "KV2010")) return null;
  const result = checkAndCompileSchema(schema, at);
  out.push(...result.findings);
  if (limits.length > 0) return null;
  return result.compiled ? { schema, compiled: result.compiled } : null;
}
