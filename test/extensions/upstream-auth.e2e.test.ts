/**
 * The kervanc upstream-auth extension (docs/extensions/upstream-auth.md), end to end: a generated server process,
 * the SDK clients over stdio and Streamable HTTP, an OAuth token endpoint and an API on 127.0.0.1 over https (the
 * test CA), both counting what they get. Client credentials: fetched once and kept, one request for 50 calls at
 * once, renewed before expiry, renewed once after a 401 (never in a loop), both client authentication forms, and
 * an endpoint that refuses, fails, hangs or answers too much. Caller headers: read per request, refused when
 * missing or not plain ASCII, never over stdio. Every token and header value is redacted where the API echoes it.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { startHttpServer } from "../helpers/http.ts";
import { join } from "node:path";
import { buildOneSpec, kervanc, removeDir } from "../helpers/kervanc.ts";
import { leaks } from "../helpers/secret-encodings.ts";
import { json, type RecordedRequest, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const CLIENT_ID = "crm-client-id-0001";
const CLIENT_SECRET = "crm-client-secret-canary-7f3a";

let tokens: Upstream;
let api: Upstream;
let root: string;
let serverPath: string;
let client: TestClient;
const children: ChildProcess[] = [];
/** Tokens issued per token endpoint path, in order. */
const issued = new Map<string, string[]>();
/** Paths the token endpoint holds its answer for (to see many calls wait on one request). */
let tokenDelayMs = 0;

const text = (r: { content?: { type: string; text?: string }[] }): string => r.content?.[0]?.text ?? "";
const tokenRequests = (path: string): RecordedRequest[] => tokens.requests.filter((r) => r.path === path);
const apiRequests = (path: string): RecordedRequest[] => api.requests.filter((r) => r.path === path);
const form = (r: RecordedRequest): URLSearchParams => new URLSearchParams(r.body);

function credential(name: string, path: string, extra = ""): string {
  return `
  ${name}:
    oauth2ClientCredentials:
      tokenUrl: "TOKENS/${path}"
      clientId: "{{secrets.CRM_CLIENT_ID}}"
      clientSecret: "{{secrets.CRM_CLIENT_SECRET}}"${extra}`;
}

function tool(name: string, header: string, path = name): string {
  return `
  - name: ${name}
    description: ${name}
    rateLimit: { perMinute: 1000, concurrency: 100 }
    http:
      url: "API/${path}"
      headers: { ${header} }
    output: { select: "@" }`;
}

const SPEC = `specVersion: 1
kervancExtensions: [upstream-auth]
name: crm
version: "1.0.0"
secrets: [CRM_CLIENT_ID, CRM_CLIENT_SECRET]
credentials:${credential("crm", "token", "\n      scopes: [crm.read, crm.write]\n      audience: https://api.example.com")}${credential("burst", "burst")}${credential("short", "short")}${credential("revoking", "revoking")}${credential("form_auth", "form", "\n      clientAuth: body")}${credential("refused", "refused")}${credential("failing", "failing")}${credential("huge", "huge")}${credential("hanging", "hanging")}${credential("not_bearer", "mac")}
  crm_key:
    callerHeader: X-Crm-Key
tools:${tool("accounts", 'Authorization: "Bearer {{credentials.crm}}"', "echo")}${tool("burst", 'Authorization: "Bearer {{credentials.burst}}"', "echo")}${tool("short", 'Authorization: "Bearer {{credentials.short}}"', "echo")}${tool("revoked_once", 'Authorization: "Bearer {{credentials.revoking}}"')}${tool("always_401", 'Authorization: "Bearer {{credentials.crm}}"')}${tool("form_auth", 'Authorization: "Bearer {{credentials.form_auth}}"', "echo")}${tool("refused", 'Authorization: "Bearer {{credentials.refused}}"', "echo")}${tool("failing", 'Authorization: "Bearer {{credentials.failing}}"', "echo")}${tool("huge", 'Authorization: "Bearer {{credentials.huge}}"', "echo")}${tool("not_bearer", 'Authorization: "Bearer {{credentials.not_bearer}}"', "echo")}
  - name: hanging
    description: hanging
    http:
      url: "API/echo"
      timeoutMs: 200
      headers: { Authorization: "Bearer {{credentials.hanging}}" }
    output: { select: "@" }${tool("with_key", 'X-Api-Key: "{{credentials.crm_key}}"', "echo")}
`;

beforeAll(async () => {
  tokens = await startUpstream(
    async (req, res) => {
      const list = issued.get(req.path) ?? [];
      issued.set(req.path, list);
      const mint = (): string => {
        const token = `tok${req.path.replace(/\W/g, "")}-${list.length + 1}-${Math.random().toString(36).slice(2, 10)}`;
        list.push(token);
        return token;
      };
      switch (req.path) {
        case "/burst":
          await new Promise((resolve) => setTimeout(resolve, 300));
          return json(res, 200, { access_token: mint(), token_type: "Bearer", expires_in: 3600 });
        case "/short":
          // Renewed a second before it expires (half of its two-second life).
          return json(res, 200, { access_token: mint(), token_type: "bearer", expires_in: 2 });
        case "/refused":
          // An error description that quotes the client secret: never shown.
          return json(res, 401, {
            error: "invalid_client",
            error_description: `client secret ${CLIENT_SECRET} is wrong`,
          });
        case "/failing":
          return void res.writeHead(500, { "content-type": "text/html" }).end(`<h1>down ${CLIENT_SECRET}</h1>`);
        case "/huge":
          return json(res, 200, { access_token: mint(), padding: "x".repeat(100_000) });
        case "/hanging":
          return; // never answers
        case "/mac":
          return json(res, 200, { access_token: mint(), token_type: "mac", expires_in: 60 });
        default:
          if (tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, tokenDelayMs));
          return json(res, 200, { access_token: mint(), token_type: "Bearer", expires_in: 3600 });
      }
    },
    { tls: true },
  );
  api = await startUpstream(
    (req, res) => {
      const auth = req.headers.authorization ?? "";
      switch (req.path) {
        case "/revoked_once": {
          // The first token issued for `revoking` is revoked: only a later one is taken.
          const first = issued.get("/revoking")?.[0];
          if (auth === `Bearer ${first}`) return json(res, 401, { error: "token revoked" });
          return json(res, 200, { ok: true, auth });
        }
        case "/always_401":
          return json(res, 401, { error: "no" });
        default:
          // Echoes what the API received, as an API that reflects its input would: the tokens must not reach the model.
          return json(res, 200, {
            authorization: auth,
            base64: Buffer.from(auth).toString("base64"),
            key: req.headers["x-api-key"] ?? null,
          });
      }
    },
    { tls: true },
  );
  ({ root, serverPath } = await buildOneSpec(
    "upstream-auth",
    "crm.yaml",
    SPEC.replaceAll("TOKENS", tokens.origin).replaceAll("API", api.origin),
  ));
  client = await connect("modern", serverPath, { serverArgs: ["--allow-private-network"], env: serverEnv() });
}, 60_000);

function serverEnv(): Record<string, string> {
  return { NODE_EXTRA_CA_CERTS: TEST_CA, CRM_CLIENT_ID: CLIENT_ID, CRM_CLIENT_SECRET: CLIENT_SECRET };
}

afterAll(async () => {
  await client?.close();
  for (const child of children) child.kill("SIGKILL");
  await tokens?.close();
  await api?.close();
  if (root) await removeDir(root);
});

describe("oauth2ClientCredentials", () => {
  it("gets a token on first use with HTTP Basic, sends it, and keeps it for the next call", async () => {
    const first = await client.callTool("accounts", {});
    expect(first.isError ?? false).toBe(false);
    const second = await client.callTool("accounts", {});
    expect(second.isError ?? false).toBe(false);
    const requests = tokenRequests("/token");
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.method).toBe("POST");
    expect(request!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(request!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`,
    );
    expect(Object.fromEntries(form(request!))).toEqual({
      grant_type: "client_credentials",
      scope: "crm.read crm.write",
      audience: "https://api.example.com",
    });
    // The API got the token; the model sees it redacted, in the plain and the base64 echo alike.
    const token = issued.get("/token")![0]!;
    expect(apiRequests("/echo").at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    expect(JSON.parse(text(second))).toMatchObject({ authorization: "Bearer [redacted]", key: null });
    expect(leaks(text(second), token)).toEqual([]);
    expect(client.stderr()).not.toContain(token);
  });

  it("sends the client id and secret as form fields with clientAuth: body", async () => {
    const r = await client.callTool("form_auth", {});
    expect(r.isError ?? false).toBe(false);
    const [request] = tokenRequests("/form");
    expect(request!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(form(request!))).toEqual({
      grant_type: "client_credentials",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
  });

  it("makes one token request for 50 calls at once", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => client.callTool("burst", {})));
    expect(results.filter((r) => r.isError === true).map(text)).toEqual([]);
    expect(tokenRequests("/burst")).toHaveLength(1);
  });

  it("renews a token shortly before it expires", async () => {
    await client.callTool("short", {});
    await client.callTool("short", {});
    expect(tokenRequests("/short")).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const r = await client.callTool("short", {});
    expect(r.isError ?? false).toBe(false);
    expect(tokenRequests("/short")).toHaveLength(2);
    expect(apiRequests("/echo").at(-1)!.headers.authorization).toBe(`Bearer ${issued.get("/short")![1]}`);
  });

  it("gets a new token after a 401 and tries once more", async () => {
    const r = await client.callTool("revoked_once", {});
    expect(r.isError ?? false).toBe(false);
    expect(tokenRequests("/revoking")).toHaveLength(2);
    expect(apiRequests("/revoked_once")).toHaveLength(2);
    expect(client.stderr()).toMatch(/returned 401; getting a new token for revoking and trying once more/);
  });

  it("tries once more after a 401, not in a loop", async () => {
    const before = tokenRequests("/token").length;
    const r = await client.callTool("always_401", {});
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("401");
    expect(apiRequests("/always_401")).toHaveLength(2);
    expect(tokenRequests("/token")).toHaveLength(before + 1);
  });

  it("says which credential the token endpoint refused, with its OAuth error code and never its words", async () => {
    const r = await client.callTool("refused", {});
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(
      `The token endpoint refused credential refused (token endpoint ${new URL(tokens.origin).host}): HTTP 401, error invalid_client.`,
    );
    expect(apiRequests("/echo").some((q) => q.headers.authorization === undefined)).toBe(false);
  });

  it("reports a failing, oversized or non-bearer answer without its body", async () => {
    const host = new URL(tokens.origin).host;
    const failing = await client.callTool("failing", {});
    expect(text(failing)).toBe(`The token endpoint refused credential failing (token endpoint ${host}): HTTP 500.`);
    const huge = await client.callTool("huge", {});
    expect(text(huge)).toMatch(
      /^Could not get a token for credential huge \(token endpoint [^)]+\)\. The response from .* is larger than 65536 bytes/,
    );
    const mac = await client.callTool("not_bearer", {});
    expect(text(mac)).toBe(
      `The token endpoint issued credential not_bearer (token endpoint ${host}) a token that is not a bearer token (mac).`,
    );
    for (const r of [failing, huge, mac]) expect(JSON.stringify(r)).not.toContain(CLIENT_SECRET);
  });

  it("ends a call whose token request hangs, with the tool's timeout", async () => {
    const started = Date.now();
    const r = await client.callTool("hanging", {});
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Tool "hanging" timed out after 5200 ms.');
    expect(Date.now() - started).toBeLessThan(9_000);
  }, 15_000);

  it("never shows the client secret or a token in the log", () => {
    const log = client.stderr();
    for (const secret of [CLIENT_SECRET, ...[...issued.values()].flat()]) expect(leaks(log, secret)).toEqual([]);
  });
});

describe("callerHeader", () => {
  let endpoint: string;

  beforeAll(async () => {
    const started = await startHttpServer(serverPath, ["--allow-private-network"], serverEnv());
    children.push(started.child);
    endpoint = started.url;
  }, 30_000);

  it("sends the header the client sent, per request, and redacts it from the result (SDK v2 and v1)", async () => {
    for (const [era, key] of [
      ["modern", "caller-key-modern-1234"],
      ["legacy", "caller-key-legacy-5678"],
    ] as const) {
      const requestInit = { headers: { "x-crm-key": key } };
      const sdk =
        era === "modern"
          ? new ModernClient({ name: "t", version: "1" })
          : new LegacyClient({ name: "t", version: "1" });
      await sdk.connect(
        era === "modern"
          ? new ModernHttp(new URL(endpoint), { requestInit })
          : (new LegacyHttp(new URL(endpoint), { requestInit }) as never),
      );
      try {
        const r = (await sdk.callTool({ name: "with_key", arguments: {} })) as { content: { text: string }[] };
        expect(apiRequests("/echo").at(-1)!.headers["x-api-key"]).toBe(key);
        expect(JSON.parse(r.content[0]!.text).key).toBe("[redacted]");
        expect(leaks(r.content[0]!.text, key)).toEqual([]);
      } finally {
        await sdk.close();
      }
    }
  });

  it("refuses a call without the header, before any request", async () => {
    const before = api.requests.length;
    const sdk = new ModernClient({ name: "t", version: "1" });
    await sdk.connect(new ModernHttp(new URL(endpoint)));
    try {
      const r = (await sdk.callTool({ name: "with_key", arguments: {} })) as ToolText;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toBe(
        "This tool needs the x-crm-key header on the MCP request (credential crm_key); the request has none. No request was sent.",
      );
    } finally {
      await sdk.close();
    }
    expect(api.requests.length).toBe(before);
  });

  it("refuses a header value that is not plain ASCII, or too short to redact", async () => {
    const before = api.requests.length;
    for (const [value, message] of [
      ["caf\u00e9-caller-key-1234", /holds a line break, a control character or a character that is not ASCII/],
      ["short", /shorter than 8 characters/],
    ] as const) {
      const sdk = new ModernClient({ name: "t", version: "1" });
      await sdk.connect(new ModernHttp(new URL(endpoint), { requestInit: { headers: { "x-crm-key": value } } }));
      try {
        const r = (await sdk.callTool({ name: "with_key", arguments: {} })) as ToolText;
        expect(r.isError).toBe(true);
        expect(r.content[0]!.text).toMatch(message);
      } finally {
        await sdk.close();
      }
    }
    expect(api.requests.length).toBe(before);
  });

  it("never lets a line break into a header value: the HTTP parser refuses the request, nothing is sent", async () => {
    const before = api.requests.length;
    const { connect: tcp } = await import("node:net");
    const target = new URL(endpoint);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    for (const value of ["caller-key\rInjected: 1", "caller-key\r\n folded-continuation", "caller-key\nX-Evil: 1"]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = tcp(Number(target.port), target.hostname, () => {
          socket.end(
            `POST /mcp HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nX-Crm-Key: ${value}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
          );
        });
        let text = "";
        socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
        socket.on("close", () => resolve(text));
        socket.on("error", reject);
      });
      expect(answer, JSON.stringify(value)).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(api.requests.length).toBe(before);
  });

  it("over stdio says the header needs Streamable HTTP", async () => {
    const r = await client.callTool("with_key", {});
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("this server runs over stdio, where there are no request headers");
  });
});

describe("the inner loop and the strict build", () => {
  it("kervanc call --caller-header gives a stdio call the caller's header, redacted in what it prints", async () => {
    const key = "caller-key-from-the-cli-42";
    const called = await kervanc(
      ["call", join(root, "specs", "crm.yaml"), "with_key", "{}", "--caller-header", `X-Crm-Key=${key}`],
      {
        env: { ...process.env, ...serverEnv() },
      },
    );
    expect(called.code, called.stderr).toBe(0);
    expect(apiRequests("/echo").at(-1)!.headers["x-api-key"]).toBe(key);
    expect(JSON.parse(called.stdout).key).toBe("[redacted]");
    expect(called.stderr).not.toContain(key);
    // A header name is required before the "=", and the value is not echoed.
    const bad = await kervanc([
      "call",
      join(root, "specs", "crm.yaml"),
      "with_key",
      "{}",
      "--caller-header",
      `=${key}`,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).not.toContain(key);
  }, 60_000);

  it("kervanc test stands in for the token endpoint and the caller: {{credentials.x}} in a case is the placeholder", async () => {
    const { mkdir, writeFile } = await import("node:fs/promises");
    const folder = join(root, "spec-tests");
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, "crm.yaml"),
      `specVersion: 1
kervancExtensions: [upstream-auth]
name: crm
version: "1.0.0"
secrets: [CRM_CLIENT_ID, CRM_CLIENT_SECRET]
credentials:
  crm:
    oauth2ClientCredentials:
      tokenUrl: https://login.example.com/oauth2/token
      clientId: "{{secrets.CRM_CLIENT_ID}}"
      clientSecret: "{{secrets.CRM_CLIENT_SECRET}}"
  crm_key:
    callerHeader: X-Crm-Key
tools:
  - name: accounts
    description: accounts
    http:
      url: https://api.example.com/v1/accounts
      headers: { Authorization: "Bearer {{credentials.crm}}", X-Key: "{{credentials.crm_key}}" }
    output: { select: "@" }
`,
    );
    const cases = (authorization: string): string => `tests:
  - name: sends the token and the caller's key, and redacts their echo
    tool: accounts
    upstream:
      request:
        headers: { authorization: "${authorization}", x-key: "{{credentials.crm_key}}" }
      response:
        body: { echoed: "{{credentials.crm}}", key: "{{credentials.crm_key}}" }
    expect:
      text: '{"echoed":"[redacted]","key":"[redacted]"}'
`;
    await writeFile(join(folder, "crm.test.yaml"), cases("Bearer {{credentials.crm}}"));
    const passed = await kervanc(["test", folder]);
    expect(passed.code, passed.stderr + passed.stdout).toBe(0);
    await writeFile(join(folder, "crm.test.yaml"), cases("Bearer something-else"));
    const failed = await kervanc(["test", folder]);
    expect(failed.code).toBe(1);
    // The failure shows the token as its placeholder name, never its value.
    expect(failed.stdout + failed.stderr).toContain("{{credentials.crm}}");
    expect(failed.stdout + failed.stderr).not.toMatch(/kervanc-test-credential-/);
  }, 60_000);

  it("kervanc build --strict-kervan refuses the spec", async () => {
    const strict = await kervanc(["build", join(root, "specs"), "-o", join(root, "strict-out"), "--strict-kervan"]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(
      "error KV8001: kervancExtensions: This spec uses the kervanc extension upstream-auth",
    );
  }, 60_000);
});

type ToolText = { isError?: boolean; content: { text: string }[] };
