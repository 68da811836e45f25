/**
 * Serving the fetch handler from `node:http`, without a framework.
 *
 * The adapter streams the request body into the web `Request` (the SDK reads it with its own size cap), streams
 * the `Response` back (SSE included), and aborts the request's signal when the client goes away. It adds what a
 * public socket needs: a per-address request rate limit (429 with Retry-After), and a drain on shutdown.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { HttpHandler } from "./http-handler.ts";

/** Requests per minute from one remote address. */
export const REQUESTS_PER_MINUTE_PER_ADDRESS = 300;

export interface NodeHttpOptions {
  readonly host: string;
  readonly port: number;
  readonly log: (line: string) => void;
}

export interface NodeHttpServer {
  /** The URL of the MCP endpoint, with the port actually bound. */
  readonly url: string;
  /** Stops accepting, waits for requests in flight (at most `drainMs`), then closes every connection. */
  close(drainMs: number): Promise<void>;
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

class AddressRateLimit {
  readonly #windows = new Map<string, { start: number; count: number }>();
  /** Seconds to wait, or 0 when the request may proceed. */
  take(address: string, now: number): number {
    if (this.#windows.size > 10_000) {
      for (const [key, w] of this.#windows) if (now - w.start >= 60_000) this.#windows.delete(key);
    }
    let window = this.#windows.get(address);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, count: 0 };
      this.#windows.set(address, window);
    }
    if (window.count >= REQUESTS_PER_MINUTE_PER_ADDRESS)
      return Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
    window.count++;
    return 0;
  }
}

export async function serveNodeHttp(handler: HttpHandler, options: NodeHttpOptions): Promise<NodeHttpServer> {
  const limiter = new AddressRateLimit();
  let inFlight = 0;
  let idle: (() => void) | null = null;
  const server = http.createServer((req, res) => {
    const wait = limiter.take(req.socket.remoteAddress ?? "", Date.now());
    if (wait > 0) {
      res.writeHead(429, { "content-type": "text/plain", "retry-after": String(wait) }).end("Too many requests.\n");
      req.resume();
      return;
    }
    inFlight++;
    void handle(handler, req, res, options.log).finally(() => {
      inFlight--;
      if (inFlight === 0 && idle) idle();
    });
  });
  // Idle keep-alive connections stay open longer than clients and proxies usually keep theirs (60 s), so the
  // server is not the side that closes a socket just as a client reuses it (the client then sees ECONNRESET
  // on a request the server never read).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on("clientError", (_error, socket) => {
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n");
    else socket.destroy();
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

async function handle(
  handler: HttpHandler,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  log: (line: string) => void,
): Promise<void> {
  const abort = new AbortController();
  // A client that goes away mid-call cancels it; after a complete response there is nothing left to cancel.
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  try {
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const method = req.method ?? "GET";
    const hasBody = method !== "GET" && method !== "HEAD";
    // The URL's origin is fixed: the Host header is checked by the handler, never used to build URLs.
    const request = new Request(new URL(req.url ?? "/", "http://127.0.0.1"), {
      method,
      headers,
      signal: abort.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
    } as RequestInit);
    const response = await handler.fetch(request);
    const outHeaders: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      const existing = outHeaders[name];
      outHeaders[name] =
        existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    });
    res.writeHead(response.status, outHeaders);
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (!res.write(chunk)) await new Promise<void>((resolve) => res.once("drain", resolve));
        if (abort.signal.aborted) break;
      }
    }
    res.end();
  } catch (error) {
    if (abort.signal.aborted) return;
    log(`Error: HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
    res.end();
  } finally {
    // Unread request data (a body over the cap) is discarded, so the connection can finish cleanly.
    if (!req.complete) req.resume();
  }
}
