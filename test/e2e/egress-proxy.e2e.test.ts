/**
 * Egress through a proxy (issue 15): a generated server, spawned as a process with HTTPS_PROXY set, reaches an
 * HTTPS upstream whose name (api.proxied.test) resolves nowhere but at a real CONNECT proxy on 127.0.0.1. TLS
 * runs end to end (verified against the upstream's name, the proxy relays no plaintext), proxy credentials
 * reach the proxy alone, refusals are clear tool errors, and the address policy and the egress list still
 * hold for what goes through the proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { startProxy, type TestProxy } from "../helpers/proxy.ts";
import { json, PROXIED_CA, startUpstream, type Upstream } from "../helpers/upstream.ts";

const TOKEN = "Tok3n-through-the-tunnel-5551";
const PROXY_USER = "egress";
const PROXY_PASSWORD = "Pr0xy-pa55word-canary";

let upstream: Upstream;
let plain: Upstream;
let root: string;
let serverPath: string;
const proxies: TestProxy[] = [];
const clients: TestClient[] = [];

function spec(port: number, plainPort: number): string {
  return `
specVersion: 1
name: proxied
version: "1.0.0"
secrets:
  - name: API_TOKEN
    hosts: ["api.proxied.test:${port}"]
tools:
  - name: item
    description: An item from the proxied API.
    http: { url: "https://api.proxied.test:${port}/items/1", headers: { Authorization: "Bearer {{secrets.API_TOKEN}}" } }
    output: { select: "@" }
  - name: away
    description: The API redirects to a host outside the egress list.
    http: { url: "https://api.proxied.test:${port}/away", followRedirects: 2 }
    output: { select: "@" }
  - name: wrong_name
    description: A name the upstream's certificate does not carry.
    http: { url: "https://other.proxied.test:${port}/items/1" }
    output: { select: "@" }
  - name: literal
    description: An IP-literal upstream, still checked against the address policy.
    http: { url: "https://127.0.0.1:${port}/items/1" }
    output: { select: "@" }
  - name: reflect_proxy
    description: A careless upstream that echoes the proxy's password.
    http: { url: "https://api.proxied.test:${port}/reflect" }
    output: { select: "@" }
  - name: plain
    description: A plain-http upstream, sent to the proxy in absolute form.
    http: { url: "http://api.proxied.test:${plainPort}/plain", allowInsecureHttp: true }
    output: { select: "@" }
  - name: local_name
    description: A name that resolves here; its answer is still checked.
    http: { url: "https://localhost:${port}/items/1" }
    output: { select: "@" }
`;
}

const text = (result: { content?: { text?: string }[] }): string =>
  (result.content ?? []).map((c) => c.text ?? "").join("\n");

async function serve(env: Record<string, string>): Promise<TestClient> {
  const client = await connect("modern", serverPath, {
    nodeArgs: ["--disallow-code-generation-from-strings"],
    env: { API_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: PROXIED_CA, ...env },
  });
  clients.push(client);
  return client;
}

async function proxy(options: Parameters<typeof startProxy>[0] = {}): Promise<TestProxy> {
  const started = await startProxy(options);
  proxies.push(started);
  return started;
}

beforeAll(async () => {
  upstream = await startUpstream(
    (req, res) => {
      if (req.path === "/reflect")
        json(res, 200, {
          leak: PROXY_PASSWORD,
          encoded: encodeURIComponent(PROXY_PASSWORD),
          b64: Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64"),
        });
      else if (req.path === "/away") res.writeHead(302, { location: "https://elsewhere.proxied.test/steal" }).end();
      else
        json(res, 200, {
          id: 1,
          authorization: req.headers.authorization ?? null,
          proxyAuthorization: req.headers["proxy-authorization"] ?? null,
        });
    },
    { tls: true, hostname: "api.proxied.test", tlsFiles: { key: "proxied-key.pem", cert: "proxied.pem" } },
  );
  plain = await startUpstream((req, res) =>
    json(res, 200, {
      plain: true,
      host: req.headers.host ?? null,
      proxyAuthorization: req.headers["proxy-authorization"] ?? null,
    }),
  );
  ({ root, serverPath } = await buildOneSpec("proxied", "proxied.yaml", spec(upstream.port, plain.port)));
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  for (const p of proxies) await p.close();
  await upstream?.close();
  await plain?.close();
  if (root) await removeDir(root);
});

describe("without a proxy", () => {
  it("cannot reach a name that resolves only at the proxy", async () => {
    const client = await serve({});
    const result = await client.callTool("item", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("could not be resolved");
  });
});

describe("through an open CONNECT proxy", () => {
  let open: TestProxy;
  let client: TestClient;
  beforeAll(async () => {
    open = await proxy();
    client = await serve({ HTTPS_PROXY: open.url });
  });

  it("tunnels to the upstream by name, with TLS end to end", async () => {
    const result = await client.callTool("item", {});
    expect(text(result) + client.stderr()).toContain('"id":1');
    expect(open.connects).toContain(`api.proxied.test:${upstream.port}`);
    // The secret went to the upstream, inside TLS: the proxy relayed no plaintext of it.
    expect(text(result)).not.toContain(TOKEN);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(open.relayed().length).toBeGreaterThan(0);
    expect(open.relayed()).not.toContain(TOKEN);
    expect(open.relayed()).not.toContain("/items/1");
  });

  it("verifies the certificate against the upstream's name, not the proxy's", async () => {
    const result = await client.callTool("wrong_name", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("other.proxied.test");
    expect(text(result)).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
  });

  it("still enforces the egress list on a redirect", async () => {
    const before = open.connects.length;
    const result = await client.callTool("away", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("outside this server's egress list");
    expect(open.connects.slice(before).every((target) => !target.startsWith("elsewhere."))).toBe(true);
  });

  it("still checks an IP-literal upstream against the address policy", async () => {
    const before = open.connects.length;
    const result = await client.callTool("literal", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("disallowed address");
    expect(open.connects.length).toBe(before);
  });

  it("still checks the answer for a name that resolves locally", async () => {
    const before = open.connects.length;
    const result = await client.callTool("local_name", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("disallowed address");
    expect(open.connects.length).toBe(before);
  });
});

describe("a proxy that needs credentials", () => {
  let guarded: TestProxy;
  beforeAll(async () => {
    guarded = await proxy({ credentials: `${PROXY_USER}:${PROXY_PASSWORD}` });
  });

  it("gets them from the proxy URL's userinfo, and the upstream never sees them", async () => {
    const client = await serve({
      https_proxy: `http://${PROXY_USER}:${encodeURIComponent(PROXY_PASSWORD)}@127.0.0.1:${guarded.port}`,
    });
    const result = await client.callTool("item", {});
    expect(result.isError).not.toBe(true);
    expect(JSON.parse(text(result))).toMatchObject({ id: 1, proxyAuthorization: null });
    expect(guarded.authorizations.at(-1)).toBe(
      `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64")}`,
    );
    expect(client.stderr()).toContain(`127.0.0.1:${guarded.port} (with credentials)`);
    expect(client.stderr()).not.toContain(PROXY_PASSWORD);
    // The proxy credential is in the redaction vault: an upstream that echoes it cannot get it to the client.
    const reflected = text(await client.callTool("reflect_proxy", {}));
    expect(reflected).toContain("[redacted]");
    for (const form of [
      PROXY_PASSWORD,
      encodeURIComponent(PROXY_PASSWORD),
      Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64"),
    ])
      expect(reflected).not.toContain(form);
  });

  it("a 407 is a tool error naming the status and the upstream, without the credentials, and the server keeps serving", async () => {
    const wrong = "wrong-pa55word-canary";
    const client = await serve({ HTTPS_PROXY: `http://${PROXY_USER}:${wrong}@127.0.0.1:${guarded.port}` });
    const result = await client.callTool("item", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("407 Proxy Authentication Required");
    expect(text(result)).toContain(`api.proxied.test:${upstream.port}`);
    expect(text(result)).not.toContain(wrong);
    expect(client.stderr()).not.toContain(wrong);
    expect((await client.listTools()).tools.length).toBe(7);
    expect((await client.callTool("item", {})).isError).toBe(true);
  });
});

describe("HTTP_PROXY for a plain-http upstream", () => {
  it("sends the request to the proxy in absolute form, with credentials for the proxy only", async () => {
    const guarded = await proxy({ credentials: `${PROXY_USER}:${PROXY_PASSWORD}` });
    const client = await serve({
      HTTP_PROXY: `http://${PROXY_USER}:${encodeURIComponent(PROXY_PASSWORD)}@127.0.0.1:${guarded.port}`,
    });
    const result = await client.callTool("plain", {});
    expect(JSON.parse(text(result))).toEqual({
      plain: true,
      host: `api.proxied.test:${plain.port}`,
      proxyAuthorization: null,
    });
    expect(guarded.authorizations.at(-1)).toBe(
      `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString("base64")}`,
    );
    // HTTPS_PROXY is not set: an https upstream goes direct (and its name does not resolve here).
    expect(text(await client.callTool("item", {}))).toContain("could not be resolved");
  });

  it("a 407 from the proxy is a tool error naming it", async () => {
    const guarded = await proxy({ credentials: `${PROXY_USER}:${PROXY_PASSWORD}` });
    const client = await serve({ HTTP_PROXY: `http://127.0.0.1:${guarded.port}` });
    const result = await client.callTool("plain", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("egress proxy refused it (407 Proxy Authentication Required)");
  });
});

describe("a proxy that refuses or drops the tunnel", () => {
  for (const status of [403, 502]) {
    it(`names the proxy's ${status}`, async () => {
      const refusing = await proxy({ refuseWith: status });
      const client = await serve({ HTTPS_PROXY: refusing.url });
      const result = await client.callTool("item", {});
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(`egress proxy refused the tunnel (${status} `);
      expect(text(result)).toContain(`api.proxied.test:${upstream.port}`);
    });
  }

  it("says the proxy dropped the tunnel", async () => {
    const dropping = await proxy({ drop: true });
    const client = await serve({ HTTPS_PROXY: dropping.url });
    const result = await client.callTool("item", {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("egress proxy dropped the tunnel");
    expect((await client.listTools()).tools.length).toBe(7);
  });
});

describe("NO_PROXY", () => {
  it("sends a matching host directly (and so it does not resolve here)", async () => {
    const open = await proxy();
    const client = await serve({ HTTPS_PROXY: open.url, NO_PROXY: "localhost,.proxied.test" });
    const result = await client.callTool("item", {});
    expect(text(result)).toContain("could not be resolved");
    expect(open.connects).toEqual([]);
  });
});

describe("a malformed proxy variable", () => {
  it("stops the server at start-up instead of going direct", async () => {
    await expect(serve({ HTTPS_PROXY: "https://127.0.0.1:1" })).rejects.toThrow();
  });
});
