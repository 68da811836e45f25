/**
 * Security round 2, finding 3: a server without authentication on loopback serves only clients on its own host.
 * A reverse proxy on the same host reaches it over loopback with the Host a local client sends (nginx's
 * `proxy_pass http://127.0.0.1:3000` sends `Host: 127.0.0.1:3000`), and without this check every public client
 * it relays would be served, secrets included. Such a request is refused with 403 and one log line saying how to
 * fix it, unless the proxy is named by --trust-proxy or the operator says --insecure-no-auth. Two real relays, as
 * nginx relays: configured as usual (X-Forwarded-For and X-Real-IP added), and bare (nginx's defaults: HTTP/1.0,
 * Host and `Connection: close` set, no header added); and a real server process.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
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

interface Relay {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<Relay> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A reverse proxy as nginx is usually configured (`proxy_set_header X-Forwarded-For ...; X-Real-IP ...`): it
 * relays to the server, Host rewritten to the server's, adding X-Forwarded-For and X-Real-IP.
 */
function startProxy(target: string): Promise<Relay> {
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
  return listen(proxy);
}

/**
 * A reverse proxy as a bare `proxy_pass http://127.0.0.1:PORT;` makes nginx one: it speaks HTTP/1.0 to the server
 * (proxy_http_version's default), sets `Host` to the server's and `Connection: close` (proxy_set_header's only
 * defaults), passes the client's other headers on and adds none: no X-Forwarded-For, no X-Real-IP. Written on a
 * raw socket, as node:http cannot send HTTP/1.0; only the answer's status is relayed back.
 */
function startBareRelay(target: string): Promise<Relay> {
  const upstream = new URL(target);
  const relay = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const lines = [`${req.method} ${req.url} HTTP/1.0`, `Host: ${upstream.host}`, "Connection: close"];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i]!;
        if (!/^(host|connection|content-length|transfer-encoding)$/i.test(name))
          lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
      }
      lines.push(`Content-Length: ${body.byteLength}`, "", "");
      const socket = net.connect(Number(upstream.port), upstream.hostname);
      const answer: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => answer.push(chunk));
      socket.on("error", () => res.destroy());
      socket.on("close", () => {
        const status = /^HTTP\/1\.[01] (\d{3}) /.exec(Buffer.concat(answer).toString("latin1"));
        res.writeHead(status ? Number(status[1]) : 502).end();
      });
      socket.write(Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), body]));
    });
  });
  return listen(relay);
}

describe("a server without authentication behind a reverse proxy on its host", () => {
  it("refuses what either proxy relays with 403, logs how to fix it once, and still serves local clients", async () => {
    const server = await startHttpServer(serverPath, []);
    const proxy = await startProxy(server.url);
    const bare = await startBareRelay(server.url);
    try {
      // First the bare relay, which adds no header: the one line logged names what gave it away.
      expect(await postStatus(bare.url, headers(bare.url), LIST)).toBe(403);
      // The proxy rewrites Host to the server's, as nginx's proxy_pass does.
      const relayed = await Promise.all([1, 2, 3].map(() => postStatus(proxy.url, headers(proxy.url), LIST)));
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
      expect(fixes[0]).toContain("HTTP/1.0");
      expect(fixes[0]).toContain("--auth-tokens-file");
      expect(fixes[0]).toContain("--insecure-no-auth");
    } finally {
      await Promise.all([proxy.close(), bare.close()]);
      server.child.kill();
    }
  });

  it.each([
    ["--trust-proxy 127.0.0.1", ["--trust-proxy", "127.0.0.1"]],
    ["--insecure-no-auth", ["--insecure-no-auth"]],
  ])("serves what either proxy relays with %s", async (_, args) => {
    const server = await startHttpServer(serverPath, args);
    const proxy = await startProxy(server.url);
    const bare = await startBareRelay(server.url);
    try {
      expect(await postStatus(proxy.url, headers(proxy.url), LIST)).toBe(200);
      expect(await postStatus(bare.url, headers(bare.url), LIST)).toBe(200);
    } finally {
      await Promise.all([proxy.close(), bare.close()]);
      server.child.kill();
    }
  });

  it("serves relayed requests with authentication on, as before", async () => {
    const server = await startHttpServer(serverPath, [], { KERVANC_AUTH_TOKENS: "relay-token-0123456789abcdef" });
    const bare = await startBareRelay(server.url);
    try {
      const auth = { authorization: "Bearer relay-token-0123456789abcdef" };
      expect(
        await postStatus(server.url, headers(server.url, { ...auth, "x-forwarded-for": "203.0.113.9" }), LIST),
      ).toBe(200);
      expect(await postStatus(bare.url, headers(bare.url, auth), LIST)).toBe(200);
    } finally {
      await bare.close();
      server.child.kill();
    }
  });
});
