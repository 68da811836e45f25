/**
 * Keep-alive pooling in the Node transport (net/pool.ts): connections are reused for the same checked
 * destination and never for another one (two names on one address, a DNS answer that changes, a TLS name the
 * certificate does not cover, another proxy target), a reused connection the upstream closed is retried once
 * only for a safe request that got nothing back, idle connections close, and the idle caps hold. Every server
 * is a real socket on 127.0.0.x; the resolver is injected.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  allowPrivateNetwork,
  createNetworkPolicy,
  type NetworkPolicyOptions,
} from "../../packages/runtime/src/net/address.ts";
import { LookupGate } from "../../packages/runtime/src/net/lookup-gate.ts";
import { createNodeTransport } from "../../packages/runtime/src/net/node-transport.ts";
import { ConnectionPool, type PoolLimits } from "../../packages/runtime/src/net/pool.ts";
import type { ProxySettings } from "../../packages/runtime/src/net/proxy.ts";
import type { HopResponse } from "../../packages/runtime/src/net/upstream.ts";
import { startProxy } from "../helpers/proxy.ts";

const TLS_DIR = resolve(import.meta.dirname, "..", "..", "fixtures", "tls");
const tlsFile = (name: string): string => readFileSync(join(TLS_DIR, name), "utf8");

/** A real upstream that counts the connections it accepted and records each request with its connection. */
interface Server {
  readonly port: number;
  readonly address: string;
  /** Accepted TCP connections, in order. */
  readonly accepted: Socket[];
  /** Connections that closed. */
  closed: number;
  /** Every request: method, Host header, the connection's index in `accepted`, and its TLS server name. */
  readonly requests: { method: string; host: string; connection: number; servername: string | false }[];
  /** What to do with a request; the default answers `{"from": label}`. */
  handler: (req: http.IncomingMessage, res: http.ServerResponse, nth: number) => void;
  /** Resolves when `count` connections have closed. */
  closedCount(count: number): Promise<void>;
  close(): Promise<void>;
}

const open: Server[] = [];
const pools: ConnectionPool[] = [];

async function startServer(options: {
  label: string;
  address?: string;
  port?: number;
  tls?: { key: string; cert: string };
}): Promise<Server> {
  const accepted: Socket[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const perConnection = new Map<Socket, number>();
  const server: Server = {
    port: 0,
    address: options.address ?? "127.0.0.1",
    accepted,
    closed: 0,
    requests: [],
    handler: (_req, res) => {
      const body = JSON.stringify({ from: options.label });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
    },
    closedCount: (count) =>
      new Promise<void>((done) => (server.closed >= count ? done() : waiters.push({ count, resolve: done }))),
    close: async () => {},
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const socket = req.socket;
    const nth = (perConnection.get(socket) ?? 0) + 1;
    perConnection.set(socket, nth);
    const tlsName = (socket as Socket & { servername?: string | false }).servername ?? false;
    server.requests.push({
      method: req.method ?? "",
      host: req.headers.host ?? "",
      connection: accepted.indexOf(socket),
      servername: tlsName,
    });
    req.resume();
    req.on("end", () => server.handler(req, res, nth));
  };
  const raw = options.tls
    ? https.createServer({ key: tlsFile(options.tls.key), cert: tlsFile(options.tls.cert) }, listener)
    : http.createServer(listener);
  raw.keepAliveTimeout = 60_000;
  const onSocket = (socket: Socket): void => {
    accepted.push(socket);
    socket.on("close", () => {
      server.closed++;
      for (const w of waiters.filter((w) => server.closed >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  };
  raw.on(options.tls ? "secureConnection" : "connection", onSocket);
  await new Promise<void>((done) => raw.listen(options.port ?? 0, server.address, done));
  Object.assign(server, {
    port: (raw.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((done) => {
        raw.closeAllConnections();
        raw.close(() => done());
      }),
  });
  open.push(server);
  return server;
}

afterEach(async () => {
  for (const pool of pools.splice(0)) pool.close();
  for (const server of open.splice(0)) await server.close();
});

type Answer = { address: string; family: number };

function transportWith(options: {
  resolve?: (name: string) => Answer[];
  policy?: NetworkPolicyOptions;
  limits?: Partial<PoolLimits>;
  ca?: string;
  proxy?: ProxySettings;
}) {
  const pool = new ConnectionPool(options.limits);
  pools.push(pool);
  const transport = createNodeTransport({
    policy: createNetworkPolicy(options.policy ?? allowPrivateNetwork()),
    gate: new LookupGate(2),
    pool,
    ...(options.resolve ? { resolve: async (name: string) => options.resolve!(name) } : {}),
    ...(options.ca !== undefined ? { ca: options.ca } : {}),
    ...(options.proxy ? { proxy: options.proxy } : {}),
  });
  return { pool, transport };
}

async function text(response: HopResponse): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/** One complete exchange: the status and body, read to the end (so the connection can go back to the pool). */
async function call(transport: ReturnType<typeof createNodeTransport>, url: string, method = "GET"): Promise<string> {
  const response = await transport.send(
    { method, url: new URL(url), headers: [], body: method === "POST" ? "{}" : null },
    { signal: AbortSignal.timeout(10_000), sendsSecrets: false },
  );
  const body = await text(response);
  // The connection goes back to the pool on the response's 'end'; let that run before the next request.
  await new Promise((done) => setImmediate(done));
  return `${response.status} ${body}`;
}

/** A transport whose every request goes through the egress proxy on 127.0.0.1:port; api.proxied.test resolves only there. */
function throughProxy(port: number, ca?: string, asked: string[] = []) {
  const settings: ProxySettings = {
    forUrl: () => ({ hostPort: `127.0.0.1:${port}`, hostname: "127.0.0.1", port, authorization: null }),
    credentials: [],
    summary: [],
  };
  return transportWith({
    resolve: (name) => {
      asked.push(name);
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    },
    ...(ca !== undefined ? { ca } : {}),
    proxy: settings,
  });
}

describe("keep-alive reuse", () => {
  it("reuses one connection for sequential requests to the same destination", async () => {
    const server = await startServer({ label: "a" });
    const { pool, transport } = transportWith({});
    for (let i = 0; i < 5; i++)
      expect(await call(transport, `http://127.0.0.1:${server.port}/x`)).toBe('200 {"from":"a"}');
    expect(server.accepted.length).toBe(1);
    expect(server.requests.map((r) => r.connection)).toEqual([0, 0, 0, 0, 0]);
    expect(pool.idle).toBe(1);
  });

  it("opens a fresh connection per request when pooling is off", async () => {
    const server = await startServer({ label: "a" });
    const transport = createNodeTransport({
      policy: createNetworkPolicy(allowPrivateNetwork()),
      gate: new LookupGate(2),
      pool: false,
    });
    for (let i = 0; i < 3; i++)
      expect(await call(transport, `http://127.0.0.1:${server.port}/x`)).toBe('200 {"from":"a"}');
    expect(server.accepted.length).toBe(3);
  });
});

describe("pooled connections never cross destinations", () => {
  it("two host names on one address get separate connections", async () => {
    const server = await startServer({ label: "shared" });
    const { transport } = transportWith({ resolve: () => [{ address: "127.0.0.1", family: 4 }] });
    for (const name of ["a.example.test", "b.example.test", "a.example.test", "b.example.test"]) {
      expect(await call(transport, `http://${name}:${server.port}/x`)).toBe('200 {"from":"shared"}');
    }
    expect(server.accepted.length).toBe(2);
    // Each connection carried one host name only.
    const hostsPerConnection = new Map<number, Set<string>>();
    for (const r of server.requests)
      hostsPerConnection.set(r.connection, (hostsPerConnection.get(r.connection) ?? new Set()).add(r.host));
    expect([...hostsPerConnection.values()].map((hosts) => [...hosts])).toEqual([
      [`a.example.test:${server.port}`],
      [`b.example.test:${server.port}`],
    ]);
  });

  it("resolves a host name once per connection, not once per request", async () => {
    const server = await startServer({ label: "named" });
    const asked: string[] = [];
    const pooled = transportWith({ resolve: (name) => (asked.push(name), [{ address: "127.0.0.1", family: 4 }]) });
    for (let i = 0; i < 5; i++)
      expect(await call(pooled.transport, `http://api.example.test:${server.port}/x`)).toBe('200 {"from":"named"}');
    expect(server.accepted.length).toBe(1);
    expect(asked).toEqual(["api.example.test"]);

    // Without pooling every request opens a connection, so every request resolves and is checked.
    asked.length = 0;
    const fresh = createNodeTransport({
      policy: createNetworkPolicy(allowPrivateNetwork()),
      gate: new LookupGate(2),
      pool: false,
      resolve: async (name) => (asked.push(name), [{ address: "127.0.0.1", family: 4 }]),
    });
    for (let i = 0; i < 3; i++)
      expect(await call(fresh, `http://api.example.test:${server.port}/x`)).toBe('200 {"from":"named"}');
    expect(asked.length).toBe(3);
  });

  it("a changed DNS answer is used, checked, by the next new connection; the pooled one keeps its address", async () => {
    const first = await startServer({ label: "first", address: "127.0.0.1" });
    const second = await startServer({ label: "second", address: "127.0.0.2", port: first.port });
    let answer = "127.0.0.1";
    const { transport } = transportWith({ resolve: () => [{ address: answer, family: 4 }] });
    const url = `http://rebind.example.test:${first.port}/x`;
    expect(await call(transport, url)).toBe('200 {"from":"first"}');
    answer = "127.0.0.2";
    // The idle connection still leads to the address it was checked for.
    expect(await call(transport, url)).toBe('200 {"from":"first"}');
    // Two at once: one takes the pooled connection, the other opens one, which resolves again.
    expect((await Promise.all([call(transport, url), call(transport, url)])).sort()).toEqual([
      '200 {"from":"first"}',
      '200 {"from":"second"}',
    ]);
    expect(first.accepted.length).toBe(1);
    expect(second.accepted.length).toBe(1);
  });

  it("a disallowed answer refuses every new connection, and no request ever reaches that address", async () => {
    const server = await startServer({ label: "first" });
    const refused = await startServer({ label: "refused", address: "127.0.0.3", port: server.port });
    let answer = "127.0.0.1";
    const { pool, transport } = transportWith({
      resolve: () => [{ address: answer, family: 4 }],
      policy: { allowPrivate: ["127.0.0.1/32"], localAddresses: [] },
    });
    const url = `http://rebind.example.test:${server.port}/x`;
    const blocked = `Request to rebind.example.test:${server.port} was blocked: it resolves to a disallowed address (loopback address).`;
    expect(await call(transport, url)).toBe('200 {"from":"first"}');
    expect(pool.idle).toBe(1);
    answer = "127.0.0.3";
    // The pooled connection was checked for 127.0.0.1 and goes nowhere else.
    expect(await call(transport, url)).toBe('200 {"from":"first"}');
    // A second connection must be opened for one of these, and its lookup is refused.
    const both = await Promise.allSettled([call(transport, url), call(transport, url)]);
    expect(both.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message)).sort()).toEqual([
      '200 {"from":"first"}',
      blocked,
    ]);
    pool.close();
    await expect(call(transport, url)).rejects.toThrow(blocked);
    expect(refused.accepted.length).toBe(0);
    expect(server.accepted.length).toBe(1);
  });

  it("a connection is not kept past the maximum age, so a busy destination resolves again", async () => {
    const server = await startServer({ label: "aged" });
    let asked = 0;
    const { transport } = transportWith({
      resolve: () => (asked++, [{ address: "127.0.0.1", family: 4 }]),
      limits: { maxConnectionAgeMs: 50 },
    });
    const url = `http://aged.example.test:${server.port}/x`;
    expect(await call(transport, url)).toBe('200 {"from":"aged"}');
    await new Promise((done) => setTimeout(done, 100));
    // Past its age when this request finishes: closed instead of kept.
    expect(await call(transport, url)).toBe('200 {"from":"aged"}');
    await server.closedCount(1);
    expect(await call(transport, url)).toBe('200 {"from":"aged"}');
    expect(server.accepted.length).toBe(2);
    expect(asked).toBe(2);
  });

  it("a TLS connection opened for one name is never used for another name on the same address and port", async () => {
    // The certificate covers localhost (and 127.0.0.1, ::1), not evil.example.test.
    const server = await startServer({ label: "tls", tls: { key: "server-key.pem", cert: "server.pem" } });
    const { pool, transport } = transportWith({
      resolve: () => [{ address: "127.0.0.1", family: 4 }],
      ca: tlsFile("ca.pem"),
    });
    expect(await call(transport, `https://localhost:${server.port}/x`)).toBe('200 {"from":"tls"}');
    expect(pool.idle).toBe(1);
    await expect(call(transport, `https://evil.example.test:${server.port}/x`)).rejects.toMatchObject({
      code: "ERR_TLS_CERT_ALTNAME_INVALID",
    });
    expect(server.requests.map((r) => [r.host, r.servername])).toEqual([[`localhost:${server.port}`, "localhost"]]);
    // The name the certificate covers still reuses its connection.
    expect(await call(transport, `https://localhost:${server.port}/x`)).toBe('200 {"from":"tls"}');
    expect(server.requests.map((r) => r.connection)).toEqual([0, 0]);
  });

  it("verifies an IP-literal upstream's certificate against the address, whatever the Host header says", async () => {
    // Node derives the TLS name from the Host header when it is given none; the transport gives "" for an address.
    // The certificate names api.proxied.test only, so it does not cover 127.0.0.1.
    const server = await startServer({ label: "ip", tls: { key: "proxied-key.pem", cert: "proxied.pem" } });
    const { transport } = transportWith({ ca: tlsFile("proxied-ca.pem") });
    const hop = {
      method: "GET",
      url: new URL(`https://127.0.0.1:${server.port}/x`),
      headers: [["host", "api.proxied.test"]] as const,
      body: null,
    };
    await expect(
      transport.send(hop, { signal: AbortSignal.timeout(10_000), sendsSecrets: false }),
    ).rejects.toMatchObject({ code: "ERR_TLS_CERT_ALTNAME_INVALID" });
    expect(server.requests.length).toBe(0);
  });

  it("a TLS connection opened unverified is never used once certificates are verified", async () => {
    // NODE_TLS_REJECT_UNAUTHORIZED is read by Node at each connect, and is not part of the agent's own key.
    const server = await startServer({ label: "tls", tls: { key: "server-key.pem", cert: "server.pem" } });
    const { pool, transport } = transportWith({});
    const url = `https://127.0.0.1:${server.port}/x`;
    const before = process.env["NODE_TLS_REJECT_UNAUTHORIZED"];
    try {
      process.env["NODE_TLS_REJECT_UNAUTHORIZED"] = "0";
      expect(await call(transport, url)).toBe('200 {"from":"tls"}');
      expect(pool.idle).toBe(1);
    } finally {
      if (before === undefined) delete process.env["NODE_TLS_REJECT_UNAUTHORIZED"];
      else process.env["NODE_TLS_REJECT_UNAUTHORIZED"] = before;
    }
    // The default store does not hold the test CA: a fresh, verified connection fails.
    await expect(call(transport, url)).rejects.toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
    expect(server.requests.length).toBe(1);
  });

  it("a tunnel opened through one proxy is never used through another", async () => {
    const server = await startServer({ label: "a", tls: { key: "proxied-key.pem", cert: "proxied.pem" } });
    const first = await startProxy();
    const second = await startProxy({ credentials: "user:Pr0xy-pa55word" });
    try {
      let chosen = first;
      let authorization: string | null = null;
      const { transport } = transportWith({
        resolve: () => {
          throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
        },
        ca: tlsFile("proxied-ca.pem"),
        proxy: {
          forUrl: () => ({
            hostPort: `127.0.0.1:${chosen.port}`,
            hostname: "127.0.0.1",
            port: chosen.port,
            authorization,
          }),
          credentials: [],
          summary: [],
        },
      });
      const url = `https://api.proxied.test:${server.port}/x`;
      expect(await call(transport, url)).toBe('200 {"from":"a"}');
      chosen = second;
      authorization = `Basic ${Buffer.from("user:Pr0xy-pa55word").toString("base64")}`;
      expect(await call(transport, url)).toBe('200 {"from":"a"}');
      expect(first.connects).toEqual([`api.proxied.test:${server.port}`]);
      expect(second.connects).toEqual([`api.proxied.test:${server.port}`]);
      // The same proxy with other credentials is another proxy too: its refusal is not skipped by a pooled tunnel.
      authorization = `Basic ${Buffer.from("user:wrong").toString("base64")}`;
      await expect(call(transport, url)).rejects.toThrow("the egress proxy refused the tunnel (407");
      expect(server.accepted.length).toBe(2);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("tunnels through a proxy are pooled per target", async () => {
    const a = await startServer({ label: "a", tls: { key: "proxied-key.pem", cert: "proxied.pem" } });
    const b = await startServer({ label: "b", tls: { key: "proxied-key.pem", cert: "proxied.pem" } });
    const proxy = await startProxy();
    try {
      const asked: string[] = [];
      const { transport } = throughProxy(proxy.port, tlsFile("proxied-ca.pem"), asked);
      for (const [server, label] of [
        [a, "a"],
        [b, "b"],
        [a, "a"],
        [b, "b"],
        [a, "a"],
      ] as const) {
        expect(await call(transport, `https://api.proxied.test:${server.port}/x`)).toBe(`200 {"from":"${label}"}`);
      }
      expect(proxy.connects).toEqual([`api.proxied.test:${a.port}`, `api.proxied.test:${b.port}`]);
      // The target is checked here when a tunnel is opened, not on every request through it.
      expect(asked).toEqual(["api.proxied.test", "api.proxied.test"]);
      expect(a.accepted.length).toBe(1);
      expect(b.accepted.length).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});

describe("a reused connection the upstream closed", () => {
  /** Answers the first request on each connection; the second one on a connection closes it unanswered. */
  async function dropsSecondRequest(partial = false): Promise<Server> {
    const server = await startServer({ label: "flaky" });
    const answer = server.handler;
    server.handler = (req, res, nth) => {
      if (nth === 1) return answer(req, res, nth);
      // With `partial`, part of a status line comes back first: something was answered, so no retry.
      if (partial) req.socket.end("HTTP/1.1 200 O", () => req.socket.destroy());
      else req.socket.destroy();
    };
    return server;
  }

  it("retries a GET once, on a fresh connection", async () => {
    const server = await dropsSecondRequest();
    const { transport } = transportWith({});
    const url = `http://127.0.0.1:${server.port}/x`;
    expect(await call(transport, url)).toBe('200 {"from":"flaky"}');
    expect(await call(transport, url)).toBe('200 {"from":"flaky"}');
    expect(server.requests.map((r) => [r.method, r.connection])).toEqual([
      ["GET", 0],
      ["GET", 0],
      ["GET", 1],
    ]);
  });

  it("does not retry a POST", async () => {
    const server = await dropsSecondRequest();
    const { transport } = transportWith({});
    const url = `http://127.0.0.1:${server.port}/x`;
    expect(await call(transport, url, "POST")).toBe('200 {"from":"flaky"}');
    await expect(call(transport, url, "POST")).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(server.requests.map((r) => [r.method, r.connection])).toEqual([
      ["POST", 0],
      ["POST", 0],
    ]);
  });

  /** The flaky server as the egress proxy: plain-http targets go to it in absolute form, over pooled connections. */
  const throughFlakyProxy = (proxy: Server) => throughProxy(proxy.port).transport;

  it("through a proxy too: retries a GET once, on a fresh connection to the proxy", async () => {
    const proxy = await dropsSecondRequest();
    const transport = throughFlakyProxy(proxy);
    const url = "http://api.proxied.test:8080/x";
    expect(await call(transport, url)).toBe('200 {"from":"flaky"}');
    expect(await call(transport, url)).toBe('200 {"from":"flaky"}');
    expect(proxy.requests.map((r) => [r.method, r.host, r.connection])).toEqual([
      ["GET", "api.proxied.test:8080", 0],
      ["GET", "api.proxied.test:8080", 0],
      ["GET", "api.proxied.test:8080", 1],
    ]);
  });

  it("through a proxy too: does not retry a POST", async () => {
    const proxy = await dropsSecondRequest();
    const transport = throughFlakyProxy(proxy);
    const url = "http://api.proxied.test:8080/x";
    expect(await call(transport, url, "POST")).toBe('200 {"from":"flaky"}');
    await expect(call(transport, url, "POST")).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(proxy.requests.map((r) => [r.method, r.connection])).toEqual([
      ["POST", 0],
      ["POST", 0],
    ]);
  });

  it("does not retry a GET once part of an answer came back", async () => {
    const server = await dropsSecondRequest(true);
    const { transport } = transportWith({});
    const url = `http://127.0.0.1:${server.port}/x`;
    expect(await call(transport, url)).toBe('200 {"from":"flaky"}');
    await expect(call(transport, url)).rejects.toThrow();
    expect(server.accepted.length).toBe(1);
    expect(server.requests.length).toBe(2);
  });
});

describe("pool bounds", () => {
  it("closes idle connections after the idle timeout", async () => {
    const server = await startServer({ label: "a" });
    const { pool, transport } = transportWith({ limits: { idleTimeoutMs: 100 } });
    expect(await call(transport, `http://127.0.0.1:${server.port}/x`)).toBe('200 {"from":"a"}');
    expect(pool.idle).toBe(1);
    // The client closes its idle connection (the server would keep it for a minute); the server sees it go.
    await server.closedCount(1);
    expect(await call(transport, `http://127.0.0.1:${server.port}/x`)).toBe('200 {"from":"a"}');
    expect(server.accepted.length).toBe(2);
    // The closed connection left the idle count.
    expect(pool.idle).toBe(1);
  });

  it("does not cut a request in flight that takes longer than the idle timeout", async () => {
    const server = await startServer({ label: "slow" });
    const answer = server.handler;
    server.handler = (req, res, nth) => void setTimeout(() => answer(req, res, nth), 300);
    const { transport } = transportWith({ limits: { idleTimeoutMs: 50 } });
    expect(await call(transport, `http://127.0.0.1:${server.port}/x`)).toBe('200 {"from":"slow"}');
  });

  it("keeps at most maxIdlePerDestination idle connections per destination and maxIdleTotal in all", async () => {
    const a = await startServer({ label: "a" });
    const b = await startServer({ label: "b" });
    const { pool, transport } = transportWith({ limits: { maxIdlePerDestination: 2, maxIdleTotal: 3 } });
    /** Five requests in flight at once (the server holds its answers until all five arrived). */
    const burst = async (server: Server): Promise<void> => {
      const held: (() => void)[] = [];
      const answer = server.handler;
      server.handler = (req, res, nth) => {
        held.push(() => answer(req, res, nth));
        if (held.length === 5) for (const release of held) release();
      };
      const results = await Promise.all(
        Array.from({ length: 5 }, () => call(transport, `http://127.0.0.1:${server.port}/x`)),
      );
      expect(new Set(results).size).toBe(1);
      expect(server.accepted.length).toBe(5);
    };
    await burst(a);
    await a.closedCount(3);
    expect(pool.idle).toBe(2);
    await burst(b);
    await b.closedCount(4);
    expect(pool.idle).toBe(3);
    expect(a.closed).toBe(3);
  });
});
