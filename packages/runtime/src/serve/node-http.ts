/**
 * Serving the fetch handler from `node:http`, without a framework.
 *
 * The adapter reads the request body into memory (charged to a process-wide budget) and hands it to the handler
 * beside a body-less web `Request`: the handler takes the body only once the request passed its checks, and gives
 * the SDK a JSON body already parsed (http-handler.ts). A JSON `Response` is written back in one piece, SSE is
 * streamed, and the request's signal is aborted when the client goes away. Besides, what a public socket needs: the
 * client's address for the handler's per-client limit (see client-address.ts for --trust-proxy), the body budget
 * (503/413 before reading, see body-budget.ts), timeouts on slow headers and slow bodies, a refusal of
 * absolute-form targets that name another authority, and a drain on shutdown.
 */
import type http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  BodyBudget,
  type BodyLimits,
  type BodyRefusal,
  type BodyTicket,
  DEFAULT_BODY_LIMITS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  isRefusal,
} from "./body-budget.ts";
import { clientAddress, trusted } from "./client-address.ts";
import { throttledLog } from "./log.ts";
import { nodeRequest, readBody } from "./node-request.ts";
import type { HttpHandler } from "./http-handler.ts";
import type { IpRange } from "../net/ip.ts";

export interface ServeLimits extends BodyLimits {
  /** The whole request (headers and body) must arrive within this; 408 otherwise. */
  readonly requestTimeoutMs: number;
  /** The headers must arrive within this (never more than requestTimeoutMs); 408 otherwise. */
  readonly headersTimeoutMs: number;
  /** A client that takes nothing of its response for this long is disconnected. */
  readonly sendTimeoutMs: number;
}

/**
 * The defaults of server.mjs's --max-bodies, --max-body-memory, --request-timeout, --headers-timeout and
 * --send-timeout.
 */
export const DEFAULT_SERVE_LIMITS: ServeLimits = {
  ...DEFAULT_BODY_LIMITS,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  headersTimeoutMs: 10_000,
  sendTimeoutMs: 30_000,
};

export interface NodeHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly log: (line: string) => void;
  readonly limits?: Partial<ServeLimits>;
  /** The --trust-proxy ranges: connections from them may name the client in X-Forwarded-For. */
  readonly trustProxy?: readonly IpRange[];
}

export interface NodeHttpServer {
  /** The URL of the MCP endpoint, with the port actually bound. */
  readonly url: string;
  /** Stops accepting, waits for requests in flight (at most `drainMs`), then closes every connection. */
  close(drainMs: number): Promise<void>;
}

/** The origin every request's URL is built on: the Host header is checked by the handler, never used in URLs. */
const TARGET_BASE = "http://127.0.0.1";

/**
 * Methods a web `Request` cannot carry (the fetch standard forbids them). CONNECT never reaches the request
 * listener; TRACE and TRACK would, and are answered 405 here rather than failing to become a `Request`.
 */
const UNSERVED_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * The path and query of the request target, or null when it must be refused. Origin-form (`/mcp`) is the
 * normal case. Absolute-form (`http://host/mcp`) is what a proxy sends; it is accepted only when its authority
 * is the Host header's, because the Host check (the DNS-rebinding defence) reads the header, and a target
 * naming another authority would be served under a name the check never saw.
 */
export function requestTarget(target: string, hostHeader: string | undefined): string | null {
  if (target.startsWith("/")) {
    // Read as the URL the handler will be given: a target that does not parse (`//[`), or that names an
    // authority once read (`//evil.example/mcp`, and `/\evil.example/mcp`, since a URL reads `\` as `/`),
    // is not a path.
    let url: URL;
    try {
      url = new URL(target, TARGET_BASE);
    } catch {
      return null;
    }
    return url.origin === TARGET_BASE ? url.pathname + url.search : null;
  }
  if (!/^https?:\/\//i.test(target) || hostHeader === undefined) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  if (url.username !== "" || url.password !== "") return null;
  const authority = /^https?:\/\/([^/?#]*)/i.exec(target)?.[1]?.toLowerCase();
  if (authority !== hostHeader.toLowerCase()) return null;
  return url.pathname + url.search;
}

/** A body is coming when the request declares one (a length above zero, or chunked). */
function declaredBody(req: http.IncomingMessage): { has: boolean; length: number | null } {
  if (req.headers["transfer-encoding"] !== undefined) return { has: true, length: null };
  const length = req.headers["content-length"];
  if (length === undefined) return { has: false, length: 0 };
  const n = Number(length);
  return { has: n > 0, length: n };
}

/**
 * Answers at once, before any of the body is read. The body is then read and thrown away as it arrives (it is
 * never kept, and the request timeout bounds how long): closing the socket on unread data would reset it, and
 * a client still sending would see the reset instead of this answer.
 */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, {
      "content-type": "text/plain",
      ...(status === 503 ? { "retry-after": "5" } : {}),
      ...(status === 405 ? { allow: "GET, HEAD, POST" } : {}),
    })
    .end(`${message}\n`);
  req.resume();
}

export async function serveNodeHttp(handler: HttpHandler, options: NodeHttpOptions): Promise<NodeHttpServer> {
  const limits: ServeLimits = { ...DEFAULT_SERVE_LIMITS, ...options.limits };
  const logRefusal = throttledLog(options.log);
  const logStall = throttledLog(options.log, "disconnections");
  const stall: Stall = {
    ms: limits.sendTimeoutMs,
    onStall: () =>
      logStall(`Warning: an HTTP client took none of its response for ${limits.sendTimeoutMs} ms; disconnected.`),
  };
  const budget = new BodyBudget(limits);
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const server = process.getBuiltinModule("node:http").createServer(
    {
      // Node answers 408 and closes a connection whose headers, or whole request, are late: a slowloris holds
      // a socket (and, with a body, part of the budget) for at most these times. Node checks every
      // connectionsCheckingInterval, so the check runs each second instead of the default 30.
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      connectionsCheckingInterval: 1000,
    },
    (req, res) => {
      if (UNSERVED_METHODS.has(req.method ?? "")) {
        refuse(req, res, 405, "Method not allowed.");
        return;
      }
      const target = requestTarget(req.url ?? "/", req.headers.host);
      if (target === null) {
        refuse(req, res, 400, "Bad request target: use /mcp, or an absolute URL whose authority is the Host header.");
        return;
      }
      const body = declaredBody(req);
      let ticket: BodyTicket | null = null;
      if (body.has && req.method !== "GET" && req.method !== "HEAD") {
        const admitted = budget.admit(body.length);
        if (isRefusal(admitted)) {
          logRefusal(`Warning: HTTP request refused with ${admitted.status}: ${admitted.message}`);
          refuse(req, res, admitted.status, admitted.message);
          return;
        }
        ticket = admitted;
      }
      inFlight++;
      const forwarded = req.headers["x-forwarded-for"];
      const peer = req.socket.remoteAddress ?? "";
      const client = clientAddress(
        peer,
        Array.isArray(forwarded) ? forwarded.join(",") : forwarded,
        options.trustProxy ?? [],
      );
      const trustedPeer = (options.trustProxy ?? []).length > 0 && trusted(peer, options.trustProxy ?? []);
      void handle(handler, target, { client, trustedPeer }, req, res, ticket, stall, options.log, logRefusal).finally(
        () => {
          ticket?.release();
          inFlight--;
          if (inFlight === 0 && idle) idle();
        },
      );
    },
  );
  // Idle keep-alive connections stay open longer than clients and proxies usually keep theirs (60 s), so the
  // server is not the side that closes a socket just as a client reuses it (the client then sees ECONNRESET
  // on a request the server never read). The headers timeout runs from a request's first byte, not while idle.
  server.keepAliveTimeout = 65_000;
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    const current = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
    if (socket.writable && !current?.headersSent) {
      const status =
        error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "408 Request Timeout"
          : error.code === "HPE_HEADER_OVERFLOW"
            ? "431 Request Header Fields Too Large"
            : "400 Bad Request";
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    } else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    async close(drainMs: number): Promise<void> {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise((resolve) => setTimeout(resolve, drainMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await handler.close();
      await closed;
    },
  };
}

/**
 * The most bytes handed to a response at once. A write completes only when all of it has reached the kernel, so
 * a client on a slow link must take this much (not a whole answer of up to megabytes) within the send timeout.
 */
const PIECE_BYTES = 64 * 1024;

/** How long a client may take none of its response, and what to do (log) when it does. */
interface Stall {
  readonly ms: number;
  readonly onStall: () => void;
}

/**
 * What to do for each request of a connection when the connection closes, heard by one listener per connection:
 * a client may pipeline any number of requests on one connection, and a listener each would pass Node's
 * listener-count warning (a line on stderr a client could make the server print).
 */
const onConnectionClose = new WeakMap<Socket, Set<() => void>>();

/** Calls `listener` when `socket` closes; the returned function takes it back. */
function whenClosed(socket: Socket, listener: () => void): () => void {
  const listeners = onConnectionClose.get(socket) ?? closeListeners(socket);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The connection's set of close listeners, and the one listener that calls them. */
function closeListeners(socket: Socket): Set<() => void> {
  const listeners = new Set<() => void>();
  onConnectionClose.set(socket, listeners);
  socket.once("close", () => {
    for (const call of [...listeners]) call();
    listeners.clear();
  });
  return listeners;
}

/**
 * Whether the response can no longer reach its client. The connection's close counts too: a response queued
 * behind another on a pipelined connection has no socket yet, and when the connection closes Node destroys it
 * without a `close` (or `finish`) event, so its own state and events never say so.
 */
function gone(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  return res.destroyed || req.socket.destroyed;
}

/**
 * Disconnects the client when the response has not reached `event` (a drain, or its finish) within `stallMs`:
 * a client that reads nothing would otherwise hold the response's memory and its connection, and for a
 * streamed answer its request's body slot, for as long as it keeps the connection open. Resolves on `event`,
 * when the response or its connection is gone (a closed socket never drains), or when the stall ends it
 * (a response that never had a socket emits nothing when destroyed).
 */
function reached(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  event: "drain" | "finish",
  stall: Stall,
): Promise<void> {
  if (gone(req, res) || (event === "finish" && res.writableFinished)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      stall.onStall();
      res.destroy();
      done();
    }, stall.ms).unref();
    const done = (): void => {
      clearTimeout(timer);
      res.off(event, done);
      res.off("close", done);
      forget();
      resolve();
    };
    res.once(event, done);
    res.once("close", done);
    const forget = whenClosed(req.socket, done);
  });
}

/** Writes `bytes` in pieces of at most PIECE_BYTES as the client takes them; false when the response is gone. */
async function writePieces(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  bytes: Uint8Array,
  stall: Stall,
): Promise<boolean> {
  for (let offset = 0; offset < bytes.byteLength; offset += PIECE_BYTES) {
    if (gone(req, res)) return false;
    if (!res.write(bytes.subarray(offset, offset + PIECE_BYTES))) await reached(req, res, "drain", stall);
  }
  return !gone(req, res);
}

async function handle(
  handler: HttpHandler,
  target: string,
  from: { readonly client: string; readonly trustedPeer: boolean },
  req: http.IncomingMessage,
  res: http.ServerResponse,
  ticket: BodyTicket | null,
  stall: Stall,
  log: (line: string) => void,
  logRefusal: (line: string) => void,
): Promise<void> {
  const abort = new AbortController();
  const refused: { value: BodyRefusal | null } = { value: null };
  // A client that goes away mid-call cancels it; after a complete response there is nothing left to cancel. The
  // connection's close is heard as well as the response's: a response queued behind another on a pipelined
  // connection gets no `close` of its own when the connection goes (see `gone`).
  const cancel = (): void => {
    if (!res.writableFinished) abort.abort();
  };
  res.once("close", cancel);
  const forgetCancel = whenClosed(req.socket, cancel);
  const method = req.method ?? "GET";
  const body = method !== "GET" && method !== "HEAD" ? readBody(req, ticket, refused) : null;
  try {
    // Name-value pairs, which the Request appends once (a Headers object would be copied into it again).
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
    // The URL's origin is fixed (TARGET_BASE), and `target` is the path and query requestTarget read from a parsed
    // URL, so joining them is the URL it checked (parsing `target` again could read a path such as `//x` as an
    // authority). The body is not in the Request: the handler takes it from `body` after its checks (see
    // RequestInfo.body).
    const request = nodeRequest(`${TARGET_BASE}${target}`, { method, headers }, abort.signal);
    let response: Response;
    try {
      response = await handler.fetch(request, {
        clientAddress: from.client,
        trustedPeer: from.trustedPeer,
        httpVersion: req.httpVersion,
        ...(body !== null ? { body: body.bytes } : {}),
      });
    } catch (error) {
      if (refused.value === null) throw error;
      response = new Response(null);
    }
    // Whatever of the body is still to come is not kept: the handler has answered.
    body?.drop();
    if (refused.value !== null) {
      logRefusal(`Warning: HTTP request refused with ${refused.value.status}: ${refused.value.message}`);
      await response.body?.cancel();
      refuse(req, res, refused.value.status, refused.value.message);
      return;
    }
    if (abort.signal.aborted) {
      // The client is gone (or the request timed out): nothing can be written, and a write would wait forever
      // for a drain that never comes, holding the body's budget.
      await response.body?.cancel().catch(() => {});
      return;
    }
    const outHeaders: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      const existing = outHeaders[name];
      outHeaders[name] =
        existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    });
    const streamed = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
    if (
      response.body &&
      !streamed &&
      outHeaders["content-length"] === undefined &&
      outHeaders["transfer-encoding"] === undefined
    ) {
      // A JSON answer is complete when the handler returns it: one write with its length, rather than a chunked
      // stream read through a web-stream iterator (a tenth of the adapter's work per call). SSE still streams.
      const whole = new Uint8Array(await response.arrayBuffer());
      if (abort.signal.aborted) return;
      outHeaders["content-length"] = String(whole.byteLength);
      res.writeHead(response.status, outHeaders);
      // The answer holds no part of the request: its body slot is free while the client takes the answer. The
      // request stays in flight until then, so a drain on shutdown waits for the answer to be written.
      ticket?.release();
      if (whole.byteLength <= PIECE_BYTES) res.end(whole);
      else if (await writePieces(req, res, whole, stall)) res.end();
      await reached(req, res, "finish", stall);
      return;
    }
    res.writeHead(response.status, outHeaders);
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (!(await writePieces(req, res, chunk, stall))) break;
        if (abort.signal.aborted) break;
      }
    }
    res.end();
    await reached(req, res, "finish", stall);
  } catch (error) {
    if (abort.signal.aborted) return;
    log(`Error: HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end();
  } finally {
    // A keep-alive connection serves many requests: each one's cancel goes with it.
    forgetCancel();
    body?.drop();
    // Unread request data (a body over the SDK's cap, or past the budget) is discarded, never kept, so the
    // connection can finish cleanly.
    if (!req.complete) req.resume();
  }
}
