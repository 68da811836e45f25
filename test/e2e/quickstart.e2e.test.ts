/**
 * The walking skeleton, end to end and as a user runs it: `kervanc build` on the quickstart spec, the bundle
 * spawned as a process (alone in a folder, with and without --disallow-code-generation-from-strings), a local
 * upstream that answers like Open-Meteo, and the real SDK clients of both protocol eras.
 */
import { spawn } from "node:child_process";
import { copyFile, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Era, type TestClient } from "../helpers/clients.ts";
import { buildFixtures, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
let outDir: string;
let lonelyDir: string;
let buildStderr: string;

const FORECAST = {
  latitude: 39.92,
  longitude: 32.86,
  current: { time: "2026-12-01T12:00", temperature_2m: 21.1, wind_speed_10m: 5.9, weather_code: 2 },
  current_units: { temperature_2m: "°C" },
};

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    if (req.path === "/v1/forecast") json(res, 200, FORECAST);
    else json(res, 404, { error: "not found" });
  });
  const built = await buildFixtures(["open-meteo.yaml"], upstream.origin);
  expect(built.result.stderr).toContain("Built 1 server (1 tool)");
  expect(built.result.code).toBe(0);
  outDir = built.outDir;
  buildStderr = built.result.stderr;
  // The bundle must run alone: copy it into an empty folder with no node_modules above it.
  lonelyDir = await tempDir("lonely");
  await copyFile(join(outDir, "open-meteo", "server.mjs"), join(lonelyDir, "server.mjs"));
});

afterAll(async () => {
  await upstream?.close();
  if (outDir) await removeDir(join(outDir, ".."));
  if (lonelyDir) await removeDir(lonelyDir);
});

describe("kervanc build", () => {
  it("prints a one-line summary and writes the package", async () => {
    expect(buildStderr.trim().split("\n")).toHaveLength(1);
    expect(buildStderr).toMatch(/^Built 1 server \(1 tool\) into .* in \d+\.\d\d s\.\n$/);
    const files = await readdir(join(outDir, "open-meteo"), { recursive: true });
    for (const f of [
      "server.mjs",
      "package.json",
      "tsconfig.json",
      "README.md",
      "src/server.ts",
      "src/main.ts",
      "src/tools/get_current_weather.ts",
      "src/validators/get_current_weather.input.js",
      "src/validators/get_current_weather.output.js",
    ]) {
      expect(files).toContain(f);
    }
    expect((await stat(join(lonelyDir, "server.mjs"))).size).toBeGreaterThan(10_000);
  });
});

const modes: { era: Era; nodeArgs: string[] }[] = [
  { era: "modern", nodeArgs: [] },
  { era: "modern", nodeArgs: ["--disallow-code-generation-from-strings"] },
  { era: "legacy", nodeArgs: [] },
  { era: "legacy", nodeArgs: ["--disallow-code-generation-from-strings"] },
];

describe.each(modes)("the generated server ($era client, node $nodeArgs)", ({ era, nodeArgs }) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await connect(era, join(lonelyDir, "server.mjs"), { nodeArgs, serverArgs: ["--allow-private-network"] });
  });
  afterAll(async () => {
    await client?.close();
  });

  it("negotiates the intended protocol era", () => {
    expect(client.negotiatedEra()).toBe(era);
  });

  it("lists the tool with the spec's input schema and output schema", async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const tool = tools[0]!;
    expect(tool.name).toBe("get_current_weather");
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: {
        latitude: { type: "number", minimum: -90, maximum: 90 },
        longitude: { type: "number", minimum: -180, maximum: 180 },
        units: { type: "string", enum: ["metric", "imperial"] },
      },
      required: ["latitude", "longitude"],
    });
    expect(tool.outputSchema).toEqual({
      type: "object",
      properties: { temperatureC: { type: "number" }, windKmh: { type: "number" }, weatherCode: { type: "integer" } },
      required: ["temperatureC", "windKmh"],
    });
    expect(tool["annotations"]).toEqual({ openWorldHint: true, readOnlyHint: true });
  });

  it("answers a valid call with structuredContent and the same JSON as text", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool("get_current_weather", { latitude: 39.92, longitude: 32.85 });
    expect(result.isError ?? false).toBe(false);
    const value = { temperatureC: 21.1, windKmh: 5.9, weatherCode: 2 };
    expect(result.structuredContent).toEqual(value);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(value) }]);
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe("GET");
    expect(sent[0]!.path).toBe("/v1/forecast");
    // The omitted optional argument drops its parameter; the literal one is form-encoded.
    expect(sent[0]!.query).toBe(
      "latitude=39.92&longitude=32.85&current=temperature_2m%2Cwind_speed_10m%2Cweather_code",
    );
    expect(sent[0]!.headers["accept"]).toBe("application/json");
    expect(sent[0]!.headers["accept-encoding"]).toBe("gzip, deflate, br");
  });

  it("sends an optional argument when it is given", async () => {
    const before = upstream.requests.length;
    await client.callTool("get_current_weather", { latitude: 1, longitude: 2, units: "imperial" });
    expect(upstream.requests.slice(before).map((r) => r.query)).toEqual([
      "latitude=1&longitude=2&temperature_unit=imperial&current=temperature_2m%2Cwind_speed_10m%2Cweather_code",
    ]);
  });

  it("refuses invalid arguments with a message naming them, and sends no request", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool("get_current_weather", { latitude: 100, longitude: "east" });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: "text",
        text: "Input validation error: Invalid arguments for tool get_current_weather: data/latitude must be <= 90, data/longitude must be number",
      },
    ]);
    expect(upstream.requests.length).toBe(before);
  });

  it("refuses a missing required argument", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool("get_current_weather", { latitude: 10 });
    expect(result.isError).toBe(true);
    expect(result.content?.[0]?.text).toBe(
      "Input validation error: Invalid arguments for tool get_current_weather: data must have required property 'longitude'",
    );
    expect(upstream.requests.length).toBe(before);
  });

  it("answers an unknown tool with a JSON-RPC error", async () => {
    await expect(client.callTool("no_such_tool", {})).rejects.toMatchObject({ code: -32602 });
  });
});

describe("stdio hygiene", () => {
  it("writes nothing but protocol messages to stdout", async () => {
    const child = spawn(
      process.execPath,
      ["--disallow-code-generation-from-strings", join(lonelyDir, "server.mjs"), "--allow-private-network"],
      {
        stdio: ["pipe", "pipe", "pipe"],
        env: { PATH: process.env["PATH"] ?? "" },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const send = (message: unknown): void => {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    };
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "get_current_weather", arguments: { latitude: 1, longitude: 2 } },
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer; stderr: ${stderr}`)), 20_000);
      child.stdout.on("data", () => {
        if (stdout.split("\n").filter((l) => l.trim() !== "").length >= 2) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
    const lines = stdout.split("\n").filter((l) => l.trim() !== "");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(JSON.parse(lines[1]!).result.structuredContent).toEqual({
      temperatureC: 21.1,
      windKmh: 5.9,
      weatherCode: 2,
    });
    expect(stderr).toContain("Loaded open-meteo 0.1.0: 1 tool(s)");
  });
});
