/**
 * How the Node adapter hands a request to the handler (issue 20: the body is read beside a body-less Request,
 * and the request's signal is the adapter's own), tested on the bundle as a process over raw sockets:
 *
 * - the checks in front of the SDK (path, Host, Origin, authentication, the per-client limit) answer on the
 *   headers, without waiting for a body that has not arrived;
 * - a client that goes away mid-call cancels the call, so its upstream request is closed too.
 */
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const TOKEN = "requests-test-token-0123456789";

let upstream: Upstream;
let root: string;
let open: { child: ChildProcess; port: number };
let authed: { child: ChildProcess; port: number };

beforeAll(async () => {
  upstream = await startUpstream((_req, res) => json(res, 200, { ok: true }));
  // The longest hop timeout the format allows: only a cancellation ends a held call within the test's time.
  const built = await buildOneSpec(
    "requests",
    "held.yaml",
    `specVersion: 1
name: held
version: "1.0.0"
defaults:
  http: { allowInsecureHttp: true, timeoutMs: 120000 }
tools:
  - name: wait
    description: Waits for the upstream.
    http: { url: "${upstream.origin}/wait" }
    output: { select: "@" }
`,
  );
  root = built.root;
  const server = built.serverPath;
  // Short request timeouts: a server that waited for the body before answering would answer 408, not the
  // refusal, and the tests below would fail at once.
  const limits = ["--request-timeout", "3000", "--headers-timeout", "2000"];
  const start = async (args: string[], env: Record<string, string> = {}) => {
    const started = await startHttpServer(server, ["--allow-private-network", ...limits, ...args], env);
    return { child: started.child, port: Number(new URL(started.url).port) };
  };
  open = await start([]);
  authed = await start(["--client-rate-limit", "1"], { KERVANC_AUTH_TOKENS: TOKEN });
});

afterAll(async () => {
  open?.child.kill("SIGKILL");
  authed?.child.kill("SIGKILL");
  await upstream?.close();
  if (root) await removeDir(root);
});

const CALL = JSON.stringify(modernMessage(1, "tools/call", { name: "wait", arguments: {} }));
const MCP_HEADERS = modernHeadersFor("tools/call", "wait");

/**
 * Sends a request's headers (declaring the whole body) and only the first 10 bytes of its body, then waits for
 * the status line without ever sending the rest.
 */
async function statusWithoutBody(port: number, target: string, headers: Record<string, string>): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  let received = "";
  const lines = [`POST ${target} HTTP/1.1`];
  for (const [name, value] of Object.entries({ host: `127.0.0.1:${port}`, ...headers }))
    lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(CALL)}`);
  socket.write(`${lines.join("\r\n")}\r\n\r\n${CALL.slice(0, 10)}`);
  const status = await new Promise<string>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      if (received.includes("\r\n")) resolve(received.slice(0, received.indexOf("\r\n")));
    });
    socket.once("close", () => resolve(received.split("\r\n")[0] ?? ""));
  });
  socket.destroy();
  return status;
}

describe("refusals in front of the SDK", () => {
  it("answer on the headers, before the body has arrived", async () => {
    expect(await statusWithoutBody(open.port, "/other", MCP_HEADERS)).toBe("HTTP/1.1 404 Not Found");
    expect(await statusWithoutBody(open.port, "/mcp", { ...MCP_HEADERS, host: "evil.example.com" })).toBe(
      "HTTP/1.1 403 Forbidden",
    );
    expect(await statusWithoutBody(open.port, "/mcp", { ...MCP_HEADERS, origin: "https://evil.example.com" })).toBe(
      "HTTP/1.1 403 Forbidden",
    );
    // The limit is 1 a minute: the first unauthenticated attempt is refused 401, the next 429.
    expect(await statusWithoutBody(authed.port, "/mcp", MCP_HEADERS)).toBe("HTTP/1.1 401 Unauthorized");
    expect(await statusWithoutBody(authed.port, "/mcp", MCP_HEADERS)).toBe("HTTP/1.1 429 Too Many Requests");
  });
});

describe("a client that goes away mid-call", () => {
  it("cancels the call: its upstream request is closed", async () => {
    const held = new Promise<http.ServerResponse>((resolve) => upstream.handle((_req, res) => resolve(res)));
    const request = http.request({
      host: "127.0.0.1",
      port: open.port,
      path: "/mcp",
      method: "POST",
      headers: MCP_HEADERS,
    });
    request.on("error", () => {});
    request.end(CALL);
    const upstreamResponse = await held;
    const closed = new Promise<void>((resolve) => upstreamResponse.once("close", () => resolve()));
    request.destroy();
    // Without the cancellation the upstream request would stay open for the hop's 120 s.
    await closed;
    expect(upstreamResponse.writableEnded).toBe(false);
    upstream.handle((_req, res) => json(res, 200, { ok: true }));
    // The server goes on serving.
    const answer = await fetch(`http://127.0.0.1:${open.port}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: CALL,
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('{\\"ok\\":true}');
  });
});
