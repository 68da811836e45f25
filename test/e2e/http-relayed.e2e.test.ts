/**
 * Security round 2, finding 3: a server without authentication on loopback serves only clients on its own host.
 * A reverse proxy on the same host (nginx's default `proxy_pass http://127.0.0.1:3000`: Host 127.0.0.1:3000,
 * X-Forwarded-For and X-Real-IP added) reaches it over loopback, and without this check every public client it
 * relays would be served, secrets included. Such a request is refused with 403 and one log line saying how to
 * fix it, unless the proxy is named by --trust-proxy or the operator says --insecure-no-auth. A real relaying
 * proxy (node:http, as nginx relays) and a real server process.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postStatus, startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, getThingSpec, removeDir } from "../helpers/kervanc.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";

let root: string;
let serverPath: string;

beforeAll(async () => {
  ({ root, serverPath } = await buildOneSpec("relayed", "relayed.yaml", getThingSpec("relayed")));
}, 60_000);

afterAll(async () => {
  if (root) await removeDir(root);
});

const headers = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  host: new URL(url).host,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...modernHeadersFor("tools/list"),
  ...extra,
});
const LIST = JSON.stringify(modernMessage(1, "tools/list"));

/** A reverse proxy as nginx's defaults make one: it relays to the server, adding X-Forwarded-For and X-Real-IP. */
async function startProxy(target: string): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const proxy = http.createServer((req, res) => {
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: {
          ...req.headers,
          host: upstream.host,
          "x-forwarded-for": "203.0.113.9",
          "x-real-ip": "203.0.113.9",
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((resolve) => proxy.close(() => resolve())) };
}

describe("a server without authentication behind a reverse proxy on its host", () => {
  it("refuses what the proxy relays with 403, logs how to fix it once, and still serves local clients", async () => {
    const server = await startHttpServer(serverPath, []);
    const proxy = await startProxy(server.url);
    try {
      const proxyHost = new URL(proxy.url).host;
      // The proxy rewrites Host to the server's, as nginx's default proxy_pass does.
      const relayed = await Promise.all(
        [1, 2, 3].map(() => postStatus(proxy.url, headers(proxy.url, { host: proxyHost }), LIST)),
      );
      expect(relayed).toEqual([403, 403, 403]);
      for (const header of ["forwarded", "via", "x-forwarded-host", "x-forwarded-proto"]) {
        expect(await postStatus(server.url, headers(server.url, { [header]: "for=203.0.113.9" }), LIST)).toBe(403);
      }
      expect(await postStatus(server.url, headers(server.url), LIST)).toBe(200);
      const fixes = server
        .stderr()
        .split("\n")
        .filter((line) => line.includes("refused a request relayed by a proxy"));
      expect(fixes).toHaveLength(1);
      expect(fixes[0]).toContain("--auth-tokens-file");
      expect(fixes[0]).toContain("--insecure-no-auth");
    } finally {
      await proxy.close();
      server.child.kill();
    }
  });

  it.each([
    ["--trust-proxy 127.0.0.1", ["--trust-proxy", "127.0.0.1"]],
    ["--insecure-no-auth", ["--insecure-no-auth"]],
  ])("serves what the proxy relays with %s", async (_, args) => {
    const server = await startHttpServer(serverPath, args);
    const proxy = await startProxy(server.url);
    try {
      expect(await postStatus(proxy.url, headers(proxy.url, { host: new URL(proxy.url).host }), LIST)).toBe(200);
    } finally {
      await proxy.close();
      server.child.kill();
    }
  });

  it("serves relayed requests with authentication on, as before", async () => {
    const server = await startHttpServer(serverPath, [], { KERVANC_AUTH_TOKENS: "relay-token-0123456789abcdef" });
    try {
      const auth = { authorization: "Bearer relay-token-0123456789abcdef", "x-forwarded-for": "203.0.113.9" };
      expect(await postStatus(server.url, headers(server.url, auth), LIST)).toBe(200);
    } finally {
      server.child.kill();
    }
  });
});
