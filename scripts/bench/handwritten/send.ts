/**
 * How the hand-written server reaches its upstream: node:http, by default through a keep-alive agent (what a
 * hand-written server would do), or with a fresh connection per call (`agent: false`, what kervanc's pinned
 * transport does) to separate connection reuse from the rest of the comparison.
 */
import http from "node:http";
import type { SendBytes } from "./tool-safe.ts";
import type { Send } from "./tool.ts";

const MAX_BODY = 1024 * 1024;

export function nodeSend(upstream: URL, freshConnections: boolean): Send {
  const agent = freshConnections ? false : new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (path, headers, signal) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: upstream.hostname, port: upstream.port, path, method: "GET", headers, agent, signal },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY) {
              res.destroy();
              reject(new Error("response too large"));
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers["content-type"] ?? "",
              body: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
}

/**
 * The same keep-alive client for tool-safe.ts: the body as the chunks that arrived, collected with `data` and
 * `end` listeners and refused the moment it passes the byte cap, with the call's deadline as the request's
 * signal (how a careful hand-written tool would send).
 */
export function nodeSendBytes(upstream: URL, maxBytes: number): SendBytes {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (path, headers, signal) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: upstream.hostname, port: upstream.port, path, method: "GET", headers, agent, signal },
        (res) => {
          const chunks: Uint8Array[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              res.destroy();
              reject(new Error("response too large"));
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? "", chunks }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
}
