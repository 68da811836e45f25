/**
 * A real HTTP server on 127.0.0.1 that stands in for an upstream API: it records every request exactly as it
 * arrived (method, raw path and query, headers, body) and answers with whatever the test sets.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";

const TLS_DIR = resolve(import.meta.dirname, "..", "..", "fixtures", "tls");
/** The test CA: give it to the generated server as NODE_EXTRA_CA_CERTS. */
export const TEST_CA = join(TLS_DIR, "ca.pem");
/** The CA of the api.proxied.test certificate (a name that resolves only at the test proxy). */
export const PROXIED_CA = join(TLS_DIR, "proxied-ca.pem");

export interface RecordedRequest {
  readonly method: string;
  /** The request target exactly as sent: raw path plus raw query. */
  readonly target: string;
  readonly path: string;
  readonly query: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly body: string;
  /** The body's bytes as they came (a multipart upload's files are not UTF-8). */
  readonly rawBody: Buffer;
}

export type Handler = (req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>;

export interface Upstream {
  readonly origin: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export function json(
  res: http.ServerResponse,
  status: number,
  value: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

export interface UpstreamOptions {
  /** Serve HTTPS with the test certificate (for localhost, 127.0.0.1 and ::1). */
  readonly tls?: boolean;
  /** The host name used in `origin` (default 127.0.0.1; use "localhost" to go through DNS). */
  readonly hostname?: string;
  /** Serve HTTPS with these files from fixtures/tls instead of the localhost certificate. */
  readonly tlsFiles?: { readonly key: string; readonly cert: string };
}

export async function startUpstream(initial?: Handler, options: UpstreamOptions = {}): Promise<Upstream> {
  let handler: Handler = initial ?? ((_req, res) => json(res, 404, { error: "no handler" }));
  const requests: RecordedRequest[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const target = req.url ?? "";
      const q = target.indexOf("?");
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        target,
        path: q < 0 ? target : target.slice(0, q),
        query: q < 0 ? "" : target.slice(q + 1),
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString("utf8"),
        rawBody: Buffer.concat(chunks),
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  };
  const files = options.tlsFiles ?? { key: "server-key.pem", cert: "server.pem" };
  const server = options.tls
    ? https.createServer(
        { key: readFileSync(join(TLS_DIR, files.key)), cert: readFileSync(join(TLS_DIR, files.cert)) },
        listener,
      )
    : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls ? "https" : "http"}://${options.hostname ?? "127.0.0.1"}:${port}`,
    port,
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers with the request itself, so a test sees exactly what the server sent. */
export const echo: Handler = (req, res) => {
  json(res, 200, {
    method: req.method,
    target: req.target,
    path: req.path,
    query: req.query,
    headers: req.headers,
    body: req.body,
  });
};
