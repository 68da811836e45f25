/**
 * The stand-in API of `kervanc test`: a real HTTP server on 127.0.0.1 (nothing leaves the machine), started by
 * kervanc itself. It records each request exactly as it arrived and answers with the current case's response.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { TOKEN_PATH } from "../devloop/retarget.ts";

export interface StubRequest {
  readonly method: string;
  /** The path as sent (percent-encoded), without the query. */
  readonly path: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface StubResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Requests bodies past this are cut off: a test's request is small, and the stub must not grow without bound. */
const MAX_BODY = 4 * 1024 * 1024;

export class Stub {
  readonly #server: http.Server;
  readonly origin: string;
  requests: StubRequest[] = [];
  /**
   * The upstream-auth extension's token endpoints (devloop/retarget.ts, TOKEN_PATH): the token each credential's
   * path issues. Those requests are answered here and not recorded: a case describes its tool's request only.
   */
  tokens: ReadonlyMap<string, string> = new Map();
  response: StubResponse = {
    status: 500,
    headers: { "content-type": "text/plain" },
    body: "kervanc test: this case expects no upstream call",
  };

  private constructor(server: http.Server, origin: string) {
    this.#server = server;
    this.origin = origin;
  }

  static async start(): Promise<Stub> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const stub = new Stub(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on("request", (req, res) => stub.#handle(req, res));
    return stub;
  }

  #handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      const target = req.url ?? "";
      const token = target.startsWith(TOKEN_PATH) ? this.tokens.get(target.slice(TOKEN_PATH.length)) : undefined;
      if (token !== undefined) {
        const answer = JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
        res.end(answer);
        return;
      }
      const q = target.indexOf("?");
      this.requests.push({
        method: req.method ?? "",
        path: q < 0 ? target : target.slice(0, q),
        query: q < 0 ? "" : target.slice(q + 1),
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const { status, headers, body } = this.response;
      try {
        res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) });
      } catch (error) {
        // The loader refuses headers Node cannot send; should one slip through, the case fails, kervanc goes on.
        const why = `kervanc test: the case's response cannot be sent (${error instanceof Error ? error.message : String(error)})`;
        res.writeHead(500, { "content-type": "text/plain", "content-length": Buffer.byteLength(why) });
        res.end(why);
        return;
      }
      res.end(body);
    });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
