/**
 * The plan: the typed intermediate form of one compiled spec.
 *
 * The compiler's plan stage produces these values from a checked spec; the emit stage writes them into the
 * generated package as JSON literals; the runtime executes them. Nothing here is code: every field is plain
 * JSON data, so a plan can only describe requests, never run something the compiler did not write.
 *
 * The encoder of every template slot is fixed here, at build time, by the shape of the plan: a path part is
 * always percent-encoded as one segment, a query value is always form-encoded, a header value is always text
 * checked for control characters, and a body value is always a JSON value. No argument value can reach the
 * scheme, host, port, query names, body keys or header names, because those are literal strings in the plan.
 */
import type { SelectNode } from "./select/ast.ts";

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * A reference inside `{{ }}`: an input path (`input.a.b`), a declared secret (`secrets.NAME`), or a declared
 * upstream credential (`credentials.name`, kervanc extension upstream-auth).
 */
export type TemplateRef =
  | { readonly kind: "input"; readonly path: readonly string[] }
  | { readonly kind: "secret"; readonly name: string }
  | { readonly kind: "credential"; readonly name: string };

/** One part of a template: literal text, or a reference to be rendered by the slot's encoder. */
export type TemplatePart =
  { readonly kind: "text"; readonly text: string } | { readonly kind: "ref"; readonly ref: TemplateRef };

/** A parsed template: literal text and references, in order. */
export interface Template {
  readonly parts: readonly TemplatePart[];
}

/** A query parameter: the name is literal, each value is rendered with form encoding. */
export interface QueryParam {
  readonly name: string;
  readonly value: Template;
}

/** A header: the name is literal (a valid token), the value is rendered as text. */
export interface HeaderParam {
  readonly name: string;
  readonly value: Template;
}

/** A JSON body: literal subtrees stay literal; strings with references are rendered per the body rules. */
export type BodyNode =
  | { readonly kind: "literal"; readonly value: JsonValue }
  /** A string that is exactly one reference keeps the referenced value's JSON type (undefined becomes null). */
  | { readonly kind: "value"; readonly ref: TemplateRef }
  /** A string mixed with text renders as text. */
  | { readonly kind: "text"; readonly template: Template }
  | { readonly kind: "array"; readonly items: readonly BodyNode[] }
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, BodyNode])[] };

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RequestPlan {
  readonly method: HttpMethod;
  /** `https:` or `http:`. */
  readonly protocol: "https:" | "http:";
  /** WHATWG `url.origin`: scheme, host and port, literal. */
  readonly origin: string;
  /** WHATWG `url.host` (host plus a non-default port), used in messages. */
  readonly host: string;
  /** Normalized `hostname:port` with the scheme's default port filled in, used for secret bindings. */
  readonly hostPort: string;
  /** The normalized pathname, split into literal text and path-segment references. */
  readonly path: Template;
  /** The literal query string written in the URL (`""` or `?a=b`). */
  readonly search: string;
  readonly query: readonly QueryParam[];
  readonly headers: readonly HeaderParam[];
  readonly body: BodyNode | null;
  /**
   * The kervanc form-body extension: the body is sent form-encoded (form.ts); the multipart-body extension: as
   * multipart/form-data (multipart.ts). Absent: JSON.
   */
  readonly bodyEncoding?: "form" | "multipart";
  /** The multipart-body extension: the most decoded file bytes one request may send. */
  readonly maxUploadBytes?: number;
  /**
   * The kervanc omit-absent extension (render.ts): a header whose value is exactly one input reference is left out
   * when the value is absent or null, and a body key whose value is exactly one input reference when it is
   * absent. Absent: Kervan's rules (an error in a header, null in a body).
   */
  readonly omitAbsent?: true;
  /** The kervanc retry extension (retry.ts): which answers are retried, how often, how long to wait. Absent: none. */
  readonly retry?: RetryPlan;
}

export interface RetryPlan {
  /** Attempts in all, the first included (2 to 10). */
  readonly attempts: number;
  /** The statuses retried (429, 502, 503, 504 by default). */
  readonly on: readonly number[];
  /** The longest wait between attempts, whatever Retry-After says. */
  readonly maxDelayMs: number;
  /** The methods retried: the idempotent ones unless the spec names others. */
  readonly methods: readonly HttpMethod[];
}

export interface HttpLimits {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly allowInsecureHttp: boolean;
  readonly followRedirects: number;
}

export interface RateLimit {
  readonly perMinute: number;
  readonly concurrency: number;
}

export type OutputPlan =
  | {
      readonly kind: "select";
      /** The original expression, kept for messages and the README. */
      readonly expression: string;
      /** The JMESPath AST, parsed at build time. */
      readonly ast: SelectNode;
      /** Whether the tool has an output schema (then the value becomes `structuredContent`). */
      readonly structured: boolean;
      readonly maxOutputChars: number;
    }
  | { readonly kind: "raw"; readonly maxOutputChars: number }
  /** Binary answers only (kervanc extension binary-output, ToolPlan.binary): a text or JSON answer is an error. */
  | { readonly kind: "binary"; readonly maxOutputChars: number };

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** What `tools/list` publishes for one tool, exactly as it goes on the wire. */
export interface ToolListing {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations: ToolAnnotations;
  /** The kervanc views extension: the MCP Apps view of the tool's result (`ui.resourceUri`); absent without. */
  readonly _meta?: { readonly ui: { readonly resourceUri: string } };
}

export interface ToolPlan {
  readonly listing: ToolListing;
  readonly request: RequestPlan;
  readonly output: OutputPlan;
  readonly limits: HttpLimits;
  readonly rateLimit: RateLimit;
  /** The declared secrets this tool sends, sorted. */
  readonly secrets: readonly string[];
  /** The toolsets (the spec's `tags`, kervanc extension `toolsets`) the tool belongs to; absent for none. */
  readonly toolsets?: readonly string[];
  /** The kervanc error-detail extension (error-detail.ts): what of a non-2xx JSON answer follows the status. */
  readonly errorDetail?: { readonly expression: string; readonly ast: SelectNode; readonly maxChars: number };
  /**
   * The kervanc binary-output extension (binary-output.ts): a binary answer (an image, audio, a PDF) becomes an
   * MCP content block, up to `maxBytes`. Absent: a binary answer is refused, as in Kervan.
   */
  readonly binary?: { readonly maxBytes: number };
  /** The kervanc upstream-auth extension: the credentials this tool sends, sorted; absent for none. */
  readonly credentials?: readonly string[];
}

export interface SecretDeclaration {
  readonly name: string;
  /** Normalized `hostname:port` bindings; absent means the secret is not bound to hosts. */
  readonly hosts?: readonly string[];
  /**
   * Where the spec declares it, `kervan.yaml:7:5 secrets[0]`: a value refused at start is reported there, as
   * Kervan reports its load errors (`file:line:col path: message`).
   */
  readonly at?: string;
}

export interface ServerPlan {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly secrets: readonly SecretDeclaration[];
  /** The kervanc upstream-auth extension (credentials.ts): the spec's `credentials`, in spec order; absent for none. */
  readonly credentials?: readonly CredentialPlan[];
}

/**
 * One upstream credential (kervanc extension upstream-auth, docs/extensions/upstream-auth.md): a token the
 * server obtains from an OAuth token endpoint, or a value the MCP client sends in a header.
 */
export type CredentialPlan = TokenCredentialPlan | CallerHeaderCredentialPlan;

export interface TokenCredentialPlan {
  readonly name: string;
  /**
   * `clientCredentials`: RFC 6749 section 4.4, one token for the server. `tokenExchange`: RFC 8693, the caller's
   * verified OAuth access token exchanged for a token per caller.
   */
  readonly kind: "clientCredentials" | "tokenExchange";
  /** The token endpoint, an absolute https URL (plain http to loopback only under the development relaxation). */
  readonly tokenUrl: string;
  /** The endpoint's `protocol` and `hostname:port`: the one destination token requests may go to. */
  readonly protocol: "https:" | "http:";
  readonly hostPort: string;
  /** Literal text and `{{secrets.X}}` references only (the analyze stage refuses inputs here). */
  readonly clientId: Template;
  readonly clientSecret: Template;
  /** How the client authenticates (RFC 6749 section 2.3.1): HTTP Basic (the default) or form fields. */
  readonly clientAuth: "basic" | "body";
  readonly scopes?: readonly string[];
  readonly audience?: string;
  readonly resource?: string;
  /** The declared secrets the client id and secret use, sorted. */
  readonly secrets: readonly string[];
}

export interface CallerHeaderCredentialPlan {
  readonly name: string;
  readonly kind: "callerHeader";
  /** The header the MCP client sends on each Streamable HTTP request, lower-cased. */
  readonly header: string;
}

/** A validator compiled by Ajv at build time (standalone code): `errors` is set after a failed call. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: readonly ValidationIssue[] | null;
}

/** The subset of an Ajv error object the runtime reads. */
export interface ValidationIssue {
  readonly instancePath: string;
  readonly message?: string;
}

/**
 * What the server needs of a tool before its first call: its name (to find it), its scheme and host (for the
 * egress list) and the secrets it sends (to ask for them at start-up). Everything else waits for the first call.
 */
export interface ToolHead {
  readonly name: string;
  readonly protocol: RequestPlan["protocol"];
  readonly hostPort: string;
  readonly secrets: readonly string[];
  /** Present (true) when the tool is annotated readOnlyHint: true: `--read-only` serves only these. */
  readonly readOnly?: true;
  /** The toolsets (the spec's `tags`) the tool belongs to, when it has any: `--toolsets` selects by them. */
  readonly toolsets?: readonly string[];
}

/** What one generated tool module exports. */
export interface CompiledTool {
  /** Read on the tool's first call (a generated tool parses and freezes its plan then). */
  readonly plan: ToolPlan;
  readonly validateInput: CompiledValidator;
  readonly validateOutput: CompiledValidator | null;
  /** The generated tools' start-up head; absent, it is read from `plan`. */
  readonly head?: ToolHead;
  /** The generated tools' `tools/list` entry as JSON text; absent, `plan.listing` is published. */
  readonly listingJson?: string;
  /** The entry as each schema profile advertises it (`--schema-profile`), JSON, where it differs. */
  readonly profiles?: Readonly<Record<string, string>>;
}

/** What the generated server module assembles: the server plan and its tools in spec order. */
export interface CompiledServer {
  readonly plan: ServerPlan;
  readonly tools: readonly CompiledTool[];
  /** The kervanc views extension (serve/views.ts): the pages of the tools that have one; absent without views. */
  readonly views?: CompiledViews;
}

/**
 * One tool's view page as an MCP Apps resource (kervanc extension views). The page is `head`, the shared renderer
 * script, then the fixed end (serve/views.ts `viewHtml`): all of it written at build time.
 */
export interface ViewResource {
  /** `ui://<server>/<tool>`, each part percent-encoded. */
  readonly uri: string;
  /** The tool's name. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** The page up to its renderer script: markup, style and the tool's view description as JSON. */
  readonly head: string;
}

export interface CompiledViews {
  /** The renderer script, the same for every tool's page. */
  readonly renderer: string;
  readonly resources: readonly ViewResource[];
}
