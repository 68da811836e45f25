/**
 * `kervanc import`: an OpenAPI 3.0 or 3.1 document to one Kervan spec (format v1).
 *
 * This module composes the importer's parts, one per OpenAPI object: `operations.ts` lists and selects the
 * operations, `servers.ts` picks each one's server, `security.ts` its credentials, `parameters.ts` and
 * `request-body.ts` its input and request, `responses.ts` its proposed output. Each selected operation becomes a
 * tool. The spec's text is then run through the compiler's own load, check and plan stages: an import never
 * hands back a spec that `kervanc build` would refuse. Nothing here touches the file system or the network; the
 * CLI reads and writes.
 *
 * Decisions (also in the README, "kervanc import"):
 * - A `$ref` cycle in a tool's input is an error (KV7006); in a response it only ends the proposal's walk.
 * - Credentials are secrets, never inputs (security.ts): every scheme but http digest-like ones and mutualTLS
 *   maps to a header, query entry or cookie; parameters that are credentials are sent from secrets.
 * - A plain-http server is allowed for operations that send no secrets (`allowInsecureHttp: true`, warning
 *   KV7013); an operation that sends secrets to it is an error (KV7008), since secrets never travel over http.
 */
import { basename } from "node:path";
import { compileSpec } from "../compile.ts";
import { overBudget } from "../compiled-spec.ts";
import { checkSchemaLimits } from "../analyze/rules/schema-limits.ts";
import { capDiagnostics } from "../diagnostics/cap.ts";
import {
  compareDiagnostics,
  type Diagnostic,
  type Finding,
  report,
  severityOf,
  toDiagnostics,
  WHOLE_FILE,
} from "../diagnostics/diagnostic.ts";
import { MAX_SPEC_BYTES } from "../load/load.ts";
import { DEFAULT_TOOLS_BUDGET, listingSize, type ListingSize } from "../plan/budget.ts";
import type { ImportContext, ImportOptions, Operation } from "./context.ts";
import { readOpenApi, type OpenApiSource } from "./document.ts";
import { type Comment, emitSpec } from "./emit.ts";
import { Inputs } from "./inputs.ts";
import { proposeFailures } from "./failures.ts";
import { MAX_TOOL_NAME, NameSet, serverNameFrom, toolNameFrom, toolNameFromRoute } from "./names.ts";
import { listOperations, selectOperations, selectorOf } from "./operations.ts";
import { pageSizeOf, placeParameters, plainHeaderValue, readParameters } from "./parameters.ts";
import { ImportProblem, isPlainObject, own, put, Resolver } from "./refs.ts";
import { placeRequestBody } from "./request-body.ts";
import { lowerPageSize, proposeOutput } from "./responses.ts";
import { type ConvertNote, firstHidden, type OpenApiVersion, SchemaConverter } from "./schema.ts";
import { applyCredentials, credentialPlaces, isCredentialParameter, type SecretKind, Security } from "./security.ts";
import { UpstreamAuthImport } from "./upstream-auth.ts";
import { basePath, hostPort, type Server, Servers } from "./servers.ts";
import { narrowToRequest } from "./encodable.ts";
import { cleanText, removedCharacters, shorten } from "./text.ts";

export type { ImportOptions } from "./context.ts";

export interface ImportedTool {
  readonly name: string;
  readonly method: string;
  readonly route: string;
  readonly operationId: string | null;
}

export interface ImportResult {
  /** False when there is an error: then `text` is null and nothing may be written. */
  readonly ok: boolean;
  readonly diagnostics: readonly Diagnostic[];
  readonly text: string | null;
  readonly tools: readonly ImportedTool[];
  /** Operations in the document (all methods). */
  readonly operations: number;
  readonly secrets: readonly string[];
  readonly size: ListingSize | null;
  /** The document's text as the importer read it (a BOM dropped), for code frames; absent when it is not text. */
  readonly documentText?: string;
}

/** Tool descriptions are cut to this length (the model reads them in every listing); the spec notes the cut. */
export const MAX_TOOL_DESCRIPTION = 1000;
export const MAX_SERVER_DESCRIPTION = 1000;

const ANNOTATIONS: Readonly<Record<string, Record<string, boolean>>> = {
  get: { readOnlyHint: true },
  post: { readOnlyHint: false, destructiveHint: false },
  put: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  patch: { readOnlyHint: false, destructiveHint: true },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

const SECRET_NOTES: Readonly<Record<SecretKind, string>> = {
  "api key": "the API key",
  "access token": "an access token, sent as Authorization: Bearer (obtain it outside; the server runs no OAuth flow)",
  "basic pair":
    "the base64 of user:password, sent as Authorization: Basic (for example: printf %s 'user:password' | base64)",
};

/** What each extension the importer may declare is for, in the comment above `kervancExtensions`. */
const EXTENSION_NOTES: Readonly<Record<string, string>> = {
  "form-body": "form-encoded bodies (bodyEncoding: form) are a kervanc extension",
  toolsets: "tags (from the operations' OpenAPI tags, for --toolsets) are a kervanc extension",
  "multipart-body": "file uploads (bodyEncoding: multipart) are a kervanc extension",
  "omit-absent": "optional headers and body fields left out when not given (omitAbsent: true) are a kervanc extension",
  "binary-output": "file answers returned as image, audio or file content (--binary-output) are a kervanc extension",
  "upstream-auth":
    "credentials the server fetches and renews (from OAuth client-credentials schemes, --upstream-auth) are a kervanc extension",
};

/**
 * An operation's OpenAPI tags as toolset names (`--toolsets` takes them comma-separated): other characters become
 * `_`, at most 64 characters, no duplicates, at most 16.
 */
function toolsetsOf(operation: Operation): string[] {
  const names = operation.tags
    .map((tag) =>
      tag
        .replace(/[^A-Za-z0-9_-]+/g, "_")
        .replace(/^[_-]+/, "")
        .slice(0, 64),
    )
    .filter((name) => name !== "");
  return [...new Set(names)].slice(0, 16);
}

interface BuiltTool {
  readonly operation: Operation;
  readonly value: Record<string, unknown>;
  readonly comments: readonly Comment[];
  readonly secrets: readonly string[];
  readonly server: Server;
}

export function importOpenApi(
  file: string,
  bytes: Uint8Array,
  outFile: string,
  options: ImportOptions = {},
): ImportResult {
  const read = readOpenApi(file, bytes);
  if (!read.ok) {
    const diagnostics = toDiagnostics(file, WHOLE_FILE, read.problems);
    const framed = read.text !== undefined && NAMES_OPENAPI.test(read.text);
    return { ...failed(diagnostics, 0), ...(framed ? { documentText: read.text } : {}) };
  }
  const root = read.source.value;
  const framed = isPlainObject(root) && (typeof root["openapi"] === "string" || typeof root["swagger"] === "string");
  return {
    ...new Importer(read.source, outFile, options).run(),
    ...(framed ? { documentText: read.source.text } : {}),
  };
}

/**
 * A document that says it is OpenAPI (or Swagger) at its top level. Only such a document's lines are shown in
 * code frames: any other file (a credentials file, `.git/config` behind a link) gets a position and a one-line
 * message, so its lines are never printed into a log.
 */
const NAMES_OPENAPI = /^(?:openapi|swagger)[ \t]*:|^[ \t]*\{?[ \t]*"(?:openapi|swagger)"[ \t]*:/m;

function failed(diagnostics: Diagnostic[], operations: number): ImportResult {
  return {
    ok: false,
    diagnostics: diagnostics.sort(compareDiagnostics),
    text: null,
    tools: [],
    operations,
    secrets: [],
    size: null,
  };
}

class Importer {
  readonly #source: OpenApiSource;
  readonly #outFile: string;
  readonly #options: ImportOptions;
  readonly #resolver: Resolver;
  readonly #root: Record<string, unknown>;
  readonly #findings: Finding[] = [];
  /** Keywords dropped for not applying to their schema's type, over all tools (one summary note). */
  readonly #inapplicable = new Map<string, number>();
  /** What each secret holds, for the comment above it in the spec. */
  readonly #secretNotes = new Map<string, string>();
  /** --upstream-auth: the client-credentials schemes made credentials; null without the flag. */
  #upstreamAuth: UpstreamAuthImport | null = null;
  #version: OpenApiVersion = "3.0";

  constructor(source: OpenApiSource, outFile: string, options: ImportOptions) {
    this.#source = source;
    this.#outFile = outFile;
    this.#options = options;
    this.#resolver = new Resolver(source.value);
    this.#root = isPlainObject(source.value) ? source.value : {};
  }

  run(): ImportResult {
    if (!isPlainObject(this.#source.value)) {
      this.#report(report("KV7003", [], (m) => m.topLevelNotMapping));
      return failed(this.#diagnostics(), 0);
    }
    if (!this.#checkVersion()) return failed(this.#diagnostics(), 0);
    const ctx: ImportContext = {
      resolver: this.#resolver,
      root: this.#root,
      version: this.#version,
      options: this.#options,
      report: (f) => this.#report(f),
    };
    const operations = listOperations(ctx);
    const selected = selectOperations(ctx, operations);
    if (selected === null) return failed(this.#diagnostics(), operations.length);

    const servers = new Servers(this.#root, this.#options.serverUrl);
    const security = new Security(ctx);
    if (this.#options.upstreamAuth === true) this.#upstreamAuth = new UpstreamAuthImport(security);
    const toolNames = new NameSet(MAX_TOOL_NAME);
    const built: BuiltTool[] = [];
    for (const operation of selected) {
      const name = toolNames.take(
        operation.operationId !== null
          ? toolNameFrom(operation.operationId)
          : toolNameFromRoute(operation.method, operation.route),
      );
      const mark = this.#findings.length;
      let tool: BuiltTool | null = null;
      try {
        tool = this.#tool(ctx, servers, security, operation, name);
      } catch (error) {
        if (!(error instanceof ImportProblem)) throw error;
        this.#reportProblem(error, operation, name);
      }
      if (this.#options.skipInvalid && this.#skipErrorsSince(mark, operation)) tool = null;
      if (tool !== null) built.push(tool);
    }
    security.reportUnsupported();
    if (this.#inapplicable.size > 0) {
      const total = [...this.#inapplicable.values()].reduce((a, b) => a + b, 0);
      const list = [...this.#inapplicable]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([k, n]) => `${k} ${n}`)
        .join(", ");
      this.#report(
        report("KV7010", [], (m) =>
          m.inapplicableKeywords({ keywords: `${total} schema keyword${total === 1 ? "" : "s"}`, list }),
        ),
      );
    }
    if (built.length === 0 && !this.#hasErrors()) {
      this.#report(
        report("KV7011", ["paths"], (m) => m.noneImportable, {
          atKey: true,
        }),
      );
    }
    if (this.#hasErrors()) return failed(this.#diagnostics(), operations.length);
    return this.#finish(built, operations.length, !security.declaresAny());
  }

  #report(f: Finding): void {
    this.#findings.push(f);
  }

  /**
   * Under --skip-invalid: the errors reported since `mark` (all about one operation) become warnings that say
   * the operation is skipped. True when there were any, so the operation is left out.
   */
  #skipErrorsSince(mark: number, operation: Operation): boolean {
    let skipped = false;
    for (let i = mark; i < this.#findings.length; i++) {
      const f = this.#findings[i]!;
      if (severityOf(f) !== "error") continue;
      this.#findings[i] = { ...f, severity: "warning", message: `${skippedPrefix(operation)}${f.message}` };
      skipped = true;
    }
    return skipped;
  }

  #hasErrors(): boolean {
    return this.#findings.some((f) => severityOf(f) === "error");
  }

  #diagnostics(): Diagnostic[] {
    const seen = new Set<string>();
    const out: Diagnostic[] = [];
    for (const d of toDiagnostics(this.#source.file, this.#source, this.#findings)) {
      // Two operations that share a component report its problems once.
      const key = `${d.code}\u0000${d.path}\u0000${d.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(d);
    }
    return capDiagnostics(this.#source.file, out.sort(compareDiagnostics));
  }

  #checkVersion(): boolean {
    const openapi = this.#root["openapi"];
    if (this.#root["swagger"] !== undefined && openapi === undefined) {
      this.#report(report("KV7003", ["swagger"], (m) => m.swagger2, { atKey: true }));
      return false;
    }
    if (typeof openapi !== "string") {
      this.#report(report("KV7003", openapi === undefined ? [] : ["openapi"], (m) => m.noVersion));
      return false;
    }
    const match = /^3\.([01])\.\d+(-.+)?$/.exec(openapi);
    if (!match) {
      this.#report(report("KV7003", ["openapi"], (m) => m.unsupportedVersion({ version: openapi })));
      return false;
    }
    this.#version = match[1] === "0" ? "3.0" : "3.1";
    const paths = this.#root["paths"];
    if (paths !== undefined && paths !== null && !isPlainObject(paths)) {
      this.#report(report("KV7003", ["paths"], (m) => m.pathsNotMapping));
      return false;
    }
    return true;
  }

  #reportProblem(problem: ImportProblem, operation: Operation, toolName: string): void {
    const selector = selectorOf(operation);
    const leaveOut = `leave the operation out (--exclude ${/\s/.test(selector) ? JSON.stringify(selector) : selector})`;
    if (problem.code === "KV7006") {
      this.#report(report("KV7006", problem.path, (m) => m.recursive({ problem: problem.message, leaveOut })));
    } else if (problem.code === "KV7007") {
      this.#report(
        report(
          "KV7007",
          operation.at,
          (m) => m.overLimit({ tool: toolName, problem: problem.message, leaveOut: capitalize(leaveOut) }),
          { atKey: true },
        ),
      );
    } else this.#report(problem.finding);
  }

  #notes(notes: readonly ConvertNote[]): void {
    for (const note of notes) this.#report(note);
  }

  /** One tool, or null when the operation is left out (with a warning). Throws ImportProblem for errors. */
  #tool(
    ctx: ImportContext,
    servers: Servers,
    security: Security,
    operation: Operation,
    name: string,
  ): BuiltTool | null {
    const { op, at, method, route } = operation;
    const notes: ConvertNote[] = [];
    const converter = new SchemaConverter(this.#resolver, this.#version, notes);
    const inputs = new Inputs(ctx, converter);
    const comments: Comment[] = [];

    const server = servers.for(operation);
    const schemes = security.auth(operation);
    // --upstream-auth: client-credentials schemes become credentials the server fetches (upstream-auth.ts).
    const { auth, headers: credentialHeaders } = this.#upstreamAuth?.take(schemes, server.url) ?? {
      auth: schemes,
      headers: {},
    };
    const sendsCredentials = auth.credentials.length > 0 || Object.keys(credentialHeaders).length > 0;
    const params = readParameters(ctx, operation, inputs);
    const credentialParams = params.some(
      (p) => (p.in === "query" || p.in === "header") && isCredentialParameter(p.name, p.description),
    );
    if ((sendsCredentials || credentialParams) && server.url.protocol === "http:") {
      const url = JSON.stringify(server.text);
      const withOption = server.fromOption ? "" : " with --server-url";
      throw new ImportProblem(report("KV7008", server.at, (m) => m.secretsOverHttp({ url, name, withOption })));
    }
    const proposal = proposeOutput(
      this.#resolver,
      op,
      at,
      pageSizeOf(this.#resolver, params),
      undefined,
      this.#options.binaryOutput === true,
    );
    if (proposal.skip) {
      this.#report(proposal.skip);
      return null;
    }
    if (proposal.warning) this.#report(proposal.warning);

    const placed = placeParameters(ctx, operation, params, inputs, {
      places: credentialPlaces(schemes),
      authenticated: sendsCredentials,
      secretFor: (param) =>
        security.secretName(`${param.in}:${param.in === "header" ? param.name.toLowerCase() : param.name}`, param.name),
    });
    if (placed === null) return null;
    const secrets = [...new Set([...auth.credentials.map((a) => a.secret), ...placed.secrets])];
    for (const a of auth.credentials)
      this.#secretNotes.set(
        a.secret,
        a.flow !== undefined
          ? `${SECRET_NOTES[a.kind]}; the scheme has an OAuth client-credentials flow: kervanc import --upstream-auth has the server fetch and renew the token itself`
          : SECRET_NOTES[a.kind],
      );
    for (const secret of placed.secrets)
      if (!this.#secretNotes.has(secret)) this.#secretNotes.set(secret, "the value of a credential parameter");
    const { query, headers } = placed;
    // An Accept parameter without a value of its own: the request asks for what the success response documents
    // (a wildcard is the runtime's to choose, by the output: docs/runtime.md).
    // So does a text answer other than text/plain (DigitalOcean's text/csv invoices): the runtime's Accept for a
    // text output (text/plain, application/json) would not cover it, and a strict server answers 406.
    const textAnswer =
      proposal.mediaType !== undefined &&
      /^text\/[^*;]+$/i.test(proposal.mediaType.trim()) &&
      proposal.mediaType.trim().toLowerCase() !== "text/plain" &&
      !Object.keys(headers).some((h) => h.toLowerCase() === "accept");
    // The media type is the document's text: written only when it cannot be read as a template.
    const accept = plainHeaderValue(proposal.mediaType?.trim());
    if ((placed.acceptFromResponse || textAnswer) && accept !== null && !accept.includes("*"))
      put(headers, "Accept", accept);
    const body = placeRequestBody(ctx, operation, inputs, headers);
    if (body === null) return null;
    applyCredentials(auth, query, headers);
    for (const [name, template] of Object.entries(credentialHeaders)) put(headers, name, template);

    const inputJson = inputs.schema();
    if (proposal.pageSize !== undefined) lowerPageSize(inputJson, query, proposal.pageSize);
    // A warning about hidden characters in a name or value (KV5018) is the check's to give, on the spec written.
    const limits = checkSchemaLimits(inputJson, []).filter((f) => f.code !== "KV5018");
    if (limits.length > 0) {
      const problem = limits[0]!.message.replace(/\.$/, "");
      throw new ImportProblem(report("KV7007", at, (m) => m.schemaLimit({ problem })));
    }
    this.#notes(notes);
    for (const [keyword, n] of converter.dropped)
      this.#inapplicable.set(keyword, (this.#inapplicable.get(keyword) ?? 0) + n);

    // Title and description: the summary is a title for people, the description is what the model reads.
    const summary = typeof op["summary"] === "string" ? cleanText(op["summary"], "line") : null;
    if (summary && summary.removed > 0)
      this.#report(
        removedCharacters([...at, "summary"], "summary", summary.removed, firstHidden(op["summary"] as string)),
      );
    const rawDescription = typeof op["description"] === "string" ? op["description"] : null;
    const description = rawDescription === null ? null : cleanText(rawDescription, "multiline");
    if (description && description.removed > 0)
      this.#report(
        removedCharacters([...at, "description"], "description", description.removed, firstHidden(rawDescription!)),
      );
    // The fallback quotes the path key, which may hold any character: it is visible text like the others.
    const fullDescription =
      description?.text || summary?.text || cleanText(`${method.toUpperCase()} ${route}`, "line").text;
    const shortened = shorten(fullDescription, MAX_TOOL_DESCRIPTION);
    if (shortened.cut)
      comments.push({ path: ["description"], text: `description shortened from ${fullDescription.length} characters` });

    const http: Record<string, unknown> = {
      method: method.toUpperCase(),
      url: `${server.url.origin}${basePath(server.url)}${placed.path}`,
    };
    if (server.url.protocol === "http:") http["allowInsecureHttp"] = true;
    if (Object.keys(query).length > 0) http["query"] = query;
    if (Object.keys(headers).length > 0) http["headers"] = headers;
    if (body.body !== undefined) http["body"] = body.body;
    if (body.form) http["bodyEncoding"] = "form";
    if (body.multipart) http["bodyEncoding"] = "multipart";
    // Optional headers (and optional body properties) are left out when absent: the kervanc extension omit-absent.
    if (placed.omitAbsent || body.omitAbsent === true) http["omitAbsent"] = true;

    // Every input goes where its values can be sent (KV3020): a schema that allows more is narrowed, or the
    // operation left out (encodable.ts).
    const encodable = narrowToRequest(inputJson, http as { url: string });
    if (encodable.unsendable !== null) {
      const ref = encodable.unsendable;
      this.#report(report("KV7010", at, (m) => m.notEncodable({ ref, operation: selectorOf(operation) })));
      return null;
    }
    for (const n of encodable.narrowed) {
      const operationName = selectorOf(operation);
      this.#report(
        report("KV7010", at, (m) =>
          n.place === "query"
            ? m.narrowedQuery({ name: n.name, operation: operationName })
            : n.place === "header"
              ? m.narrowedHeader({ name: n.name, operation: operationName })
              : m.narrowedPath({ name: n.name, operation: operationName }),
        ),
      );
    }

    const value: Record<string, unknown> = {
      name,
      ...(summary && summary.text !== "" && summary.text !== shortened.text ? { title: summary.text } : {}),
      description: shortened.text,
      annotations: ANNOTATIONS[method]!,
      ...(this.#options.toolsets === true && toolsetsOf(operation).length > 0 ? { tags: toolsetsOf(operation) } : {}),
      input: inputJson,
      http,
      output: proposal.output,
    };
    comments.push(...(body.comments ?? []), ...inputs.comments());
    if (proposal.comment !== "") comments.push({ path: ["output"], text: proposal.comment });
    const failures = proposeFailures(this.#resolver, op, at, method);
    if (failures.retry !== "") comments.push({ path: ["http"], text: failures.retry });
    if (failures.error !== "") comments.push({ path: ["output"], text: failures.error });
    const routeNote = `${method.toUpperCase()} ${route}${operation.operationId !== null && operation.operationId !== name ? ` (operationId ${operation.operationId})` : ""}`;
    comments.push({ path: [], text: routeNote });
    security.withoutAuth(auth.unsupported, name);
    if (server.passedOver !== undefined) {
      // Reported once per server list: the same message at the same place is shown once.
      this.#report(
        report("KV7017", server.at, (m) =>
          m.passedOver({ server: JSON.stringify(server.text), passedOver: JSON.stringify(server.passedOver) }),
        ),
      );
    }
    if (server.url.protocol === "http:") {
      // Reported once per server: the same message at the same place is shown once.
      const where = server.fromOption ? "--server-url" : "The server URL";
      this.#report(report("KV7013", server.at, (m) => m.plainHttp({ where, url: JSON.stringify(server.text) })));
    }
    return { operation, value, comments, secrets, server };
  }

  /**
   * Writes the spec, checks it with the compiler, and measures its tools/list. Under --skip-invalid, tools the
   * compiler refuses are left out (a warning each) and the rest written again.
   */
  #finish(all: readonly BuiltTool[], operations: number, noSchemes: boolean): ImportResult {
    let built = all;
    for (;;) {
      const { text, secretsList } = this.#write(built, operations);
      const bytes = new TextEncoder().encode(text);
      if (bytes.byteLength > MAX_SPEC_BYTES) {
        // Too large a spec is not one operation's fault: say how to choose; under --skip-invalid keep the
        // operations that fit, in document order, and name how many were left out.
        const keep = Math.max(1, Math.floor((built.length * MAX_SPEC_BYTES * 0.9) / bytes.byteLength));
        if (!this.#options.skipInvalid || keep >= built.length) {
          this.#report(
            report(
              "KV7011",
              ["paths"],
              (m) => {
                const size = { count: built.length, bytes: bytes.byteLength, max: MAX_SPEC_BYTES };
                return this.#options.skipInvalid ? m.specTooLargeSkipping(size) : m.specTooLarge(size);
              },
              { atKey: true },
            ),
          );
          return failed(this.#diagnostics(), operations);
        }
        const left = built.slice(keep);
        this.#report(
          report(
            "KV7011",
            ["paths"],
            (m) =>
              m.skippedTooLarge({
                skipped: left.length,
                count: built.length,
                bytes: bytes.byteLength,
                max: MAX_SPEC_BYTES,
                kept: keep,
                first: selectorOf(left[0]!.operation),
              }),
            { atKey: true, severity: "warning" },
          ),
        );
        built = built.slice(0, keep);
        continue;
      }
      const compiled = compileSpec(this.#outFile, bytes);
      const specDiagnostics: Diagnostic[] = [];
      const refused = new Set<number>();
      for (const d of compiled.diagnostics) {
        if (d.severity !== "error") {
          specDiagnostics.push(d);
          continue;
        }
        const index = /^tools\[(\d+)\]/.exec(d.path);
        const tool = index ? built[Number(index[1])] : undefined;
        const refusal = { code: d.code, path: d.path, message: d.message };
        if (tool !== undefined && this.#options.skipInvalid) {
          refused.add(Number(index![1]));
          this.#report(
            report(
              "KV7012",
              tool.operation.at,
              (m) => m.skipped({ operation: operationLabel(tool.operation), ...refusal }),
              {
                atKey: true,
                severity: "warning",
              },
            ),
          );
        } else
          this.#report(
            report(
              "KV7012",
              tool ? tool.operation.at : [],
              (m) =>
                tool !== undefined
                  ? m.toolRefused(refusal)
                  : d.path === ""
                    ? m.specRefusedWhole(refusal)
                    : m.specRefused(refusal),
              { atKey: tool !== undefined },
            ),
          );
      }
      if (refused.size > 0 && !this.#hasErrors()) {
        built = built.filter((_, i) => !refused.has(i));
        if (built.length === 0) {
          this.#report(
            report("KV7011", ["paths"], (m) => m.noneImportable, {
              atKey: true,
            }),
          );
          return failed(this.#diagnostics(), operations);
        }
        continue;
      }
      // The spec's own warnings are left out on failure: they would point into a file that is not written.
      if (this.#hasErrors()) return failed(this.#diagnostics(), operations);
      if (compiled.planned === null || compiled.loaded === null) {
        // No errors and no plan cannot happen; if it does, it is a bug in kervanc, not in the document.
        throw new Error("kervanc import: the imported spec has no errors but was not planned.");
      }
      if (noSchemes && !built.some((t) => t.secrets.length > 0)) {
        this.#report(report("KV7016", [], (m) => m.noSchemes));
      }
      this.#reportSecretHosts(built);
      const importDiagnostics = this.#diagnostics();
      const size = listingSize(compiled.planned);
      const budget = this.#options.toolsBudget ?? DEFAULT_TOOLS_BUDGET;
      const warning = overBudget(compiled.loaded, size, budget);
      if (warning !== null) specDiagnostics.push(warning);
      return {
        ok: true,
        diagnostics: [...importDiagnostics, ...specDiagnostics.sort(compareDiagnostics)],
        text,
        tools: built.map((t) => ({
          name: t.value["name"] as string,
          method: t.operation.method.toUpperCase(),
          route: t.operation.route,
          operationId: t.operation.operationId,
        })),
        operations,
        secrets: secretsList,
        size,
      };
    }
  }

  /**
   * A secret the written spec binds to more than one host (operations with servers of their own: a vendor's
   * document can so send its API key to another host): one KV7018 per secret, at the first tool that sends it
   * elsewhere than the first host, naming the tools per host.
   */
  #reportSecretHosts(built: readonly BuiltTool[]): void {
    const bySecret = new Map<string, Map<string, BuiltTool[]>>();
    for (const tool of built) {
      for (const secret of tool.secrets) {
        const hosts = bySecret.get(secret) ?? new Map<string, BuiltTool[]>();
        const host = hostPort(tool.server.url);
        hosts.set(host, [...(hosts.get(host) ?? []), tool]);
        bySecret.set(secret, hosts);
      }
    }
    for (const [secret, hosts] of bySecret) {
      if (hosts.size < 2) continue;
      const entries = [...hosts].sort((a, b) => (a[0] < b[0] ? -1 : 1));
      const named = entries.map(
        ([host, tools]) => `${host} (${toolList(tools.map((t) => t.value["name"] as string))})`,
      );
      const list = `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}`;
      const first = [...hosts.values()][1]![0]!;
      this.#report(report("KV7018", first.server.at, (m) => m.manyHosts({ secret, count: hosts.size, hosts: list })));
    }
  }

  /** The spec's text for these tools. */
  #write(built: readonly BuiltTool[], operations: number): { text: string; secretsList: string[] } {
    const info = own(this.#root, "info");
    const title = typeof own(info, "title") === "string" ? cleanText(own(info, "title") as string, "line").text : "";
    const rawVersion = own(info, "version");
    const version =
      shorten(
        cleanText(typeof rawVersion === "string" || typeof rawVersion === "number" ? String(rawVersion) : "", "line")
          .text,
        64,
      ).text || "0.0.0";
    const rawDescription = own(info, "description");
    let description: string | undefined;
    if (typeof rawDescription === "string") {
      const clean = cleanText(rawDescription, "multiline");
      if (clean.removed > 0)
        this.#report(
          removedCharacters(["info", "description"], "description", clean.removed, firstHidden(rawDescription)),
        );
      if (clean.text !== "") description = shorten(clean.text, MAX_SERVER_DESCRIPTION).text;
    }

    // Each secret is bound to the hosts of the tools that send it.
    const hosts = new Map<string, Set<string>>();
    for (const tool of built) {
      for (const secret of tool.secrets) {
        const set = hosts.get(secret) ?? new Set<string>();
        set.add(hostPort(tool.server.url));
        hosts.set(secret, set);
      }
    }
    // --upstream-auth: the client id and secret go to the token endpoint alone.
    const upstream = this.#upstreamAuth;
    for (const [secret, host] of upstream?.secrets() ?? []) hosts.set(secret, new Set([host]));
    const secretsList = [...hosts.keys()].sort();
    const extensions = [
      ...(built.some((t) => (t.value["http"] as Record<string, unknown>)["bodyEncoding"] === "form")
        ? ["form-body"]
        : []),
      ...(built.some((t) => t.value["tags"] !== undefined) ? ["toolsets"] : []),
      ...(upstream?.any === true ? ["upstream-auth"] : []),
      ...(built.some((t) => (t.value["http"] as Record<string, unknown>)["bodyEncoding"] === "multipart")
        ? ["multipart-body"]
        : []),
      ...(built.some((t) => "binary" in (t.value["output"] as Record<string, unknown>)) ? ["binary-output"] : []),
      ...(built.some((t) => (t.value["http"] as Record<string, unknown>)["omitAbsent"] === true)
        ? ["omit-absent"]
        : []),
    ].sort();
    const spec: Record<string, unknown> = {
      specVersion: 1,
      // Declared first, where a reader sees it: the spec then builds with kervanc only (KV8001).
      ...(extensions.length > 0 ? { kervancExtensions: extensions } : {}),
      name: serverNameFrom(title),
      version,
      ...(description !== undefined ? { description } : {}),
      ...(secretsList.length > 0
        ? { secrets: secretsList.map((name) => ({ name, hosts: [...hosts.get(name)!].sort() })) }
        : {}),
      ...(upstream?.any === true ? { credentials: upstream.entries() } : {}),
      tools: built.map((t) => t.value),
    };
    const comments: Comment[] = built.flatMap((tool, i) =>
      tool.comments.map((c) => ({ path: ["tools", i, ...c.path], text: c.text })),
    );
    if (secretsList.length > 0)
      comments.push({
        path: ["secrets"],
        text: "Each secret's value comes from the environment variable of the same name.",
      });
    if (extensions.length > 0) {
      const why = extensions.map((name) => EXTENSION_NOTES[name]!).join("; ");
      comments.push({
        path: ["kervancExtensions"],
        text: `${why}: this spec no longer runs on Kervan.\nSee ${extensions.map((name) => `docs/extensions/${name}.md`).join(", ")}.`,
      });
    }
    const upstreamNotes = upstream?.notes() ?? new Map<string, string>();
    secretsList.forEach((name, i) => {
      const note = upstreamNotes.get(name) ?? this.#secretNotes.get(name);
      if (note !== undefined) comments.push({ path: ["secrets", i], text: `${name}: ${note}` });
    });
    const openapi = String(this.#root["openapi"]);
    const header = [
      `Generated by kervanc import from ${basename(this.#source.file)} (OpenAPI ${openapi}): ${built.length} of ${operations} operation${operations === 1 ? "" : "s"}.`,
      'Review it before building: outputs marked "proposal" are guesses from the response schemas.',
    ];
    return { text: emitSpec(spec, header, comments), secretsList };
  }
}

/** Tool names for a message: five at most, then how many more. */
function toolList(names: readonly string[]): string {
  return names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`;
}

/** How a warning under --skip-invalid starts: which operation was left out. */
function skippedPrefix(operation: Operation): string {
  return `Skipped ${operationLabel(operation)} (--skip-invalid): `;
}

/** `GET /pets (listPets)`: an operation as messages name it. */
function operationLabel(operation: Operation): string {
  return `${operation.method.toUpperCase()} ${operation.route}${operation.operationId !== null ? ` (${operation.operationId})` : ""}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
