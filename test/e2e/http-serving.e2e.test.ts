/**
 * Streamable HTTP end to end: the bundle started with --http, spoken to by the SDK v2 client (2026-07-28) and
 * the SDK v1 client (2025-11-25) over a real socket, and by raw requests for the transport's edges.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { removeDir } from "../helpers/kervanc.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";
import type { Upstream } from "../helpers/upstream.ts";
import { buildWeatherServer } from "../helpers/weather.ts";

let upstream: Upstream;
let outDir: string;
let server: ChildProcess;
let endpoint: string;
let stderr = "";

beforeAll(async () => {
  const weather = await buildWeatherServer();
  ({ upstream, outDir } = weather);
  const started = await startHttpServer(weather.serverPath, ["--allow-private-network"]);
  server = started.child;
  endpoint = started.url;
  server.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
});

afterAll(async () => {
  server?.kill("SIGKILL");
  await upstream?.close();
  if (outDir) await removeDir(join(outDir, ".."));
});

describe("Streamable HTTP", () => {
  it("serves a 2026-07-28 client", async () => {
    const client = new ModernClient(
      { name: "t", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await client.connect(new ModernHttp(new URL(endpoint)));
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_current_weather"]);
      const result = await client.callTool({ name: "get_current_weather", arguments: { latitude: 1, longitude: 2 } });
      expect(result.structuredContent).toEqual({ temperatureC: 3.5, windKmh: 10, weatherCode: 61 });
      const invalid = await client.callTool({ name: "get_current_weather", arguments: { latitude: "x" } });
      expect(invalid.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("serves a 2025-11-25 client statelessly", async () => {
    const client = new LegacyClient({ name: "t", version: "1" });
    await client.connect(new LegacyHttp(new URL(endpoint)));
    try {
      expect(client.getServerVersion()).toEqual({ name: "open-meteo", version: "0.1.0" });
      const result = await client.callTool({ name: "get_current_weather", arguments: { latitude: 1, longitude: 2 } });
      expect(result.structuredContent).toEqual({ temperatureC: 3.5, windKmh: 10, weatherCode: 61 });
    } finally {
      await client.close();
    }
  });

  const discover = modernMessage(1, "server/discover");
  const modernHeaders = modernHeadersFor("server/discover");

  it("answers server/discover with the MCP headers", async () => {
    const response = await fetch(endpoint, { method: "POST", headers: modernHeaders, body: JSON.stringify(discover) });
    expect(response.status).toBe(200);
    const text = await response.text();
    // A JSON answer goes out in one write with its length (node-http.ts); only SSE is streamed in chunks.
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(response.headers.get("transfer-encoding")).toBeNull();
    const body = JSON.parse(text.startsWith("{") ? text : (/data: (.*)/.exec(text)?.[1] ?? "null"));
    expect(body.result.supportedVersions).toContain("2026-07-28");
    expect(body.result._meta["io.modelcontextprotocol/serverInfo"]).toEqual({ name: "open-meteo", version: "0.1.0" });
    expect(body.result.instructions).toBe("Current weather for any place on Earth, from Open-Meteo.");
  });

  it("refuses a request whose MCP headers do not match its body", async () => {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { ...modernHeaders, "mcp-method": "tools/list" },
      body: JSON.stringify(discover),
    });
    expect(response.status).toBe(400);
  });

  it("answers GET with 405 (no sessions, no standalone stream for 2025 clients)", async () => {
    const response = await fetch(endpoint, { headers: { accept: "text/event-stream" } });
    expect(response.status).toBe(405);
  });

  it("refuses a foreign Host header and a foreign Origin with 403", async () => {
    const { request } = await import("node:http");
    const status = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const url = new URL(endpoint);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: "/mcp",
            method: "POST",
            headers: { ...modernHeaders, ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify(discover));
      });
    expect(await status({ host: "evil.example.com" })).toBe(403);
    expect(await status({ origin: "https://evil.example.com" })).toBe(403);
    expect(await status({ origin: "http://localhost:1234" })).toBe(200);
  });

  it("refuses a body over 4 MiB with 413", async () => {
    const big = JSON.stringify({ ...discover, params: { ...discover.params, pad: "x".repeat(5 * 1024 * 1024) } });
    const response = await fetch(endpoint, { method: "POST", headers: modernHeaders, body: big });
    expect(response.status).toBe(413);
  });

  it("serves only /mcp", async () => {
    const response = await fetch(endpoint.replace(/\/mcp$/, "/other"), {
      method: "POST",
      headers: modernHeaders,
      body: "{}",
    });
    expect(response.status).toBe(404);
  });

  it("drains and exits on SIGTERM", async () => {
    const started = await startHttpServer(join(outDir, "open-meteo", "server.mjs"), ["--allow-private-network"]);
    const exited = new Promise<number | null>((resolve) => started.child.on("exit", (code) => resolve(code)));
    started.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(started.stderr()).toContain("Stopping: waiting for calls in flight.");
  });

  it("refuses to listen off loopback without --allowed-host", async () => {
    await expect(startHttpServer(join(outDir, "open-meteo", "server.mjs"), ["--host", "0.0.0.0"])).rejects.toThrow(
      /Listening on 0\.0\.0\.0 \(not loopback\) needs --allowed-host/,
    );
  });
});
