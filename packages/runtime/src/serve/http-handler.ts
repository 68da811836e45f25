/**
 * Streamable HTTP as a web-standard fetch handler: what Node (through node-http.ts), Workers, Deno and Bun all
 * serve.
 *
 * The SDK's `createMcpHandler` owns the protocol (2026-07-28 requests statelessly, 2025-11-25 clients per
 * request with no session, GET/DELETE answered 405 for them, the MCP headers checked against the body, request
 * bodies capped). In front of it: one path (`/mcp`), and the DNS-rebinding defences: the Host header must name
 * an allowed host, and a browser's Origin must too. Both lists default to localhost only. Then authentication
 * (auth.ts) and the per-client request limit, keyed by the token's subject when authentication is on and by
 * the client's address otherwise. `GET /healthz` answers without authentication and never calls an upstream;
 * in OAuth mode the protected-resource metadata is served too.
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isJsonContentType,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type AuthInfo,
  type McpRequestContext,
  type Server,
} from "@modelcontextprotocol/server";
import type { Authenticator } from "./auth.ts";
import { VERIFIED_OAUTH } from "../secrets/credentials/caller.ts";
import { clientKey } from "./client-address.ts";
import { oneLine, throttledLog } from "./log.ts";
import type { ClientRateLimit } from "./rate-limit.ts";

/** The largest request body read (the SDK answers 413 beyond it). */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
export const MCP_PATH = "/mcp";
export const HEALTH_PATH = "/healthz";

/** What /healthz reports. */
export interface HealthInfo {
  readonly name: string;
  readonly version: string;
  readonly tools: number;
}

/** What the serving platform knows about a request that the web Request does not carry. */
export interface RequestInfo {
  /**
   * The client's address (after --trust-proxy), for the per-client limit when authentication is off and for
   * failed attempts at a token; counted by clientKey (an IPv6 address by its /64).
   */
  readonly clientAddress?: string;
  /**
   * The request's body, when the platform reads it itself (node-http.ts): `request` then carries none. It is
   * taken only once the request has passed the checks here, and a JSON body is handed to the SDK parsed.
   */
  readonly body?: () => Promise<Uint8Array>;
  /** The request's peer is one of the operator's `--trust-proxy` ranges: a relay the operator runs and named. */
  readonly trustedPeer?: boolean;
  /** The request's HTTP version (`1.0`, `1.1`) where the platform says it: Node does, fetch platforms do not. */
  readonly httpVersion?: string;
}

/** A request refused before it reached the MCP handler, for the log. */
export interface Refusal {
  readonly status: number;
  readonly reason: string;
}

export interface HttpHandlerOptions {
  /** Host names (no port) the Host header may name; default localhost, 127.0.0.1 and [::1]. */
  readonly allowedHosts?: readonly string[];
  /** Host names a browser Origin may name; default as allowedHosts. */
  readonly allowedOrigins?: readonly string[];
  readonly responseMode?: "auto" | "json" | "sse";
  /**
   * The SDK's reports (mostly of malformed requests): each message is one line of at most MAX_REPORT_CHARS
   * characters, and at most one every 10 s is passed on (log.ts).
   */
  readonly onerror?: (error: Error) => void;
  readonly auth?: Authenticator | null;
  readonly clientLimit?: ClientRateLimit | null;
  readonly health?: HealthInfo;
  /** Called once per request refused here (401, 403, 404, 429), with a reason that never holds a token. */
  readonly onrefused?: (refusal: Refusal) => void;
  /**
   * Refuse requests relayed by a proxy the operator did not name (relaySign: a relay header or HTTP/1.0, from a
   * peer outside `--trust-proxy`): set when the server has no authentication and was not told
   * `--insecure-no-auth`. A reverse proxy on the same host (nginx's default `proxy_pass http://127.0.0.1:3000`
   * sends `Host: 127.0.0.1:3000`) would otherwise serve every public client through the loopback-only default,
   * secrets included.
   */
  readonly refuseRelayed?: { readonly fix: string; readonly log: (line: string) => void };
}

/**
 * Headers a proxy adds to what it relays (RFC 7239's Forwarded and Via, and the de facto X-Forwarded-* and
 * X-Real-IP): a client on this host talking to the server directly sends none of them.
 */
export const RELAY_HEADERS = [
  "forwarded",
  "x-forwarded-for",
  "x-real-ip",
  "x-forwarded-host",
  "x-forwarded-proto",
  "via",
] as const;

/** The first relay header a request carries, or null. */
export function relayHeader(headers: Headers): string | null {
  for (const name of RELAY_HEADERS) if (headers.has(name)) return name;
  return null;
}

/**
 * What shows that a proxy relayed a request, for the log, or null: one of RELAY_HEADERS, or HTTP/1.0. nginx's
 * `proxy_pass` adds none of those headers unless configured to (by default it sets only `Host: $proxy_host` and
 * `Connection: close`), but it speaks HTTP/1.0 to what it relays unless told `proxy_http_version 1.1`; MCP
 * clients speak HTTP/1.1 or later. A proxy that adds no header and speaks HTTP/1.1 (HAProxy without
 * `option forwardfor`) cannot be told from a client on this host: docs/runtime.md says so.
 */
export function relaySign(headers: Headers, httpVersion: string | undefined): string | null {
  const header = relayHeader(headers);
  if (header !== null) return `it carries ${header}`;
  return httpVersion === "1.0" ? "it came over HTTP/1.0, as nginx relays by default" : null;
}

export interface HttpHandler {
  fetch(request: Request, info?: RequestInfo): Promise<Response>;
  close(): Promise<void>;
}

const UNPARSED = Symbol("unparsed");
const decoder = new TextDecoder();

/**
 * The body as the SDK would parse it, or UNPARSED when the SDK would not (or could not): only a POST with a
 * JSON content type, within the SDK's size cap, decoded as it decodes (UTF-8, a byte-order mark dropped,
 * malformed bytes replaced), non-empty and valid JSON. The SDK takes such a value as `parsedBody` and skips
 * cloning the request and reading its body through a web stream, most of its per-request work here.
 */
export function parsedJsonBody(request: Request, body: Uint8Array): unknown {
  if (request.method !== "POST" || body.byteLength > MAX_REQUEST_BODY_BYTES) return UNPARSED;
  if (!isJsonContentType(request.headers.get("content-type"))) return UNPARSED;
  const text = decoder.decode(body);
  if (text.length === 0) return UNPARSED;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNPARSED;
  }
}

/** Whether a request's Content-Encoding leaves the body as it is: absent, empty or `identity`. */
function identityCoding(value: string | null): boolean {
  return value === null || /^[\t ]*(?:identity[\t ]*)?$/i.test(value);
}

export function createHttpHandler(
  factory: (context?: McpRequestContext) => Server,
  options: HttpHandlerOptions = {},
): HttpHandler {
  const allowedHosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [
    ...(options.allowedOrigins ?? (options.allowedHosts ? options.allowedHosts : localhostAllowedOrigins())),
  ];
  const onerror = options.onerror;
  // The SDK reports every malformed request, quoting parts of it: one short line each, and not one per request.
  const report = onerror !== undefined ? throttledLog((line) => onerror(new Error(line)), "reports") : undefined;
  const relayed = options.refuseRelayed;
  // One line that says how to fix it, the first time and then at most once a minute, not one per request.
  let relayLogged = -Infinity;
  const mcp = createMcpHandler(factory, {
    legacy: "stateless",
    responseMode: options.responseMode ?? "auto",
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    ...(report !== undefined ? { onerror: (error: Error) => report(oneLine(error.message)) } : {}),
  });
  return {
    async fetch(request: Request, info: RequestInfo = {}): Promise<Response> {
      const url = new URL(request.url);
      const refuse = (response: Response, reason: string): Response => {
        options.onrefused?.({ status: response.status, reason });
        return response;
      };
      if (
        url.pathname === HEALTH_PATH &&
        options.health !== undefined &&
        (request.method === "GET" || request.method === "HEAD")
      ) {
        return new Response(request.method === "HEAD" ? null : JSON.stringify({ status: "ok", ...options.health }), {
          status: 200,
          headers: { "content-type": "application/json", "cache-control": "no-store" },
        });
      }
      const auth = options.auth ?? null;
      if (auth !== null && auth.metadataPaths.includes(url.pathname) && request.method === "GET")
        return auth.metadata();
      if (url.pathname !== MCP_PATH)
        return refuse(
          new Response("Not found. The MCP endpoint is /mcp.\n", {
            status: 404,
            headers: { "content-type": "text/plain" },
          }),
          "not found",
        );
      const refused =
        hostHeaderValidationResponse(request, allowedHosts) ?? originValidationResponse(request, allowedOrigins);
      if (refused) return refuse(refused, "Host or Origin not allowed");
      if (relayed !== undefined && info.trustedPeer !== true) {
        const sign = relaySign(request.headers, info.httpVersion);
        if (sign !== null) {
          const now = Date.now();
          if (now - relayLogged >= 60_000) {
            relayLogged = now;
            relayed.log(
              `Warning: refused a request relayed by a proxy (${sign}) with 403: this server has no authentication, and serves only clients on its own host. Behind a reverse proxy, configure ${relayed.fix}.`,
            );
          }
          return refuse(
            new Response(
              "Forbidden: this server has no authentication and serves only clients on its own host; this request came through a proxy. The operator must configure authentication.\n",
              { status: 403, headers: { "content-type": "text/plain" } },
            ),
            `relayed (${sign}) without authentication`,
          );
        }
      }
      const tooMany = (wait: number): Response =>
        refuse(
          new Response("Too many requests.\n", {
            status: 429,
            headers: { "content-type": "text/plain", "retry-after": String(wait) },
          }),
          "client rate limit",
        );
      let client = clientKey(info.clientAddress ?? "");
      let authInfo: AuthInfo | undefined;
      if (auth !== null) {
        // Failed attempts count against the address, and an address that has spent its limit on them waits out
        // its minute before any credential of its is checked again, a valid one included: answering the right
        // guess at once would let guessing go on at full speed (a 429 for each wrong token, a 200 for the right
        // one), and each attempt would still cost a signature check.
        // The attempt is counted before the (asynchronous) check and given back when the credential is good, so
        // at most the limit's number of checks run per address and minute, however many arrive at once: counted
        // after the check, 600 requests at once all passed the check before any was counted.
        const failures = `unauthenticated ${client}`;
        const attemptAt = Date.now();
        const locked = options.clientLimit?.take(failures, attemptAt) ?? 0;
        if (locked > 0) return tooMany(locked);
        const verdict = await auth.check(request);
        if (!verdict.ok) return refuse(verdict.response, "not authenticated");
        options.clientLimit?.giveBack(failures, attemptAt);
        client = verdict.subject;
        // Handed to the tools/call handler (mcp.ts callerOf) for the upstream-auth extension's token exchange.
        if (verdict.accessToken !== undefined)
          authInfo = {
            token: verdict.accessToken.token,
            clientId: verdict.subject,
            scopes: [],
            expiresAt: verdict.accessToken.exp,
            extra: { [VERIFIED_OAUTH]: true },
          };
      }
      const wait = options.clientLimit?.take(client, Date.now()) ?? 0;
      if (wait > 0) return tooMany(wait);
      // A compressed request body would reach the SDK as bytes that are not JSON and be answered as a parse
      // error; say what is wrong instead (RFC 9110 section 8.4.1, and RFC 7694's Accept-Encoding in the answer).
      if (request.method === "POST" && !identityCoding(request.headers.get("content-encoding")))
        return refuse(
          new Response("Content-Encoding is not supported here: send the request body uncompressed.\n", {
            status: 415,
            headers: { "content-type": "text/plain", "accept-encoding": "identity" },
          }),
          "request body content encoding",
        );
      const passed = authInfo !== undefined ? { authInfo } : {};
      if (info.body === undefined) return mcp.fetch(request, passed);
      const body = await info.body();
      const parsed = parsedJsonBody(request, body);
      if (parsed !== UNPARSED) return mcp.fetch(request, { ...passed, parsedBody: parsed });
      // Anything else (not JSON, empty, too large) goes to the SDK as it came, for its own answer.
      return mcp.fetch(
        new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal }),
        passed,
      );
    },
    close: () => mcp.close(),
  };
}
