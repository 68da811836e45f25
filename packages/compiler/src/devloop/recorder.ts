/**
 * `kervanc call --record`: a recording relay on 127.0.0.1 between the generated server and the real API. The
 * called tool is pointed at the relay, which forwards each request to the tool's real origin (redirects are not
 * followed: a redirect is passed back as it is) and keeps the exchange, from which a spec-test case is written.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: string;
}

/** Headers that belong to one connection or that the relay sets itself, never forwarded. */
const HOP = new Set([
  "host",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authorization",
  "proxy-connection",
  "content-length",
  "accept-encoding",
]);

export class Recorder {
  readonly #server: http.Server;
  readonly origin: string;
  readonly exchanges: RecordedExchange[] = [];

  private constructor(server: http.Server, origin: string) {
    this.#server = server;
    this.origin = origin;
  }

  /** `upstream` is the real origin (`https://api.example.com`) the relay forwards to. */
  static async start(upstream: string): Promise<Recorder> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const recorder = new Recorder(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on("request", (req, res) => {
      void recorder.#relay(upstream, req, res).catch((error: unknown) => {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(
          `kervanc call --record: the upstream could not be reached (${error instanceof Error ? error.message : String(error)})`,
        );
      });
    });
    return recorder;
  }

  async #relay(upstream: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const target = req.url ?? "/";
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (!HOP.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
    const method = req.method ?? "GET";
    // Appended, never resolved against the origin: a target like `//other.example/x` must not change the host.
    const url = new URL(`${upstream}${target.startsWith("/") ? target : `/${target}`}`);
    if (url.origin !== new URL(upstream).origin)
      throw new Error(`the request target ${JSON.stringify(target)} would leave ${upstream}`);
    const answer = await fetch(url, {
      method,
      headers,
      redirect: "manual",
      ...(method !== "GET" && method !== "HEAD" && chunks.length > 0 ? { body } : {}),
    });
    const responseBody = await answer.text();
    const responseHeaders: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!HOP.has(k) && k !== "content-encoding") responseHeaders[k] = v;
    });
    const q = target.indexOf("?");
    this.exchanges.push({
      method,
      path: q < 0 ? target : target.slice(0, q),
      query: q < 0 ? "" : target.slice(q + 1),
      headers,
      body,
      status: answer.status,
      responseHeaders,
      responseBody,
    });
    res.writeHead(answer.status, { ...responseHeaders, "content-length": Buffer.byteLength(responseBody) });
    res.end(responseBody);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
