/**
 * `kervanc call --record`: a recording relay on 127.0.0.1 between the generated server and the real API. The
 * called tool is pointed at the relay, which forwards each request to the tool's real origin (redirects are not
 * followed: a redirect is passed back as it is) and keeps the exchange, from which a spec-test case is written.
 *
 * The relay reads the real API's answer before the generated server does, so the server's own limits come too
 * late to protect kervanc: the relay applies the tool's limits itself. It reads at most one byte more than the
 * tool's maxResponseBytes (counted after decompression: fetch inflates gzip and brotli), which is enough for the
 * server to refuse the answer as too large, exactly as it would; and it gives up on the upstream request when the
 * server gives up on it (its timeout closes the connection) or when the recorder closes, so an API that never
 * answers neither holds kervanc open nor fills its memory.
 *
 * The relay forwards through the generated server's own transport and address policy (the runtime's
 * net/node-transport.ts), with the development relaxation the server has: loopback and private addresses allowed,
 * cloud-metadata and the other always-refused addresses never, every name resolved, checked and pinned; and a
 * request that carries one of the call's secrets goes over plain http only to an address found loopback. A
 * request the policy refuses is never sent, so nothing it would have fetched is printed or recorded.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { allowPrivateNetwork, createNetworkPolicy } from "@kervanc/runtime/net/address";
import { LookupGate } from "@kervanc/runtime/net/lookup-gate";
import { createNodeTransport } from "@kervanc/runtime/net/node-transport";
import type { HopResponse, HopTransport } from "@kervanc/runtime/net/upstream";

/** The called tool's limits (its plan's), which the relay applies to the real API's answer. */
export interface RelayLimits {
  readonly maxResponseBytes: number;
}

export interface RecordedExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: string;
  /** The answer was longer than the tool's maxResponseBytes; only the first bytes past the limit were read. */
  readonly overLimit: boolean;
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
  /** Upstream requests that never completed (the server gave up, the API failed): such a call is not a case. */
  readonly unfinished: string[] = [];
  readonly #inflight = new Set<AbortController>();
  readonly #transport: HopTransport;
  readonly #secrets: readonly string[];

  private constructor(server: http.Server, origin: string, secrets: readonly string[], transport?: HopTransport) {
    this.#server = server;
    this.origin = origin;
    this.#secrets = secrets.filter((s) => s !== "");
    this.#transport =
      transport ??
      createNodeTransport({
        policy: createNetworkPolicy(allowPrivateNetwork()),
        gate: new LookupGate(4),
        // One connection per request: each is checked when it is opened, for what it is opened for.
        pool: false,
      });
  }

  /**
   * `upstream` is the real origin (`https://api.example.com`) the relay forwards to; `secrets` are the values the
   * call's server may send (a request carrying one goes over plain http only to loopback). `transport` is for
   * tests (a resolver of their own); by default the generated server's Node transport.
   */
  static async start(
    upstream: string,
    limits: RelayLimits,
    secrets: readonly string[] = [],
    transport?: HopTransport,
  ): Promise<Recorder> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", resolve);
    });
    const recorder = new Recorder(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      secrets,
      transport,
    );
    server.on("request", (req, res) => {
      const abort = new AbortController();
      recorder.#inflight.add(abort);
      // The server closed its side (its timeout, or it stopped) before the answer was sent: stop waiting upstream.
      res.once("close", () => abort.abort());
      void recorder
        .#relay(upstream, limits, req, res, abort.signal)
        .catch((error: unknown) => {
          const why = abort.signal.aborted
            ? "the generated server gave up waiting"
            : error instanceof Error
              ? error.message
              : String(error);
          recorder.unfinished.push(why);
          if (res.headersSent || res.destroyed) return void res.destroy();
          res.writeHead(502, { "content-type": "text/plain" });
          res.end(`kervanc call --record: the upstream could not be reached (${why})`);
        })
        .finally(() => recorder.#inflight.delete(abort));
    });
    return recorder;
  }

  async #relay(
    upstream: string,
    limits: RelayLimits,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    signal: AbortSignal,
  ): Promise<void> {
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
    const sent = Object.values(headers).join("\n") + body + target;
    const carriesSecret = this.#secrets.some((secret) => sent.includes(secret));
    // Redirects are not followed by a hop: a redirect is passed back to the server as it is.
    const answer = await this.#transport.send(
      {
        method,
        url,
        headers: Object.entries(headers),
        body: method !== "GET" && method !== "HEAD" && chunks.length > 0 ? body : null,
      },
      { signal, sendsSecrets: carriesSecret, plainSecretsLoopbackOnly: carriesSecret && url.protocol === "http:" },
    );
    const { bytes, overLimit } = await readCapped(answer, this.#transport, limits.maxResponseBytes + 1);
    const responseBody = new TextDecoder().decode(bytes);
    const responseHeaders: Record<string, string> = {};
    for (const k of answer.headers.names?.() ?? []) {
      const v = answer.headers.get(k);
      if (v !== undefined && !HOP.has(k) && k !== "content-encoding") responseHeaders[k] = v;
    }
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
      overLimit,
    });
    // The bytes as they came (not the decoded text): the server sees what the API sent, cut past the limit.
    res.writeHead(answer.status, { ...responseHeaders, "content-length": bytes.length });
    res.end(bytes);
  }

  async close(): Promise<void> {
    for (const abort of this.#inflight) abort.abort();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/**
 * At most `cap` bytes of the answer's body, decoded (gzip, deflate, br, as fetch would inflate them; counted after
 * decoding, as the tool's limit is); the rest is not read (the response is discarded).
 */
async function readCapped(
  answer: HopResponse,
  transport: HopTransport,
  cap: number,
): Promise<{ bytes: Uint8Array; overLimit: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const coding = (answer.headers.get("content-encoding") ?? "").trim().toLowerCase();
  const decoder = coding === "" || coding === "identity" ? undefined : transport.decoders.get(coding);
  const raw = ReadableStream.from(answer.body);
  const reader = (decoder !== undefined ? raw.pipeThrough(decoder()) : raw).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length >= cap) {
      chunks.push(value.subarray(0, cap - size));
      size = cap;
      await reader.cancel().catch(() => {});
      answer.discard();
      return { bytes: Buffer.concat(chunks), overLimit: true };
    }
    chunks.push(value);
    size += value.length;
  }
  return { bytes: Buffer.concat(chunks), overLimit: false };
}
