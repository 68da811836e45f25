/**
 * Malformed and oversized stdio input (issue 13, findings 5 and 10), against the bundle as a process: raw lines
 * are written to its stdin and its replies read from stdout; then real SDK clients (v1 and v2) talk to the
 * same process over the same pipes, to show it kept serving.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir } from "../helpers/kervanc.ts";
import type { Upstream } from "../helpers/upstream.ts";
import { buildWeatherServer } from "../helpers/weather.ts";

let upstream: Upstream;
let outDir: string;

interface Raw {
  readonly child: ChildProcess;
  /** Writes one line and resolves with the next line the server writes to stdout, parsed. */
  exchange(line: string | Buffer): Promise<Record<string, unknown>>;
  stderr(): string;
  /** Resolves once stderr holds `count` lines that pass `filter` (stderr and stdout are separate pipes). */
  stderrLines(filter: (line: string) => boolean, count: number): Promise<string[]>;
  /** The process's stdout lines from now on go to `onLine` instead of `exchange`. */
  handOver(onLine: (line: string) => void): void;
}

function startRaw(): Raw {
  const child = spawn(
    process.execPath,
    ["--disallow-code-generation-from-strings", join(outDir, "open-meteo", "server.mjs"), "--allow-private-network"],
    {
      env: { PATH: process.env["PATH"] ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  let buffered = "";
  const waiting: ((line: string) => void)[] = [];
  const lines: string[] = [];
  let sink: ((line: string) => void) | null = null;
  child.stdout!.on("data", (c: Buffer) => {
    buffered += c.toString("utf8");
    let i: number;
    while ((i = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      if (sink) sink(line);
      else if (waiting.length > 0) waiting.shift()!(line);
      else lines.push(line);
    }
  });
  const matching = (filter: (line: string) => boolean): string[] => stderr.split("\n").filter(filter);
  return {
    child,
    stderr: () => stderr,
    stderrLines: (filter, count) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (matching(filter).length < count) return;
          child.stderr!.off("data", check);
          resolve(matching(filter));
        };
        child.stderr!.on("data", check);
        check();
      }),
    async exchange(line) {
      const next =
        lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => waiting.push(resolve));
      child.stdin!.write(typeof line === "string" ? `${line}\n` : Buffer.concat([line, Buffer.from("\n")]));
      return JSON.parse(await next) as Record<string, unknown>;
    },
    handOver(onLine) {
      sink = onLine;
      for (const line of lines.splice(0)) onLine(line);
    },
  };
}

/** An SDK transport over the raw process's pipes, so a real client can take over a process already in use. */
function pipeTransport(raw: Raw) {
  const read = new ReadBuffer();
  const transport = {
    onmessage: undefined as ((m: JSONRPCMessage) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((e: Error) => void) | undefined,
    async start() {
      raw.handOver((line) => {
        read.append(Buffer.from(`${line}\n`));
        for (let m = read.readMessage(); m !== null; m = read.readMessage()) transport.onmessage?.(m);
      });
    },
    async send(message: JSONRPCMessage) {
      raw.child.stdin!.write(serializeMessage(message));
    },
    async close() {
      raw.child.stdin!.end();
      transport.onclose?.();
    },
  };
  return transport;
}

beforeAll(async () => {
  ({ upstream, outDir } = await buildWeatherServer());
});

afterAll(async () => {
  await upstream?.close();
  if (outDir) await removeDir(join(outDir, ".."));
});

describe("stdio input the SDK would choke on", () => {
  it("answers each malformed line with -32700/-32600 and one short log line, then serves a real client", async () => {
    const raw = startRaw();
    try {
      const variants: [string, number, unknown][] = [
        ["this is not json", -32700, null],
        ['{"jsonrpc":"2.0","id":1,"method":"tools/list"', -32700, null],
        ['{"jsonrpc":"1.0","id":1,"method":"tools/list"}', -32600, 1],
        ['{"jsonrpc":"2.0","id":2,"method":5}', -32600, 2],
        ['{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[1,2]}', -32600, 3],
        ['[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]', -32600, null],
        ['{"jsonrpc":"2.0","id":null,"method":"tools/list"}', -32600, null],
        ['{"jsonrpc":"2.0","id":1e308,"method":"tools/list"}', -32600, null],
        ['{"jsonrpc":"2.0","id":"s","method":"tools/list","params":"x"}', -32600, "s"],
        ['"just a string"', -32600, null],
        ["42", -32600, null],
        ['{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', -32600, null],
        ['{"jsonrpc":"2.0","id":5}', -32600, 5],
      ];
      for (const [line, code, id] of variants) {
        const reply = await raw.exchange(line);
        expect(reply, line).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
      }
      // A notification that is malformed is answered with id null; a malformed response is only logged.
      expect(await raw.exchange('{"jsonrpc":"2.0","method":7}')).toMatchObject({ id: null, error: { code: -32600 } });
      // One short line each, no schema dumps.
      const logged = await raw.stderrLines((l) => l.includes("stdio:"), variants.length + 1);
      expect(logged).toHaveLength(variants.length + 1);
      for (const line of logged) expect(line.length).toBeLessThan(200);
      expect(raw.stderr()).not.toMatch(/invalid_type|ZodError|"path"/);
      // Arguments nested about 4,900 levels (finding 6) get the limit's tool error through the whole bundle.
      const opening = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } };
      expect(
        await raw.exchange(JSON.stringify({ jsonrpc: "2.0", id: 100, method: "initialize", params: opening })),
      ).toMatchObject({ id: 100, result: {} });
      raw.child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      const deep = `${"[".repeat(4_900)}1${"]".repeat(4_900)}`;
      const call = await raw.exchange(
        `{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"get_current_weather","arguments":{"latitude":${deep},"longitude":2}}}`,
      );
      expect(call).toMatchObject({ id: 101, result: { isError: true } });
      expect(JSON.stringify(call)).toContain("nested more than 256 levels deep, the limit");
      // The same process still serves a real client.
      const client = new LegacyClient({ name: "t", version: "1" });
      await client.connect(pipeTransport(raw));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_current_weather"]);
    } finally {
      raw.child.kill("SIGKILL");
    }
  });

  it(
    "answers a line over 10 MiB with -32600 (with its id) and keeps serving a real SDK client",
    { timeout: 120_000 },
    async () => {
      for (const era of ["legacy", "modern"] as const) {
        const raw = startRaw();
        try {
          // The id comes last, as the SDK clients write it: the reader finds it at the top level as the line streams past.
          const pad = "x".repeat(11 * 1024 * 1024);
          const big = Buffer.from(
            `{"method":"tools/call","params":{"name":"get_current_weather","arguments":{"id":"decoy","pad":"${pad}"}},"jsonrpc":"2.0","id":77}`,
          );
          const reply = await raw.exchange(big);
          expect(reply).toMatchObject({ jsonrpc: "2.0", id: 77, error: { code: -32600 } });
          expect(String((reply["error"] as { message: string }).message)).toContain("10485760");
          await raw.stderrLines((l) => l.includes("a message over 10485760 bytes was dropped"), 1);
          expect(raw.stderr()).not.toContain("ReadBuffer exceeded");
          const transport = pipeTransport(raw);
          if (era === "legacy") {
            const client = new LegacyClient({ name: "t", version: "1" });
            await client.connect(transport);
            const result = await client.callTool({
              name: "get_current_weather",
              arguments: { latitude: 1, longitude: 2 },
            });
            expect(result.structuredContent).toEqual({ temperatureC: 3.5, windKmh: 10, weatherCode: 61 });
          } else {
            const client = new ModernClient(
              { name: "t", version: "1" },
              {
                versionNegotiation: { mode: { pin: "2026-07-28" } },
                jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
              },
            );
            await client.connect(transport as never);
            const result = await client.callTool({
              name: "get_current_weather",
              arguments: { latitude: 1, longitude: 2 },
            });
            expect(result.structuredContent).toEqual({ temperatureC: 3.5, windKmh: 10, weatherCode: 61 });
          }
          expect(raw.child.exitCode).toBeNull();
        } finally {
          raw.child.kill("SIGKILL");
        }
      }
    },
  );
});
