/**
 * The Kervan spec format v1, written once.
 *
 * This is the source of truth for the structural checker, for the TypeScript type of a checked spec
 * (`SpecFile`), and for the editor JSON Schema. Limits are named constants here and nowhere else.
 */
import { MIN_SECRET_LENGTH } from "@kervanc/runtime/secrets";
import { report, type SpecPath } from "../diagnostics/diagnostic.ts";
import {
  array,
  bool,
  type Infer,
  int,
  json,
  literal,
  obj,
  opt,
  req,
  record,
  scalar,
  schema,
  str,
  union,
} from "./shape.ts";

export const SPEC_LIMITS = {
  maxSpecBytes: 1_048_576,
  maxTools: 200,
  maxSelectLength: 1000,
  /** The runtime refuses a shorter secret value at start; its constant, so the two cannot differ. */
  minSecretLength: MIN_SECRET_LENGTH,
  maxSecrets: 100,
  maxSecretHosts: 32,
  maxTimeoutMs: 120_000,
  maxResponseBytes: 52_428_800,
  maxOutputChars: 1_000_000,
  maxRedirects: 5,
} as const;

export const HTTP_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 1_048_576,
  maxOutputChars: 20_000,
  allowInsecureHttp: false,
  followRedirects: 0,
  rateLimit: { perMinute: 60, concurrency: 10 },
} as const;

export const SECRET_NAME = "^[A-Z][A-Z0-9_]{0,127}$";
export const TOOL_NAME = "^[A-Za-z0-9_.-]{1,128}$";
/** A toolset name (kervanc extension toolsets): served by `--toolsets a,b`, so no commas, spaces or dots. */
export const TOOLSET_NAME = "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$";
export const HOST_ENTRY = "^(?:[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.?|\\[[0-9A-Fa-f:.]+\\])(?::\\d{1,5})?$";

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const secretName = str({
  pattern: { source: SECRET_NAME, rule: "secretName" },
  doc: "The secret's name; its value comes from the environment variable of the same name.",
});

const hostEntry = str({
  max: 259,
  pattern: { source: HOST_ENTRY, rule: "host" },
  doc: "A host this secret may be sent to: `api.example.com` (port 443) or `api.example.com:8443`. Exact match, no wildcards.",
});

const hostItem = union([hostEntry], (v) =>
  isPlainObject(v) && Object.keys(v).length === 1
    ? (path: SpecPath) =>
        report("KV2011", path, (m) => m.hostAsMapping({ host: `${Object.keys(v)[0]}:${String(Object.values(v)[0])}` }))
    : hostEntry,
);

const boundSecret = obj(
  {
    name: req(secretName),
    hosts: req(
      array(hostItem, {
        min: 1,
        max: SPEC_LIMITS.maxSecretHosts,
        doc: "The only hosts (host:port) this secret may be sent to.",
      }),
    ),
  },
  "A secret bound to the hosts it may be sent to.",
);

const secretEntry = union(
  [secretName, boundSecret],
  (v) =>
    typeof v === "string"
      ? secretName
      : isPlainObject(v)
        ? boundSecret
        : (path: SpecPath) => report("KV2003", path, (m) => m.notSecret),
  "A secret the tools may use as {{secrets.NAME}}.",
);

const timeoutMs = int(
  100,
  SPEC_LIMITS.maxTimeoutMs,
  "Timeout of one HTTP hop in milliseconds (DNS, connect, response and body).",
);
const maxResponseBytes = int(
  1,
  SPEC_LIMITS.maxResponseBytes,
  "The largest response body read, counted on the wire and after decompression.",
);
const maxOutputChars = int(1, SPEC_LIMITS.maxOutputChars, "The longest text returned to the model (default 20000).");
const allowInsecureHttp = bool("Allow plain http:// URLs (never for tools that send secrets).");
const followRedirects = int(0, SPEC_LIMITS.maxRedirects, "How many redirects to follow (default 0: none).");

const rateLimit = obj(
  {
    perMinute: opt(int(1, 100_000, "Calls per minute, per process (default 60).")),
    concurrency: opt(int(1, 1000, "Calls running at once (default 10).")),
  },
  "Per-tool rate limits.",
);

const visibleLine = (max: number, doc: string) => str({ min: 1, max, visible: "line", doc });
/** Titles have no length rule in Kervan (an empty title is accepted), only the visible-text rule. */
const visibleTitle = (doc: string) => str({ visible: "line", doc });

const queryScalar = scalar();
const queryList = array(scalar());
const queryValue = union(
  [queryScalar, queryList],
  (v) => (Array.isArray(v) ? queryList : queryScalar),
  "A value, a template such as {{input.q}}, or a list of them (the parameter repeats).",
);

const http = obj(
  {
    method: opt(str({ enum: ["GET", "POST", "PUT", "PATCH", "DELETE"], doc: "The HTTP method (default GET)." })),
    url: req(
      str({ min: 1, doc: "An absolute https:// URL; the path may hold {{input.x}} and {{secrets.X}} templates." }),
    ),
    query: opt(record(queryValue, "Query parameters: literal names, values may be templates.")),
    headers: opt(
      record(scalar("A header value; may hold templates."), "Request headers: literal names, values may be templates."),
    ),
    body: opt(
      json(
        "A JSON body (POST, PUT, PATCH, DELETE). A string that is exactly one {{input.x}} keeps the value's JSON type.",
      ),
    ),
    bodyEncoding: opt(
      str({
        enum: ["json", "form", "multipart"],
        doc: "kervanc extensions form-body (docs/extensions/form-body.md: form sends the body as application/x-www-form-urlencoded) and multipart-body (docs/extensions/multipart-body.md: multipart sends it as multipart/form-data, with files). Each needs its kervancExtensions entry; not portable to Kervan.",
      }),
    ),
    maxUploadBytes: opt(
      int(
        1,
        SPEC_LIMITS.maxResponseBytes,
        "kervanc extension multipart-body: the most decoded file bytes one request may send (default 10485760, 10 MiB).",
      ),
    ),
    omitAbsent: opt(
      bool(
        "kervanc extension omit-absent (docs/extensions/omit-absent.md): a header or body key whose value is exactly one {{input.x}} is left out when the argument is absent, instead of an error (header) or null (body). Needs kervancExtensions: [omit-absent]; not portable to Kervan.",
      ),
    ),
    timeoutMs: opt(timeoutMs),
    maxResponseBytes: opt(maxResponseBytes),
    allowInsecureHttp: opt(allowInsecureHttp),
    followRedirects: opt(followRedirects),
    retry: opt(
      obj(
        {
          attempts: req(int(2, 10, "Attempts in all, the first included.")),
          on: opt(
            array(int(400, 599, "A status to retry."), {
              min: 1,
              max: 20,
              doc: "The statuses retried (default 429, 502, 503, 504).",
            }),
          ),
          maxDelayMs: opt(
            int(0, 60_000, "The longest wait between attempts (default 10000), whatever Retry-After says."),
          ),
          methods: opt(
            array(str({ enum: ["GET", "POST", "PUT", "PATCH", "DELETE"], doc: "A method to retry." }), {
              min: 1,
              max: 5,
              doc: "The methods retried (default GET, PUT, DELETE: the idempotent ones); name POST or PATCH to retry them too.",
            }),
          ),
        },
        "kervanc extension retry (docs/extensions/retry.md): retry answers such as 429 and 503, honouring Retry-After, within the tool's timeout. Needs kervancExtensions: [retry]; not portable to Kervan.",
      ),
    ),
  },
  "The HTTP request this tool makes.",
);

/** kervanc extension error-detail: what of a non-2xx JSON answer the model sees. */
const errorDetail = opt(
  obj(
    {
      select: req(
        str({
          min: 1,
          max: SPEC_LIMITS.maxSelectLength,
          doc: "A JMESPath expression over the error answer's (redacted) JSON; its result follows the status line.",
        }),
      ),
      maxChars: opt(int(1, 2000, "The longest detail shown (default 600).")),
    },
    "kervanc extension error-detail (docs/extensions/error-detail.md): show part of an error answer to the model, a prompt-injection surface. Needs kervancExtensions: [error-detail]; not portable to Kervan.",
  ),
);

/** kervanc extension binary-output: image, audio and other binary answers as MCP content blocks. */
const binaryOutput = opt(
  obj(
    {
      maxBytes: opt(
        int(
          1,
          SPEC_LIMITS.maxResponseBytes,
          "The largest binary answer returned (default 5242880, 5 MiB); larger is a tool error.",
        ),
      ),
    },
    "kervanc extension binary-output (docs/extensions/binary-output.md): an image/* answer becomes image content, audio/* audio content, any other binary type an embedded resource. Needs kervancExtensions: [binary-output]; not portable to Kervan.",
  ),
);

const selectOutput = obj(
  {
    binary: binaryOutput,
    error: errorDetail,
    select: req(
      str({ min: 1, max: SPEC_LIMITS.maxSelectLength, doc: "A JMESPath expression that picks what the model sees." }),
    ),
    schema: opt(
      schema(
        "A JSON Schema (2020-12) of the selected value; it becomes the tool's outputSchema and structuredContent.",
      ),
    ),
    view: opt(
      str({
        enum: ["auto", "table", "card", "none"],
        doc: "kervanc extension views (docs/extensions/views.md): an MCP Apps view of the structured result, drawn from output.schema: table for a list of objects, card for an object, auto picks one, none has no view. Needs kervancExtensions: [views]; not portable to Kervan.",
      }),
    ),
    maxOutputChars: opt(maxOutputChars),
  },
  "Select what the model sees with JMESPath.",
);
const rawOutput = obj(
  {
    binary: binaryOutput,
    error: errorDetail,
    raw: req(literal(true, "raw", "Return the response body as text.")),
    maxOutputChars: opt(maxOutputChars),
  },
  "Return the response body as text.",
);

/** Binary answers only (kervanc extension binary-output): a text or JSON answer is a tool error. */
const binaryOnlyOutput = obj(
  {
    binary: req(
      obj(
        {
          maxBytes: opt(
            int(1, SPEC_LIMITS.maxResponseBytes, "The largest binary answer returned (default 5242880, 5 MiB)."),
          ),
        },
        "kervanc extension binary-output: only binary answers; a text or JSON answer is a tool error.",
      ),
    ),
    error: errorDetail,
  },
  "Return binary answers as MCP content blocks (kervanc extension binary-output).",
);

const output = union(
  [selectOutput, rawOutput, binaryOnlyOutput],
  (v) => {
    if (!isPlainObject(v)) return selectOutput;
    const hasSelect = Object.hasOwn(v, "select");
    const hasRaw = Object.hasOwn(v, "raw");
    if (hasSelect && hasRaw) return (path: SpecPath) => report("KV2009", path, (m) => m.both);
    if (hasRaw) return rawOutput;
    if (hasSelect) return selectOutput;
    if (Object.hasOwn(v, "binary")) return binaryOnlyOutput;
    return (path: SpecPath) => report("KV2009", path, (m) => m.neither);
  },
  "What the model sees: select (JMESPath) or raw: true.",
);

export const toolShape = obj(
  {
    name: req(
      str({
        pattern: { source: TOOL_NAME, rule: "toolName" },
        doc: "The tool's name, unique in the spec.",
      }),
    ),
    title: opt(visibleTitle("A human-readable title, shown to people instead of the name.")),
    description: req(str({ min: 1, visible: "multiline", doc: "What the tool does; the model reads this." })),
    input: opt(schema("The JSON Schema (2020-12) of the arguments; type must be object.")),
    annotations: opt(
      obj(
        {
          title: opt(visibleTitle("A human-readable title (MCP annotations.title).")),
          readOnlyHint: opt(bool()),
          destructiveHint: opt(bool()),
          idempotentHint: opt(bool()),
          openWorldHint: opt(bool()),
        },
        "MCP tool annotations (openWorldHint defaults to true).",
      ),
    ),
    tags: opt(
      array(str({ pattern: { source: TOOLSET_NAME, rule: "toolsetName" }, doc: "A toolset this tool belongs to." }), {
        max: 16,
        doc: "kervanc extension toolsets (docs/extensions/toolsets.md): the toolsets this tool belongs to, which an operator can serve alone with --toolsets. Needs kervancExtensions: [toolsets]; not portable to Kervan.",
      }),
    ),
    rateLimit: opt(rateLimit),
    http: req(http),
    output: req(output),
  },
  "One MCP tool backed by one HTTP request.",
);

/** A credential's name (kervanc extension upstream-auth), as `{{credentials.<name>}}` names it. */
export const CREDENTIAL_NAME = "^[A-Za-z_][A-Za-z0-9_]{0,63}$";
/** An OAuth scope (RFC 6749 section 3.3: scope-token). */
const SCOPE_TOKEN = "^[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,200}$";

const UPSTREAM_AUTH = "kervanc extension upstream-auth (docs/extensions/upstream-auth.md)";

/** The fields both token credentials share: where the token endpoint is and how the server signs in to it. */
const tokenEndpointFields = {
  tokenUrl: req(str({ min: 1, max: 2000, doc: "The OAuth token endpoint: an absolute https:// URL." })),
  clientId: req(
    str({ min: 1, max: 2000, doc: "The client id: literal text or {{secrets.X}}, sent to the token endpoint only." }),
  ),
  clientSecret: req(
    str({
      min: 1,
      max: 2000,
      doc: "The client secret: {{secrets.X}} (never literal), sent to the token endpoint only.",
    }),
  ),
  scopes: opt(
    array(str({ pattern: { source: SCOPE_TOKEN, rule: "scope" }, doc: "An OAuth scope." }), {
      max: 50,
      doc: "The scopes asked for (the scope parameter, space-separated).",
    }),
  ),
  audience: opt(str({ min: 1, max: 2000, doc: "The audience parameter: what the token is for." })),
  resource: opt(
    str({ min: 1, max: 2000, doc: "The resource parameter (RFC 8707): an absolute URI the token is for." }),
  ),
  clientAuth: opt(
    str({
      enum: ["basic", "body"],
      doc: "How the client authenticates to the token endpoint (RFC 6749 2.3.1): basic (HTTP Basic, the default) or body (form fields).",
    }),
  ),
};

const clientCredentialsCredential = obj(
  {
    oauth2ClientCredentials: req(
      obj(
        tokenEndpointFields,
        "An OAuth 2.0 client credentials token (RFC 6749 4.4): fetched on first use, renewed before it expires and after a 401.",
      ),
    ),
  },
  "A token the server gets for itself from an OAuth token endpoint.",
);
const tokenExchangeCredential = obj(
  {
    tokenExchange: req(
      obj(
        tokenEndpointFields,
        "A token exchanged for the caller's verified OAuth access token (RFC 8693), per caller; needs OAuth on /mcp.",
      ),
    ),
  },
  "A token per caller, exchanged for the caller's own access token.",
);
const callerHeaderCredential = obj(
  {
    callerHeader: req(
      str({
        min: 1,
        max: 128,
        doc: "A header the MCP client sends on each Streamable HTTP request; its value is sent where the templates name it.",
      }),
    ),
  },
  "A value the MCP client sends in a header of its own request.",
);
const CREDENTIAL_KINDS = ["oauth2ClientCredentials", "tokenExchange", "callerHeader"] as const;

const credentialEntry = union(
  [clientCredentialsCredential, tokenExchangeCredential, callerHeaderCredential],
  (v) => {
    const kinds = isPlainObject(v) ? CREDENTIAL_KINDS.filter((kind) => Object.hasOwn(v, kind)) : [];
    if (kinds.length === 1)
      return kinds[0] === "oauth2ClientCredentials"
        ? clientCredentialsCredential
        : kinds[0] === "tokenExchange"
          ? tokenExchangeCredential
          : callerHeaderCredential;
    return (path: SpecPath) => report("KV8010", path, (m) => m.oneKind({ kinds: CREDENTIAL_KINDS.join(", ") }));
  },
  "One credential: oauth2ClientCredentials, tokenExchange or callerHeader.",
);

export const specShape = obj(
  {
    $schema: opt(str({ doc: "Ignored; for editors (yaml-language-server)." })),
    specVersion: req(literal(1, "specVersion", "The spec format version.")),
    name: req(visibleLine(128, "The server's name (MCP serverInfo.name).")),
    version: req(visibleLine(64, 'The server\'s version, as a string: quote it ("1.0").')),
    description: opt(str({ visible: "multiline", doc: "Instructions for the model (MCP instructions)." })),
    secrets: opt(array(secretEntry, { max: SPEC_LIMITS.maxSecrets, doc: "Secrets the tools may use." })),
    defaults: opt(
      obj(
        {
          http: opt(
            obj({
              timeoutMs: opt(timeoutMs),
              maxResponseBytes: opt(maxResponseBytes),
              maxOutputChars: opt(maxOutputChars),
              allowInsecureHttp: opt(allowInsecureHttp),
              followRedirects: opt(followRedirects),
            }),
          ),
          rateLimit: opt(rateLimit),
        },
        "Defaults for every tool.",
      ),
    ),
    credentials: opt(
      record(
        credentialEntry,
        `${UPSTREAM_AUTH}: upstream credentials the tools use as {{credentials.<name>}}. Needs kervancExtensions: [upstream-auth]; not portable to Kervan.`,
      ),
    ),
    tools: req(
      array(toolShape, { min: 1, max: SPEC_LIMITS.maxTools, doc: "The tools, in the order clients list them." }),
    ),
    kervancExtensions: opt(
      array(
        str({
          enum: [
            "binary-output",
            "error-detail",
            "form-body",
            "multipart-body",
            "omit-absent",
            "retry",
            "toolsets",
            "upstream-auth",
            "views",
          ],
          doc: "A kervanc extension this spec uses.",
        }),
        {
          max: 9,
          doc: "kervanc extensions to the format this spec uses (docs/extensions/). A spec that declares one runs with kervanc only, not Kervan.",
        },
      ),
    ),
  },
  "A Kervan spec (format v1): HTTP APIs as MCP tools.",
);

export type SpecFile = Infer<typeof specShape>;
export type ToolSpec = Infer<typeof toolShape>;
