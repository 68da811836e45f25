/**
 * Baseline (a): a hand-written MCP server with the official SDK v2, the practical limit for the work one tool
 * does. One low-level `Server` with the listing computed once, the tool's work inline (tool.ts), both protocol
 * eras through the SDK's own entry points: `serveStdio(factory, { legacy: "serve" })` over stdio, and
 * `createMcpHandler` behind a small node:http adapter with `--http`.
 *
 *   node server.mjs --upstream http://127.0.0.1:PORT [--http --port N] [--fresh-connections]
 *
 * The upstream is fetched with node:http through a keep-alive agent, as a hand-written server would;
 * `--fresh-connections` opens a new connection per call instead (see send.ts).
 * The bearer token is read from BENCH_API_TOKEN when set.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { parseArgs } from "node:util";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type jsonSchemaValidator,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { nodeSend } from "./send.ts";
import { callTool, LISTING, TOOL_NAME } from "./tool.ts";

const { values } = parseArgs({
  options: {
    upstream: { type: "string" },
    http: { type: "boolean", default: false },
    port: { type: "string", default: "0" },
    "fresh-connections": { type: "boolean", default: false },
  },
});
const upstream = new URL(values.upstream ?? process.env["BENCH_UPSTREAM"] ?? "http://127.0.0.1:8080");
const send = nodeSend(upstream, values["fresh-connections"]);

const ctx = { send, token: process.env["BENCH_API_TOKEN"], timeoutMs: 10_000 };

// The SDK's default validator compiles schemas with Ajv at run time; this server validates by hand instead.
const noSchemas: jsonSchemaValidator = {
  getValidator() {
    throw new Error("no run-time schemas");
  },
};
const listing = { tools: [LISTING] };
const info = { name: "handwritten", version: "1.0.0" };
const options = { capabilities: { tools: {} }, jsonSchemaValidator: noSchemas };

function factory(): Server {
  const server = new Server(info, options);
  server.setRequestHandler("tools/list", () => listing as never);
  server.setRequestHandler("tools/call", async (request) => {
    if (request.params.name !== TOOL_NAME)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    const result = await callTool(request.params.arguments, ctx);
    // The hand-written result type is narrower than the SDK's CallToolResult, which has an index signature.
    return result.isError ? (result as never) : server.projectCallToolResult(result as never, LISTING.outputSchema);
  });
  return server;
}

if (!values.http) {
  serveStdio(factory, { legacy: "serve" });
} else {
  const mcp = createMcpHandler(factory, { legacy: "stateless" });
  const allowed = localhostAllowedHostnames();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = new Headers();
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(new URL(req.url ?? "/", "http://127.0.0.1"), {
        method: req.method ?? "GET",
        headers,
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      });
      const refused = hostHeaderValidationResponse(request, allowed);
      void (refused ? Promise.resolve(refused) : mcp.fetch(request))
        .then(async (response) => {
          const body = Buffer.from(await response.arrayBuffer());
          const out: Record<string, string> = {};
          response.headers.forEach((value, name) => (out[name] = value));
          res.writeHead(response.status, out).end(body);
        })
        .catch((error: unknown) => {
          process.stderr.write(`request failed: ${String(error)}\n`);
          if (!res.headersSent) res.writeHead(500);
          res.end();
        });
    });
  });
  server.listen(Number(values.port), "127.0.0.1", () => {
    process.stderr.write(`Serving handwritten on http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
  });
  // Exit through process.exit, so --cpu-prof can write its profile.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0));
}
