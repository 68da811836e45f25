/**
 * The runtime contract: what every runtime and transport must do with the same build. A list, a valid call (a
 * structured result from a compressed upstream answer), an invalid call that sends nothing upstream, and a
 * secret sent over https and redacted from the result. Plus the edges of Streamable HTTP, checked with raw
 * requests: the MCP headers, 405 on GET, 403 for a foreign Host or Origin, 413 for a big body, 404 off /mcp.
 */
import http from "node:http";
import { connect } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { expect } from "vitest";
import type { ContractClient } from "../helpers/runtime-clients.ts";
import { json, type Upstream, type Handler } from "../helpers/upstream.ts";

/** The secret: long enough to redact, with characters that have distinct encoded forms. */
export const TOKEN = "kv-contract/t0ken+3141592653";

export function contractSpec(origin: string, hostPort: string): string {
  return `
specVersion: 1
name: contract
version: "1.2.3"
description: The runtime contract.
secrets:
  - name: API_TOKEN
    hosts: ["${hostPort}"]
tools:
  - name: get_item
    description: Look up an item by id.
    input:
      type: object
      properties: { id: { type: integer, minimum: 1, maximum: 1000 } }
      required: [id]
      additionalProperties: false
    http: { url: "${origin}/items/{{input.id}}" }
    output:
      select: "{id: id, name: name}"
      schema: { type: object, properties: { id: { type: integer }, name: { type: string } }, required: [id, name] }
  - name: whoami
    description: Who the token belongs to (the upstream echoes the token back).
    http: { url: "${origin}/whoami", headers: { Authorization: "Bearer {{secrets.API_TOKEN}}" } }
    output: { select: "@" }
`;
}

/**
 * The upstream: item answers gzip-compressed and whoami answers br-compressed when asked for them, so every
 * runtime's decoding is part of the contract; whoami reflects the token it received.
 */
export const contractUpstream: Handler = (req, res) => {
  const accepts = (coding: string): boolean =>
    String(req.headers["accept-encoding"] ?? "")
      .split(/\s*,\s*/)
      .includes(coding);
  const send = (value: unknown, coding: "gzip" | "br"): void => {
    const raw = Buffer.from(JSON.stringify(value));
    if (!accepts(coding)) return json(res, 200, value);
    const body = coding === "gzip" ? gzipSync(raw) : brotliCompressSync(raw);
    res
      .writeHead(200, { "content-type": "application/json", "content-encoding": coding, "content-length": body.length })
      .end(body);
  };
  const item = /^\/items\/(\d+)$/.exec(req.path);
  if (item) return send({ id: Number(item[1]), name: `item ${item[1]}`, internal: "not selected" }, "gzip");
  if (req.path === "/whoami") return send({ user: "alice", saw: req.headers["authorization"] ?? null }, "br");
  json(res, 404, { error: "no such route" });
};

/** Runs the contract through one client. `label` names the runtime and transport in failure messages. */
export async function runContract(client: ContractClient, upstream: Upstream, label: string): Promise<void> {
  expect(client.negotiated(), `${label}: era`).toBe(client.era);

  const listed = await client.listTools();
  expect(
    listed.tools.map((t) => t.name),
    `${label}: list`,
  ).toEqual(["get_item", "whoami"]);
  expect(listed.tools[0]!.inputSchema, `${label}: published input schema`).toMatchObject({
    type: "object",
    required: ["id"],
  });

  let before = upstream.requests.length;
  const valid = await client.callTool("get_item", { id: 7 });
  expect(valid.isError, `${label}: valid call: ${JSON.stringify(valid.content)}`).toBeFalsy();
  expect(valid.structuredContent, `${label}: valid call`).toEqual({ id: 7, name: "item 7" });
  expect(upstream.requests.length - before, `${label}: valid call sends one request`).toBe(1);
  expect(upstream.requests.at(-1)!.target, `${label}: valid call target`).toBe("/items/7");

  before = upstream.requests.length;
  const invalid = await client.callTool("get_item", { id: "seven" });
  expect(invalid.isError, `${label}: invalid call`).toBe(true);
  expect(invalid.content?.[0]?.text, `${label}: invalid call`).toMatch(
    /^Input validation error: Invalid arguments for tool get_item: /,
  );
  expect(upstream.requests.length - before, `${label}: an invalid call sends nothing`).toBe(0);

  before = upstream.requests.length;
  const secret = await client.callTool("whoami", {});
  expect(secret.isError, `${label}: secret call: ${JSON.stringify(secret.content)}`).toBeFalsy();
  expect(upstream.requests.length - before, `${label}: secret call sends one request`).toBe(1);
  expect(upstream.requests.at(-1)!.headers["authorization"], `${label}: the secret reached the upstream`).toBe(
    `Bearer ${TOKEN}`,
  );
  expect(JSON.parse(secret.content?.[0]?.text ?? "null"), `${label}: secret redacted`).toEqual({
    user: "alice",
    saw: "Bearer [redacted]",
  });
  const text = JSON.stringify(secret);
  for (const form of [TOKEN, encodeURIComponent(TOKEN), Buffer.from(TOKEN).toString("base64")]) {
    expect(text.includes(form), `${label}: no form of the secret in the result`).toBe(false);
  }
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const DISCOVER = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: META } });
const MODERN_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "server/discover",
};

interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One raw request with exactly these headers (node:http, so Host can be set to anything). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * POSTs a big body over a bare socket and returns the status of the answer. A server that refuses a body by its
 * declared length answers right after the headers and closes without reading the body; a client that is still
 * writing then gets a broken pipe (node:http and fetch report that instead of the answer, and the reset can
 * drop the answer itself). So the headers go first, and the body only if no answer came within two seconds.
 */
function postEarlyAnswer(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const target = new URL(url);
  const bytes = Buffer.from(body);
  const head = [
    `POST ${target.pathname} HTTP/1.1`,
    `host: ${target.host}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${bytes.length}`,
    "connection: close",
    "",
    "",
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    let answer = "";
    const timer = setTimeout(() => socket.write(bytes), 2000);
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
      if (status) {
        clearTimeout(timer);
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      reject(new Error(`no answer: ${JSON.stringify(answer.slice(0, 200))}`));
    });
    socket.write(head);
  });
}

function message(answer: RawAnswer): { result?: Record<string, unknown>; error?: unknown } {
  const text = answer.body.trim().startsWith("{") ? answer.body : (/^data: (.*)$/m.exec(answer.body)?.[1] ?? "null");
  return JSON.parse(text) as never;
}

/** The raw edges of Streamable HTTP, against one endpoint. */
export async function runHttpEdges(url: string, label: string): Promise<void> {
  const host = { host: new URL(url).host };
  const discover = await raw(url, "POST", { ...host, ...MODERN_HEADERS }, DISCOVER);
  expect(discover.status, `${label}: discover`).toBe(200);
  const result = message(discover).result!;
  expect(result["supportedVersions"], `${label}: discover`).toContain("2026-07-28");
  expect(
    (result["_meta"] as Record<string, unknown>)["io.modelcontextprotocol/serverInfo"],
    `${label}: serverInfo`,
  ).toEqual({ name: "contract", version: "1.2.3" });

  const mismatched = await raw(url, "POST", { ...host, ...MODERN_HEADERS, "mcp-method": "tools/list" }, DISCOVER);
  expect(mismatched.status, `${label}: MCP headers that do not match the body`).toBe(400);

  const get = await raw(url, "GET", { ...host, accept: "text/event-stream" });
  expect(get.status, `${label}: GET`).toBe(405);

  const foreignHost = await raw(url, "POST", { ...MODERN_HEADERS, host: "evil.example.com" }, DISCOVER);
  expect(foreignHost.status, `${label}: foreign Host`).toBe(403);
  const foreignOrigin = await raw(
    url,
    "POST",
    { ...host, ...MODERN_HEADERS, origin: "https://evil.example.com" },
    DISCOVER,
  );
  expect(foreignOrigin.status, `${label}: foreign Origin`).toBe(403);

  const pad = "x".repeat(5 * 1024 * 1024);
  const big = await postEarlyAnswer(
    url,
    MODERN_HEADERS,
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: META, pad } }),
  );
  expect(big, `${label}: a body over 4 MiB`).toBe(413);

  const elsewhere = await raw(url.replace(/\/mcp$/, "/other"), "POST", { ...host, ...MODERN_HEADERS }, DISCOVER);
  expect(elsewhere.status, `${label}: off /mcp`).toBe(404);
}
