/**
 * --log-format json (issue 15): every line on stderr is one JSON object; each tool call and each refused
 * request has its line with the documented fields; and a secret the upstream puts into what gets logged (the
 * path of a failing redirect target, in every encoding the redaction covers) appears in no line, in any
 * reading. Also --log-level, and --trust-proxy for the per-client limit.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postStatus, startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { encodings, leaks } from "../helpers/secret-encodings.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";
import type { ChildProcess } from "node:child_process";

const CANARY = 'Cn4ry/+=&"x\\y-tok3n-ZQ';
const TOKEN = "log-test-bearer-token-0123456789";
const FORMS = encodings(CANARY);

let upstream: Upstream;
let root: string;
let serverPath: string;
const children: ChildProcess[] = [];

function spec(origin: string, port: number): string {
  return `
specVersion: 1
name: logs
version: "1.0.0"
secrets:
  - name: API_TOKEN
    hosts: ["localhost:${port}"]
tools:
  - name: echo_path
    description: The upstream redirects to a failing path that carries the secret in one encoding.
    input:
      type: object
      properties: { form: { type: string } }
      required: [form]
    http: { url: "${origin}/start/{{input.form}}", headers: { X-Key: "{{secrets.API_TOKEN}}" }, followRedirects: 1 }
    output: { select: "@" }
  - name: ok
    description: A call that works.
    http: { url: "${origin}/ok", headers: { X-Key: "{{secrets.API_TOKEN}}" } }
    output: { select: "@" }
`;
}

async function start(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stderr: () => string }> {
  const started = await startHttpServer(serverPath, ["--allow-private-network", ...args], {
    API_TOKEN: CANARY,
    NODE_EXTRA_CA_CERTS: TEST_CA,
    KERVANC_AUTH_TOKENS: TOKEN,
    ...env,
  });
  children.push(started.child);
  return started;
}

async function client(url: string): Promise<ModernClient> {
  const c = new ModernClient(
    { name: "t", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await c.connect(new ModernHttp(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return c;
}

beforeAll(async () => {
  upstream = await startUpstream(
    (req, res) => {
      if (req.path.startsWith("/start/")) {
        const form = FORMS[decodeURIComponent(req.path.slice("/start/".length))] ?? CANARY;
        res.writeHead(302, { location: `/fail/${form}` }).end();
      } else if (req.path === "/ok") json(res, 200, { fine: true, echo: CANARY });
      else json(res, 500, { error: CANARY });
    },
    { tls: true, hostname: "localhost" },
  );
  ({ root, serverPath } = await buildOneSpec("logs", "logs.yaml", spec(upstream.origin, upstream.port)));
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await upstream?.close();
  if (root) await removeDir(root);
});

/** The JSON log's lines, each parsed; a line that is not JSON fails the test. */
function records(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

describe("--log-format json", () => {
  let server: { url: string; stderr: () => string };
  beforeAll(async () => {
    server = await start(["--log-format", "json"]);
    const c = await client(server.url);
    try {
      for (const name of Object.keys(FORMS)) await c.callTool({ name: "echo_path", arguments: { form: name } });
      await c.callTool({ name: "ok", arguments: {} });
      await c.callTool({ name: "echo_path", arguments: {} });
    } finally {
      await c.close();
    }
    // A refused request: no token.
    await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  }, 60_000);

  it("writes only JSON lines, with a line per call carrying the documented fields", () => {
    const lines = records(server.stderr());
    const calls = lines.filter((r) => r["event"] === "call");
    expect(calls.length).toBe(Object.keys(FORMS).length + 2);
    for (const call of calls) {
      expect(Object.keys(call).sort()).toEqual([
        "durationMs",
        "event",
        "level",
        "outcome",
        "requestId",
        "responseBytes",
        "time",
        "tool",
        "upstreamStatus",
      ]);
      expect(typeof call["durationMs"]).toBe("number");
      expect(new Date(call["time"] as string).toISOString()).toBe(call["time"]);
    }
    const ok = calls.find((r) => r["tool"] === "ok")!;
    expect(ok).toMatchObject({ level: "info", outcome: "ok", upstreamStatus: 200 });
    expect(ok["responseBytes"]).toBeGreaterThan(0);
    expect(
      calls.filter((r) => r["tool"] === "echo_path" && r["outcome"] === "error" && r["upstreamStatus"] === 500).length,
    ).toBe(Object.keys(FORMS).length);
    expect(calls.find((r) => r["outcome"] === "invalid")).toMatchObject({ tool: "echo_path", upstreamStatus: null });
    expect(new Set(calls.map((r) => r["requestId"])).size).toBe(calls.length);
  });

  it("writes a line per refused request", () => {
    const refused = records(server.stderr()).filter((r) => r["event"] === "refused");
    expect(refused).toEqual([expect.objectContaining({ level: "warn", status: 401, reason: "not authenticated" })]);
  });

  it("holds the secret (and the bearer token) in no line, in any encoding the redaction covers", () => {
    const text = server.stderr();
    // The failing paths were logged (redacted), so the secret had its chance to appear.
    expect(text).toContain("returned 500");
    for (const line of text.split("\n")) {
      expect(leaks(line, CANARY), line).toEqual([]);
      expect(line).not.toContain(TOKEN);
    }
  });
});

describe("refused requests by the thousand", () => {
  it("write 10 records of a kind in a window, not one per request", async () => {
    const server = await start(["--log-format", "json"]);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer wrong-${i}` },
        body: "{}",
      });
      await response.body?.cancel();
      statuses.push(response.status);
    }
    expect(new Set(statuses)).toEqual(new Set([401]));
    const refused = (): Record<string, unknown>[] => records(server.stderr()).filter((r) => r["event"] === "refused");
    for (let waited = 0; refused().length < 10 && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    // Time for any further line to arrive, had one been written.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(refused()).toEqual(
      Array.from({ length: 10 }, () => expect.objectContaining({ status: 401, reason: "not authenticated" })),
    );
  }, 30_000);
});

describe("--log-level", () => {
  it("error leaves out the per-call and warning lines", async () => {
    const server = await start(["--log-format", "json", "--log-level", "error"]);
    const c = await client(server.url);
    try {
      await c.callTool({ name: "ok", arguments: {} });
      await c.callTool({ name: "echo_path", arguments: { form: "raw" } });
    } finally {
      await c.close();
    }
    // Only the readiness line, which supervisors wait for, is written at every level.
    const lines = records(server.stderr());
    expect(lines.filter((r) => r["level"] !== "error" && !String(r["message"]).startsWith("Serving logs on "))).toEqual(
      [],
    );
    expect(lines.length).toBe(1);
  });
});

describe("--trust-proxy", () => {
  const post = (url: string, forwardedFor: string): Promise<number> =>
    postStatus(url, { "content-type": "application/json", "x-forwarded-for": forwardedFor }, "{}");

  it("counts X-Forwarded-For clients separately only from a trusted peer", async () => {
    const env = { KERVANC_AUTH_TOKENS: "" };
    const trusting = await start(["--client-rate-limit", "1", "--trust-proxy", "127.0.0.0/8"], env);
    expect(await post(trusting.url, "203.0.113.1")).not.toBe(429);
    expect(await post(trusting.url, "203.0.113.2")).not.toBe(429);
    expect(await post(trusting.url, "203.0.113.1")).toBe(429);
    // A client cannot dodge the limit by writing its own header: only the rightmost untrusted hop counts.
    expect(await post(trusting.url, "198.51.100.9, 203.0.113.1")).toBe(429);
    // From a peer it does not trust, a server without authentication serves no relayed request at all (403:
    // test/e2e/http-relayed.e2e.test.ts), so no header can make a client of its own there either.
    const untrusting = await start(["--client-rate-limit", "1"], env);
    expect(await post(untrusting.url, "203.0.113.1")).toBe(403);
    expect(await post(untrusting.url, "203.0.113.2")).toBe(403);
  });
});
