/**
 * `kervanc import`: an OpenAPI 3.0 or 3.1 document to one Kervan spec (format v1).
 *
 * Each selected operation becomes a tool: path, query and header parameters become input properties used in
 * templates, a JSON request body becomes a `body` property sent as the body, API-key and bearer security
 * schemes become declared secrets bound to the server's host, and the success response gives a proposed
 * `output.select`. The text is then run through the compiler's own load, check and plan stages: an import
 * never hands back a spec that `kervanc build` would refuse. Nothing here touches the file system or the
 * network; the CLI reads and writes.
 *
 * Decisions (also in the README, "kervanc import"):
 * - A `$ref` cycle in a tool's input is an error (KV7006); in a response it only ends the proposal's walk.
 * - http basic, oauth2 and openIdConnect cannot be expressed: the operation is imported without
 *   authentication, with one warning per scheme (KV7009). An alternative (`security` lists them) that kervanc can
 *   express is preferred when there is one.
 * - A plain-http server is allowed for operations that send no secrets (`allowInsecureHttp: true`, warning
 *   KV7013); an operation that sends secrets to it is an error (KV7008), since secrets never travel over http.
 * - A JSON request body is always a required `body` property: OpenAPI's `required: false` is the default even
 *   where an API needs a body, and an omitted body would be sent as JSON null.
 * - Optional header parameters are left out (KV7010): a spec sends every header it names, and a missing value
 *   fails the call.
 */
import { basename } from "node:path";
import { compileSpec } from "../build.ts";
import { HEADER_NAME, RESERVED_HEADERS as SPEC_RESERVED_HEADERS } from "../check/request.ts";
import { checkSchemaLimits } from "../check/schema-limits.ts";
import { compareDiagnostics, type Diagnostic, type Finding, finding, formatPath, severityOf, type SpecPath } from "../diagnostics/diagnostic.ts";
import { locate } from "../load/load.ts";
import { DEFAULT_TOOLS_BUDGET, listingSize, type ListingSize, overBudgetMessage } from "./budget.ts";
import { readOpenApi, type OpenApiSource } from "./document.ts";
import { type Comment, emitSpec } from "./emit.ts";
import { identifierFrom, NameSet, MAX_TOOL_NAME, secretNameFrom, serverNameFrom, toolNameFrom, toolNameFromRoute } from "./names.ts";
import { isJsonMediaType, proposeOutput } from "./output.ts";
import { ImportProblem, isPlainObject, own, put, Resolver } from "./refs.ts";
import { type ConvertNote, firstHidden, type JsonSchema, MAX_SCHEMA_DESCRIPTION, type OpenApiVersion, SchemaConverter } from "./schema.ts";
import { cleanText, shorten } from "./text.ts";

export interface ImportOptions {
  /** Keep only operations with one of these tags, operationIds or `METHOD /path` routes. */
  readonly include?: readonly string[];
  /** Leave out operations with one of these tags, operationIds or routes. */
  readonly exclude?: readonly string[];
  /** Keep only GET operations. */
  readonly readOnly?: boolean;
  /** The API's base URL, instead of the document's `servers`. */
  readonly serverUrl?: string;
  /** KV9006 above this many estimated tokens of tools/list. */
  readonly toolsBudget?: number;
}

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
}

/** Tool descriptions are cut to this length (the model reads them in every listing); the spec notes the cut. */
export const MAX_TOOL_DESCRIPTION = 1000;
export const MAX_SERVER_DESCRIPTION = 1000;
/** Diagnostics shown per document, as build shows per spec (KV9005 counts the rest). */
const MAX_DIAGNOSTICS = 200;
/** The format's limit on tools in a spec. */
const MAX_TOOLS = 200;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const SUPPORTED_METHODS = new Set(["get", "put", "post", "delete", "patch"]);
/** Headers a spec may not set (the server manages them), and the one the importer sets itself. */
const RESERVED_HEADERS = new Set([...SPEC_RESERVED_HEADERS, "content-type"]);

const ANNOTATIONS: Readonly<Record<string, Record<string, boolean>>> = {
  get: { readOnlyHint: true },
  post: { readOnlyHint: false, destructiveHint: false },
  put: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  patch: { readOnlyHint: false, destructiveHint: true },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
};

interface Operation {
  readonly route: string;
  readonly method: string;
  readonly at: SpecPath;
  readonly op: Record<string, unknown>;
  readonly item: Record<string, unknown>;
  readonly itemAt: SpecPath;
  readonly operationId: string | null;
  readonly tags: readonly string[];
}

type Credential =
  | { readonly kind: "header"; readonly name: string; readonly prefix: string }
  | { readonly kind: "query"; readonly name: string }
  | { readonly kind: "cookie"; readonly name: string };

type SchemeInfo = { readonly ok: true; readonly credential: Credential; readonly at: SpecPath } | { readonly ok: false; readonly what: string; readonly at: SpecPath };

interface Server {
  readonly url: URL;
  readonly text: string;
  readonly at: SpecPath;
  readonly fromOption: boolean;
}

interface Param {
  readonly name: string;
  readonly in: string;
  readonly required: boolean;
  readonly at: SpecPath;
  readonly schema: unknown;
  readonly schemaAt: SpecPath;
  readonly description: string | undefined;
  readonly explode: boolean;
}

interface BuiltTool {
  readonly operation: Operation;
  readonly value: Record<string, unknown>;
  readonly comments: readonly Comment[];
  readonly secrets: readonly string[];
  readonly server: Server;
}

export function importOpenApi(file: string, bytes: Uint8Array, outFile: string, options: ImportOptions = {}): ImportResult {
  const read = readOpenApi(file, bytes);
  if (!read.ok) {
    const diagnostics = read.problems.map((p): Diagnostic => ({ code: p.code, severity: "error", file, line: p.line, column: p.column, path: "", message: p.message }));
    return failed(diagnostics, 0);
  }
  return new Importer(read.source, outFile, options).run();
}

function failed(diagnostics: Diagnostic[], operations: number): ImportResult {
  return { ok: false, diagnostics: diagnostics.sort(compareDiagnostics), text: null, tools: [], operations, secrets: [], size: null };
}

class Importer {
  readonly #source: OpenApiSource;
  readonly #outFile: string;
  readonly #options: ImportOptions;
  readonly #resolver: Resolver;
  readonly #root: Record<string, unknown>;
  readonly #findings: Finding[] = [];
  #version: OpenApiVersion = "3.0";
  readonly #secretNames = new Map<string, string>();
  readonly #secretNameSet = new NameSet();
  readonly #schemes = new Map<string, SchemeInfo | null>();
  /** Unsupported schemes, with the tools imported without them. */
  readonly #unsupported = new Map<string, { info: Extract<SchemeInfo, { ok: false }>; tools: string[] }>();
  readonly #servers = new Map<string, Server | ImportProblem>();

  constructor(source: OpenApiSource, outFile: string, options: ImportOptions) {
    this.#source = source;
    this.#outFile = outFile;
    this.#options = options;
    this.#resolver = new Resolver(source.value);
    this.#root = isPlainObject(source.value) ? source.value : {};
  }

  run(): ImportResult {
    if (!isPlainObject(this.#source.value)) {
      this.#report(finding("KV7003", [], "The document is not an OpenAPI document: its top level is not a mapping."));
      return failed(this.#diagnostics(), 0);
    }
    if (!this.#checkVersion()) return failed(this.#diagnostics(), 0);
    const operations = this.#operations();
    const selected = this.#select(operations);
    if (selected === null) return failed(this.#diagnostics(), operations.length);

    const toolNames = new NameSet(MAX_TOOL_NAME);
    const built: BuiltTool[] = [];
    for (const operation of selected) {
      const name = toolNames.take(operation.operationId !== null ? toolNameFrom(operation.operationId) : toolNameFromRoute(operation.method, operation.route));
      try {
        const tool = this.#tool(operation, name);
        if (tool !== null) built.push(tool);
      } catch (error) {
        if (!(error instanceof ImportProblem)) throw error;
        this.#reportProblem(error, operation, name);
      }
    }
    this.#reportUnsupported();
    if (built.length === 0 && !this.#hasErrors()) {
      this.#report(finding("KV7011", ["paths"], "None of the selected operations can be imported (see the warnings above).", { atKey: true }));
    }
    if (this.#hasErrors()) return failed(this.#diagnostics(), operations.length);
    return this.#finish(built, operations.length);
  }

  #report(f: Finding): void {
    this.#findings.push(f);
  }

  #hasErrors(): boolean {
    return this.#findings.some((f) => severityOf(f) === "error");
  }

  #diagnostics(): Diagnostic[] {
    const seen = new Set<string>();
    const out: Diagnostic[] = [];
    for (const f of this.#findings) {
      const { line, column } = this.#source.position(f.path, f.atKey ?? false);
      const d: Diagnostic = { code: f.code, severity: severityOf(f), file: this.#source.file, line, column, path: formatPath(f.path), message: f.message };
      // Two operations that share a component report its problems once.
      const key = `${d.code}\u0000${d.path}\u0000${d.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(d);
    }
    out.sort(compareDiagnostics);
    if (out.length <= MAX_DIAGNOSTICS) return out;
    // Past this many, a document is mostly what kervanc cannot express: show the first ones and count the rest.
    const rest = out.slice(MAX_DIAGNOSTICS);
    const errors = rest.filter((d) => d.severity === "error").length;
    const last = out[MAX_DIAGNOSTICS - 1]!;
    const note: Diagnostic = {
      code: "KV9005",
      severity: errors > 0 ? "error" : "warning",
      file: this.#source.file,
      line: last.line,
      column: last.column,
      path: "",
      message: `${rest.length} more problems in this file (${errors} errors) are not shown; fix the ones above first.`,
    };
    return [...out.slice(0, MAX_DIAGNOSTICS), note];
  }

  #checkVersion(): boolean {
    const openapi = this.#root["openapi"];
    if (this.#root["swagger"] !== undefined && openapi === undefined) {
      this.#report(finding("KV7003", ["swagger"], "This is a Swagger 2.0 document; kervanc import reads OpenAPI 3.0 and 3.1 (convert it first, for example with swagger2openapi).", { atKey: true }));
      return false;
    }
    if (typeof openapi !== "string") {
      this.#report(finding("KV7003", openapi === undefined ? [] : ["openapi"], 'The document has no "openapi" version string (such as "3.1.0"); is it an OpenAPI document?'));
      return false;
    }
    const match = /^3\.([01])\.\d+(-.+)?$/.exec(openapi);
    if (!match) {
      this.#report(finding("KV7003", ["openapi"], `OpenAPI ${openapi} is not supported; kervanc import reads OpenAPI 3.0 and 3.1.`));
      return false;
    }
    this.#version = match[1] === "0" ? "3.0" : "3.1";
    const paths = this.#root["paths"];
    if (paths !== undefined && paths !== null && !isPlainObject(paths)) {
      this.#report(finding("KV7003", ["paths"], "paths must be a mapping from paths to path items."));
      return false;
    }
    return true;
  }

  /** Every operation in document order: paths in order, and methods in the order each path item lists them. */
  #operations(): Operation[] {
    const out: Operation[] = [];
    const paths = this.#root["paths"];
    if (!isPlainObject(paths)) return out;
    for (const [route, rawItem] of Object.entries(paths)) {
      if (route.startsWith("x-")) continue;
      const itemPath: SpecPath = ["paths", route];
      let item;
      try {
        item = this.#resolver.deref(rawItem, itemPath);
      } catch (error) {
        if (!(error instanceof ImportProblem)) throw error;
        this.#report(finding(error.code, error.path, error.message));
        continue;
      }
      if (!isPlainObject(item.value)) {
        this.#report(finding("KV7003", itemPath, "A path item must be a mapping of operations."));
        continue;
      }
      if (!route.startsWith("/")) {
        this.#report(finding("KV7003", itemPath, `The path ${JSON.stringify(route)} does not start with "/".`, { atKey: true }));
        continue;
      }
      for (const method of Object.keys(item.value)) {
        if (!METHODS.includes(method)) continue;
        const op = item.value[method];
        const at = [...item.path, method];
        if (!isPlainObject(op)) {
          this.#report(finding("KV7003", at, "An operation must be a mapping."));
          continue;
        }
        const operationId = typeof op["operationId"] === "string" && op["operationId"] !== "" ? op["operationId"] : null;
        const tags = Array.isArray(op["tags"]) ? op["tags"].filter((t): t is string => typeof t === "string") : [];
        out.push({ route, method, at, op, item: item.value, itemAt: item.path, operationId, tags });
      }
    }
    return out;
  }

  /** Applies --include, --exclude and --read-only; null when the selection is an error. */
  #select(operations: readonly Operation[]): Operation[] | null {
    const include = this.#options.include ?? [];
    const exclude = this.#options.exclude ?? [];
    const matches = (op: Operation, selector: string): boolean => {
      if (op.operationId === selector || op.tags.includes(selector)) return true;
      const route = /^([A-Za-z]+)\s+(\/\S*)$/.exec(selector);
      return route !== null && route[1]!.toLowerCase() === op.method && route[2] === op.route;
    };
    let ok = true;
    for (const [option, selectors] of [["--include", include], ["--exclude", exclude]] as const) {
      for (const selector of selectors) {
        if (!operations.some((op) => matches(op, selector))) {
          this.#report(finding("KV7011", [], `${option} ${JSON.stringify(selector)} matches no tag, operationId or route ("GET /path") of an operation.`));
          ok = false;
        }
      }
    }
    if (!ok) return null;
    const selected: Operation[] = [];
    for (const op of operations) {
      if (include.length > 0 && !include.some((s) => matches(op, s))) continue;
      if (exclude.some((s) => matches(op, s))) continue;
      if (this.#options.readOnly && op.method !== "get") continue;
      if (!SUPPORTED_METHODS.has(op.method)) {
        this.#report(finding("KV7010", op.at, `${op.method.toUpperCase()} operations cannot be tools (a spec's methods are GET, POST, PUT, PATCH and DELETE); the operation is left out.`, { atKey: true }));
        continue;
      }
      selected.push(op);
    }
    if (operations.length === 0) {
      this.#report(finding("KV7011", this.#root["paths"] === undefined ? [] : ["paths"], "The document has no operations to import.", { atKey: true }));
      return null;
    }
    if (selected.length === 0) {
      this.#report(finding("KV7011", ["paths"], "No operation is left to import after --include, --exclude and --read-only.", { atKey: true }));
      return null;
    }
    if (selected.length > MAX_TOOLS) {
      this.#report(
        finding("KV7011", ["paths"], `${selected.length} operations are selected, but a spec holds at most ${MAX_TOOLS} tools; choose with --include, --exclude or --read-only.`, { atKey: true }),
      );
      return null;
    }
    return selected;
  }

  #reportProblem(problem: ImportProblem, operation: Operation, toolName: string): void {
    const selector = operation.operationId ?? `${operation.method.toUpperCase()} ${operation.route}`;
    const leaveOut = `leave the operation out (--exclude ${/\s/.test(selector) ? JSON.stringify(selector) : selector})`;
    if (problem.code === "KV7006") {
      this.#report(finding("KV7006", problem.path, `${problem.message}; ${leaveOut} or cut the cycle in the document.`));
    } else if (problem.code === "KV7007") {
      this.#report(
        finding("KV7007", operation.at, `The input schema of ${toolName}, with its $refs inlined, ${problem.message} (the spec's limit). ${capitalize(leaveOut)} or simplify its schemas.`, {
          atKey: true,
        }),
      );
    } else this.#report(finding(problem.code, problem.path, problem.message));
  }

  #notes(notes: readonly ConvertNote[]): void {
    for (const note of notes) {
      if (note.removed !== undefined) {
        this.#report(finding("KV7014", note.path, removedMessage(String(note.path[note.path.length - 1] ?? "text"), note.removed.count, note.removed.first)));
      } else this.#report(finding("KV7010", note.path, note.message));
    }
  }

  /** One tool, or null when the operation is left out (with a warning). Throws ImportProblem for errors. */
  #tool(operation: Operation, name: string): BuiltTool | null {
    const { op, at, method, route } = operation;
    const notes: ConvertNote[] = [];
    const converter = new SchemaConverter(this.#resolver, this.#version, notes);
    const comments: Comment[] = [];

    const server = this.#server(operation);
    const { credentials: auth, unsupported } = this.#auth(operation);
    const secrets = auth.map((a) => a.secret);
    if (secrets.length > 0 && server.url.protocol === "http:") {
      throw new ImportProblem(
        "KV7008",
        server.at,
        `The server URL ${JSON.stringify(server.text)} uses plain http, and ${name} sends secrets, which never travel over plain http. Give an https URL${server.fromOption ? "" : " with --server-url"}, or leave the operation out.`,
      );
    }
    const proposal = proposeOutput(this.#resolver, op, at);
    if (proposal.skip) {
      this.#report(finding("KV7010", proposal.skip.path, proposal.skip.message));
      return null;
    }
    if (proposal.warning) this.#report(finding("KV7010", proposal.warning.path, proposal.warning.message));

    // Input properties: path parameters in the order the path uses them, then query, header and body.
    const properties: [string, JsonSchema][] = [];
    const required: string[] = [];
    const taken = new Set<string>();
    const propertyName = (base: string, location: string): string => {
      let candidate = base;
      if (taken.has(candidate)) candidate = location === "body" ? "request_body" : `${base}_${location}`;
      for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${location}_${n}`;
      taken.add(candidate);
      return candidate;
    };
    const addProperty = (param: { name: string; required: boolean; description: string | undefined; schema: unknown; schemaAt: SpecPath }, location: string): string => {
      const id = propertyName(identifierFrom(param.name), location);
      let schema = param.schema === undefined ? { type: "string" } : converter.convert(param.schema, param.schemaAt);
      if (param.description !== undefined) schema = withDescription(schema, param.description);
      properties.push([id, schema]);
      if (param.required) required.push(id);
      return id;
    };
    const describe = (text: unknown, path: SpecPath): string | undefined => {
      if (typeof text !== "string") return undefined;
      const clean = cleanText(text, "multiline");
      if (clean.removed > 0) this.#report(finding("KV7014", path, removedMessage("description", clean.removed, firstHidden(text))));
      return clean.text === "" ? undefined : shorten(clean.text, MAX_SCHEMA_DESCRIPTION).text;
    };

    const params = this.#parameters(operation, describe);
    const credentialNames = new Set(auth.flatMap((a) => (a.credential.kind === "cookie" ? [] : [`${a.credential.kind}:${a.credential.name.toLowerCase()}`])));

    // The path: {name} becomes {{input.<id>}}; literal braces are percent-encoded so they stay text.
    const pathParams = new Map(params.filter((p) => p.in === "path").map((p) => [p.name, p]));
    let path = "";
    const parts = route.split(/(\{[^{}]*\})/);
    for (const part of parts) {
      const variable = /^\{([^{}]*)\}$/.exec(part);
      if (variable === null) {
        path += part.replace(/\{/g, "%7B").replace(/\}/g, "%7D");
        continue;
      }
      const param = pathParams.get(variable[1]!);
      if (param !== undefined && !isScalarSchema(this.#resolver, param.schema, param.schemaAt)) {
        this.#report(finding("KV7010", param.at, `The path parameter "${param.name}" is not a string, number or boolean, which a spec cannot put in a path; the operation is left out.`));
        return null;
      }
      const id = addProperty(param ?? { name: variable[1]!, required: true, description: undefined, schema: undefined, schemaAt: at }, "path");
      if (!required.includes(id)) required.push(id);
      path += `{{input.${id}}}`;
    }
    for (const param of params) {
      if (param.in === "path" && !route.includes(`{${param.name}}`)) {
        this.#report(finding("KV7010", param.at, `The path parameter "${param.name}" does not appear in the path ${route}; it is left out.`));
      }
    }

    const query: Record<string, unknown> = {};
    const headers: Record<string, unknown> = {};
    // Query parameters before headers, so names collide (and get suffixes) in a fixed order of places.
    const order = ["cookie", "query", "header"];
    for (const param of [...params].sort((a, b) => order.indexOf(a.in) - order.indexOf(b.in))) {
      if (param.in === "cookie") {
        this.#report(finding("KV7010", param.at, `The cookie parameter "${param.name}" is left out: a spec sends no cookies from arguments.`));
        continue;
      }
      if (param.in === "query") {
        if (credentialNames.has(`query:${param.name.toLowerCase()}`)) continue;
        if (param.name.includes("{{")) {
          this.#report(finding("KV7010", param.at, `The query parameter "${param.name}" is left out: a query name cannot contain "{{".`));
          continue;
        }
        const kind = valueKind(this.#resolver, param.schema, param.schemaAt);
        if (kind === "complex") {
          this.#report(finding("KV7010", param.at, `The query parameter "${param.name}" is an object or a list of objects, which a spec cannot serialize into a query; it is left out.`));
          continue;
        }
        if (kind === "array" && !param.explode) {
          this.#report(finding("KV7010", param.at, `The query parameter "${param.name}" asks for comma-separated values (explode: false); a spec repeats the parameter for each value instead (${param.name}=a&${param.name}=b).`));
        }
        put(query, param.name, `{{input.${addProperty(param, "query")}}}`);
      }
      if (param.in === "header") {
        const lower = param.name.toLowerCase();
        if (credentialNames.has(`header:${lower}`)) continue;
        if (lower === "authorization" || lower === "cookie") {
          this.#report(finding("KV7010", param.at, `The header parameter "${param.name}" carries credentials, which must not come from the model; it is left out. Declare a security scheme, or add the header with {{secrets.NAME}} by hand.`));
          continue;
        }
        if (!HEADER_NAME.test(param.name) || RESERVED_HEADERS.has(lower)) {
          this.#report(finding("KV7010", param.at, `The header parameter "${param.name}" is left out: a spec cannot set that header.`));
          continue;
        }
        if (!param.required) {
          this.#report(finding("KV7010", param.at, `The optional header parameter "${param.name}" is left out: a spec sends every header it names, so a call without it would fail. Add it by hand with a fixed value if needed.`));
          continue;
        }
        if (valueKind(this.#resolver, param.schema, param.schemaAt) !== "scalar") {
          this.#report(finding("KV7010", param.at, `The header parameter "${param.name}" is not a string, number or boolean; it is left out.`));
          continue;
        }
        put(headers, param.name, `{{input.${addProperty(param, "header")}}}`);
      }
    }

    // The JSON request body, sent as the value of one `body` property.
    let body: string | undefined;
    const requestBodyAt = [...at, "requestBody"];
    if (op["requestBody"] !== undefined) {
      const requestBody = this.#resolver.deref(op["requestBody"], requestBodyAt);
      const content = own(requestBody.value, "content");
      const types = isPlainObject(content) ? Object.keys(content) : [];
      const jsonType = types.find((t) => t.split(";")[0]!.trim().toLowerCase() === "application/json") ?? types.find((t) => isJsonMediaType(t) && !t.includes("*"));
      const bodyRequired = own(requestBody.value, "required") === true;
      if (method === "get") {
        this.#report(finding("KV7010", requestBody.path, `A GET request cannot have a body in a spec; ${bodyRequired ? "the operation is left out" : "the body is left out"}.`));
        if (bodyRequired) return null;
      } else if (jsonType === undefined) {
        this.#report(
          finding("KV7010", requestBody.path, `The request body is ${types.join(", ") || "not described"}; a spec sends JSON bodies only, so ${bodyRequired ? "the operation is left out" : "the body is left out"}.`),
        );
        if (bodyRequired) return null;
      } else {
        const mediaAt = [...requestBody.path, "content", jsonType];
        const schema = own(own(content, jsonType), "schema");
        const id = propertyName("body", "body");
        let converted: JsonSchema = schema === undefined ? {} : converter.convert(schema, [...mediaAt, "schema"]);
        const description = describe(own(requestBody.value, "description"), [...requestBody.path, "description"]);
        if (description !== undefined) converted = withDescription(converted, description);
        properties.push([id, converted]);
        required.push(id);
        body = `{{input.${id}}}`;
        const mediaType = jsonType.split(";")[0]!.trim();
        if (mediaType.toLowerCase() !== "application/json") headers["Content-Type"] = mediaType;
      }
    }

    for (const a of auth) {
      const template = `{{secrets.${a.secret}}}`;
      if (a.credential.kind === "query") put(query, a.credential.name, template);
      else if (a.credential.kind === "header") put(headers, a.credential.name, `${a.credential.prefix}${template}`);
    }
    const cookies = auth.filter((a) => a.credential.kind === "cookie").map((a) => `${a.credential.name}={{secrets.${a.secret}}}`);
    if (cookies.length > 0) headers["Cookie"] = cookies.join("; ");

    const propertyMap: Record<string, unknown> = {};
    for (const [id, schema] of properties) put(propertyMap, id, schema);
    const input: Record<string, unknown> = { type: "object", properties: propertyMap, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
    const inputJson = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
    const limits = checkSchemaLimits(inputJson, []);
    if (limits.length > 0) {
      const fragment = `breaks the spec's schema limits: ${limits[0]!.message.replace(/\.$/, "")}`;
      throw new ImportProblem("KV7007", at, fragment);
    }
    this.#notes(notes);

    // Title and description: the summary is a title for people, the description is what the model reads.
    const summary = typeof op["summary"] === "string" ? cleanText(op["summary"], "line") : null;
    if (summary && summary.removed > 0) this.#report(finding("KV7014", [...at, "summary"], removedMessage("summary", summary.removed, firstHidden(op["summary"] as string))));
    const rawDescription = typeof op["description"] === "string" ? op["description"] : null;
    const description = rawDescription === null ? null : cleanText(rawDescription, "multiline");
    if (description && description.removed > 0) this.#report(finding("KV7014", [...at, "description"], removedMessage("description", description.removed, firstHidden(rawDescription!))));
    const fullDescription = description?.text || summary?.text || `${method.toUpperCase()} ${route}`;
    const shortened = shorten(fullDescription, MAX_TOOL_DESCRIPTION);
    if (shortened.cut) comments.push({ path: ["description"], text: `description shortened from ${fullDescription.length} characters` });

    const http: Record<string, unknown> = { method: method.toUpperCase(), url: `${server.url.origin}${basePath(server.url)}${path}` };
    if (server.url.protocol === "http:") http["allowInsecureHttp"] = true;
    if (Object.keys(query).length > 0) http["query"] = query;
    if (Object.keys(headers).length > 0) http["headers"] = headers;
    if (body !== undefined) http["body"] = body;

    const value: Record<string, unknown> = {
      name,
      ...(summary && summary.text !== "" && summary.text !== shortened.text ? { title: summary.text } : {}),
      description: shortened.text,
      annotations: ANNOTATIONS[method]!,
      input: inputJson,
      http,
      output: proposal.output,
    };
    if (proposal.comment !== "") comments.push({ path: ["output"], text: proposal.comment });
    const routeNote = `${method.toUpperCase()} ${route}${operation.operationId !== null && operation.operationId !== name ? ` (operationId ${operation.operationId})` : ""}`;
    comments.push({ path: [], text: routeNote });
    this.#withoutAuth(unsupported, name);
    if (server.url.protocol === "http:") {
      // Reported once per server: the same message at the same place is shown once.
      const where = server.fromOption ? "--server-url" : "The server URL";
      this.#report(finding("KV7013", server.at, `${where} ${JSON.stringify(server.text)} uses plain http; the spec sets allowInsecureHttp: true, so requests and answers travel unencrypted.`));
    }
    return { operation, value, comments, secrets, server };
  }

  /** The operation's parameters: the path item's, overridden by the operation's own (same name and place). */
  #parameters(operation: Operation, describe: (text: unknown, path: SpecPath) => string | undefined): Param[] {
    const byKey = new Map<string, Param>();
    const lists: [unknown, SpecPath][] = [
      [operation.item["parameters"], [...operation.itemAt, "parameters"]],
      [operation.op["parameters"], [...operation.at, "parameters"]],
    ];
    for (const [list, listAt] of lists) {
      if (list === undefined) continue;
      if (!Array.isArray(list)) throw new ImportProblem("KV7003", listAt, "parameters must be a list.");
      list.forEach((raw, i) => {
        const { value, path } = this.#resolver.deref(raw, [...listAt, i]);
        const name = own(value, "name");
        const location = own(value, "in");
        if (typeof name !== "string" || typeof location !== "string" || !["path", "query", "header", "cookie"].includes(location)) {
          throw new ImportProblem("KV7003", path, 'A parameter needs a name and an "in" of path, query, header or cookie.');
        }
        let schema = own(value, "schema");
        let schemaAt = [...path, "schema"];
        const content = own(value, "content");
        if (schema === undefined && isPlainObject(content)) {
          const type = Object.keys(content)[0];
          if (type !== undefined) {
            schema = own(own(content, type), "schema");
            schemaAt = [...path, "content", type, "schema"];
          }
        }
        const style = own(value, "style");
        const explode = own(value, "explode");
        byKey.set(`${location}:${location === "header" ? name.toLowerCase() : name}`, {
          name,
          in: location,
          required: location === "path" || own(value, "required") === true,
          at: path,
          schema,
          schemaAt,
          description: describe(own(value, "description"), [...path, "description"]),
          // OpenAPI's default for query parameters is style form with explode true: a=1&a=2.
          explode: typeof explode === "boolean" ? explode : style === undefined || style === "form",
        });
      });
    }
    return [...byKey.values()];
  }

  /** The server an operation calls: --server-url, else the operation's, path item's or document's first server. */
  #server(operation: Operation): Server {
    let text: string;
    let at: SpecPath;
    let fromOption = false;
    let variables: unknown;
    if (this.#options.serverUrl !== undefined) {
      text = this.#options.serverUrl;
      at = [];
      fromOption = true;
    } else {
      const candidates: [unknown, SpecPath][] = [
        [operation.op["servers"], [...operation.at, "servers"]],
        [operation.item["servers"], [...operation.itemAt, "servers"]],
        [this.#root["servers"], ["servers"]],
      ];
      const found = candidates.find(([list]) => Array.isArray(list) && list.length > 0);
      if (found === undefined) {
        throw new ImportProblem("KV7008", [], 'The document names no server (no "servers" list); give the API\'s URL with --server-url.');
      }
      const first = (found[0] as unknown[])[0];
      at = [...found[1], 0];
      const url = own(first, "url");
      if (typeof url !== "string") throw new ImportProblem("KV7003", at, "A server needs a url string.");
      text = url;
      at = [...at, "url"];
      variables = own(first, "variables");
    }
    const key = `${JSON.stringify(at)}\u0000${text}`;
    const cached = this.#servers.get(key);
    if (cached instanceof ImportProblem) throw cached;
    if (cached !== undefined) return cached;
    try {
      const server = this.#parseServer(text, at, variables, fromOption);
      this.#servers.set(key, server);
      return server;
    } catch (error) {
      if (error instanceof ImportProblem) this.#servers.set(key, error);
      throw error;
    }
  }

  #parseServer(text: string, at: SpecPath, variables: unknown, fromOption: boolean): Server {
    const where = fromOption ? "--server-url" : "The server URL";
    const substituted = text.replace(/\{([^{}]*)\}/g, (whole, name: string) => {
      const value = own(own(variables, name), "default");
      if (typeof value !== "string" && typeof value !== "number") {
        throw new ImportProblem("KV7008", at, `${where} ${JSON.stringify(text)} uses the variable {${name}}, which has no default value.`);
      }
      return String(value);
    });
    let url: URL;
    try {
      url = new URL(substituted);
    } catch {
      throw new ImportProblem("KV7008", at, `${where} ${JSON.stringify(text)} is relative; give the API's absolute URL${fromOption ? "" : " with --server-url"}.`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new ImportProblem("KV7008", at, `${where} ${JSON.stringify(text)} is not an http or https URL.`);
    if (url.username !== "" || url.password !== "") throw new ImportProblem("KV7008", at, `${where} ${JSON.stringify(text)} contains credentials; declare a security scheme instead.`);
    if (url.search !== "" || url.hash !== "") throw new ImportProblem("KV7008", at, `${where} ${JSON.stringify(text)} has a query or a #fragment; give the base URL only.`);
    return { url, text, at, fromOption };
  }

  /** The credentials an operation sends: the first alternative of its security requirement that a spec can express. */
  #auth(operation: Operation): { credentials: { credential: Credential; secret: string }[]; unsupported: string[] } {
    const own_ = operation.op["security"];
    const requirement = own_ !== undefined ? own_ : this.#root["security"];
    const requirementAt: SpecPath = own_ !== undefined ? [...operation.at, "security"] : ["security"];
    const none = { credentials: [], unsupported: [] };
    if (requirement === undefined || requirement === null) return none;
    if (!Array.isArray(requirement)) throw new ImportProblem("KV7003", requirementAt, "security must be a list of security requirements.");
    if (requirement.length === 0) return none;
    let optional = false;
    let firstUnsupported: string[] | null = null;
    for (const alternative of requirement) {
      if (!isPlainObject(alternative)) continue;
      const names = Object.keys(alternative);
      if (names.length === 0) {
        optional = true;
        continue;
      }
      const infos = names.map((n) => [n, this.#scheme(n, requirementAt)] as const);
      if (infos.every(([, info]) => info?.ok === true)) {
        return { credentials: infos.map(([n, info]) => ({ credential: (info as Extract<SchemeInfo, { ok: true }>).credential, secret: this.#secretName(n) })), unsupported: [] };
      }
      firstUnsupported ??= infos.filter(([, info]) => info?.ok !== true).map(([n]) => n);
    }
    // An empty alternative ({}) means the operation also works without credentials: nothing is missing.
    return { credentials: [], unsupported: optional || firstUnsupported === null ? [] : firstUnsupported };
  }

  /** Records that a tool was imported without the credentials of schemes a spec cannot express. */
  #withoutAuth(schemes: readonly string[], toolName: string): void {
    for (const name of schemes) {
      const info = this.#schemes.get(name);
      if (info === undefined || info === null || info.ok) continue;
      const entry = this.#unsupported.get(name) ?? { info, tools: [] };
      entry.tools.push(toolName);
      this.#unsupported.set(name, entry);
    }
  }

  #scheme(name: string, requirementAt: SpecPath): SchemeInfo | null {
    if (this.#schemes.has(name)) return this.#schemes.get(name)!;
    const at: SpecPath = ["components", "securitySchemes", name];
    const raw = own(own(this.#root["components"], "securitySchemes"), name);
    let info: SchemeInfo | null;
    if (raw === undefined) {
      this.#report(finding("KV7003", requirementAt, `The security scheme "${name}" is not declared in components.securitySchemes.`));
      info = null;
    } else {
      const { value, path } = this.#resolver.deref(raw, at);
      const type = own(value, "type");
      if (type === "apiKey") {
        const keyName = own(value, "name");
        const location = own(value, "in");
        if (typeof keyName !== "string" || keyName === "") info = { ok: false, what: "apiKey without a name", at: path };
        else if (location === "header") {
          info = HEADER_NAME.test(keyName) && !RESERVED_HEADERS.has(keyName.toLowerCase()) ? { ok: true, credential: { kind: "header", name: keyName, prefix: "" }, at: path } : { ok: false, what: `apiKey in the header "${keyName}", which a spec cannot set`, at: path };
        } else if (location === "query") {
          info = keyName.includes("{{") ? { ok: false, what: "apiKey with a templated query name", at: path } : { ok: true, credential: { kind: "query", name: keyName }, at: path };
        } else if (location === "cookie") {
          info = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(keyName) ? { ok: true, credential: { kind: "cookie", name: keyName }, at: path } : { ok: false, what: "apiKey in a cookie with an unusual name", at: path };
        } else info = { ok: false, what: "apiKey without a valid \"in\"", at: path };
      } else if (type === "http") {
        const scheme = String(own(value, "scheme") ?? "").toLowerCase();
        info = scheme === "bearer" ? { ok: true, credential: { kind: "header", name: "Authorization", prefix: "Bearer " }, at: path } : { ok: false, what: `http ${scheme || "(no scheme)"}`, at: path };
      } else info = { ok: false, what: typeof type === "string" ? type : "(no type)", at: path };
    }
    this.#schemes.set(name, info);
    return info;
  }

  #secretName(scheme: string): string {
    let name = this.#secretNames.get(scheme);
    if (name === undefined) {
      name = this.#secretNameSet.take(secretNameFrom(scheme));
      this.#secretNames.set(scheme, name);
    }
    return name;
  }

  #reportUnsupported(): void {
    for (const [name, { info, tools }] of this.#unsupported) {
      const list = tools.length <= 5 ? tools.join(", ") : `${tools.slice(0, 5).join(", ")} and ${tools.length - 5} more`;
      const subject = tools.length === 1 ? `${list} is` : `${tools.length} operations (${list}) are`;
      this.#report(
        finding("KV7009", info.at, `The security scheme "${name}" (${info.what}) is not supported; ${subject} imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.`, {
          atKey: true,
        }),
      );
    }
  }

  /** Writes the spec, checks it with the compiler, and measures its tools/list. */
  #finish(built: readonly BuiltTool[], operations: number): ImportResult {
    const info = own(this.#root, "info");
    const title = typeof own(info, "title") === "string" ? cleanText(own(info, "title") as string, "line").text : "";
    const rawVersion = own(info, "version");
    const version = shorten(cleanText(typeof rawVersion === "string" || typeof rawVersion === "number" ? String(rawVersion) : "", "line").text, 64).text || "0.0.0";
    const rawDescription = own(info, "description");
    let description: string | undefined;
    if (typeof rawDescription === "string") {
      const clean = cleanText(rawDescription, "multiline");
      if (clean.removed > 0) this.#report(finding("KV7014", ["info", "description"], removedMessage("description", clean.removed, firstHidden(rawDescription))));
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
    const secretsList = [...hosts.keys()].sort();
    const spec: Record<string, unknown> = {
      specVersion: 1,
      name: serverNameFrom(title),
      version,
      ...(description !== undefined ? { description } : {}),
      ...(secretsList.length > 0 ? { secrets: secretsList.map((name) => ({ name, hosts: [...hosts.get(name)!].sort() })) } : {}),
      tools: built.map((t) => t.value),
    };
    const comments: Comment[] = built.flatMap((tool, i) => tool.comments.map((c) => ({ path: ["tools", i, ...c.path], text: c.text })));
    if (secretsList.length > 0) comments.push({ path: ["secrets"], text: "Each secret's value comes from the environment variable of the same name." });
    const openapi = String(this.#root["openapi"]);
    const header = [
      `Generated by kervanc import from ${basename(this.#source.file)} (OpenAPI ${openapi}): ${built.length} of ${operations} operation${operations === 1 ? "" : "s"}.`,
      'Review it before building: outputs marked "proposal" are guesses from the response schemas.',
    ];
    const text = emitSpec(spec, header, comments);

    const compiled = compileSpec(this.#outFile, new TextEncoder().encode(text));
    const specDiagnostics: Diagnostic[] = [];
    for (const d of compiled.diagnostics) {
      if (d.severity === "warning") {
        specDiagnostics.push(d);
        continue;
      }
      const index = /^tools\[(\d+)\]/.exec(d.path);
      const tool = index ? built[Number(index[1])] : undefined;
      const message = `kervanc build would refuse the ${tool ? "tool made from this operation" : "imported spec"}: ${d.code} ${d.path === "" ? "" : `${d.path}: `}${d.message}`;
      this.#report(finding("KV7012", tool ? tool.operation.at : [], message, { atKey: tool !== undefined }));
    }
    // The spec's own warnings are left out on failure: they would point into a file that is not written.
    if (this.#hasErrors()) return failed(this.#diagnostics(), operations);
    if (compiled.planned === null || compiled.loaded === null) {
      // No errors and no plan cannot happen; if it does, it is a bug in kervanc, not in the document.
      throw new Error("kervanc import: the imported spec has no errors but was not planned.");
    }
    const importDiagnostics = this.#diagnostics();
    const size = listingSize(compiled.planned);
    const budget = this.#options.toolsBudget ?? DEFAULT_TOOLS_BUDGET;
    if (size.tokens > budget) {
      const { line, column } = locate(compiled.loaded, ["tools"], undefined, true);
      specDiagnostics.push({ code: "KV9006", severity: "warning", file: this.#outFile, line, column, path: "tools", message: overBudgetMessage(size, budget) });
    }
    return {
      ok: true,
      diagnostics: [...importDiagnostics, ...specDiagnostics.sort(compareDiagnostics)],
      text,
      tools: built.map((t) => ({ name: t.value["name"] as string, method: t.operation.method.toUpperCase(), route: t.operation.route, operationId: t.operation.operationId })),
      operations,
      secrets: secretsList,
      size,
    };
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function removedMessage(what: string, count: number, first: number): string {
  const hex = first.toString(16).toUpperCase().padStart(4, "0");
  return `The ${what} has ${count} invisible or control character${count === 1 ? "" : "s"} (U+${hex}${count === 1 ? "" : " first"}), which the spec format refuses; ${count === 1 ? "it was" : "they were"} removed.`;
}

/** The server URL's path without a trailing slash, so `/v2` + `/pets` joins to `/v2/pets`. */
function basePath(url: URL): string {
  return url.pathname.replace(/\/+$/, "");
}

/** `host:port` as a secret binding states it, with the scheme's default port written out. */
function hostPort(url: URL): string {
  return `${url.hostname}:${url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"}`;
}

/** The description of a parameter or body goes on its schema (a `$ref`'d schema's own description gives way). */
function withDescription(schema: JsonSchema, description: string): JsonSchema {
  if (typeof schema === "boolean") return schema ? { description } : { description, not: {} };
  // First, where a reader of the spec looks for it.
  const { description: _replaced, ...rest } = schema;
  return { description, ...rest };
}

/** Whether a parameter's values are scalars, arrays of scalars, or something a query cannot carry. */
function valueKind(resolver: Resolver, schema: unknown, at: SpecPath): "scalar" | "array" | "complex" {
  if (schema === undefined) return "scalar";
  const { value } = resolver.deref(schema, at);
  const types = typesOf(value);
  if (types.includes("object")) return "complex";
  if (types.includes("array")) {
    const items = resolver.deref(own(value, "items"), [...at, "items"]).value;
    const itemTypes = typesOf(items);
    return itemTypes.includes("object") || itemTypes.includes("array") ? "complex" : "array";
  }
  return "scalar";
}

function isScalarSchema(resolver: Resolver, schema: unknown, at: SpecPath): boolean {
  return valueKind(resolver, schema, at) === "scalar";
}

function typesOf(schema: unknown): string[] {
  const type = own(schema, "type");
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  if (isPlainObject(own(schema, "properties"))) return ["object"];
  return [];
}
