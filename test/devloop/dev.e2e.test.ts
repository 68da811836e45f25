/**
 * `kervanc dev` as a process: an MCP client (the SDK's, over stdio) connected while the spec is edited: an edit
 * that adds a tool reaches it through notifications/tools/list_changed; a broken edit prints positioned
 * diagnostics and keeps the old tools serving. And the REPL, driven through stdin.
 */
import { spawn } from "node:child_process";
import { connect as tcpConnect } from "node:net";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";
import { SECRET, weatherSpec } from "./specs.ts";

const KERVANC = join(REPO, "packages", "compiler", "bin", "kervanc.js");

let dir: string;
let upstream: Upstream;
let secrets: string;

const SECOND_TOOL = `  - name: get_alerts
    description: Weather alerts for a city.
    input:
      type: object
      properties:
        city: { type: string }
    http:
      url: ORIGIN/alerts
      query:
        city: "{{input.city}}"
      headers:
        X-Api-Key: "{{secrets.API_KEY}}"
    output:
      raw: true
`;

/** Collects a stream's text and resolves when it holds `text` (a hang is caught by the test's timeout). */
function watchText(stream: Readable): { text(): string; waitFor(text: string, from?: number): Promise<void> } {
  let all = "";
  const waiters: { text: string; from: number; resolve: () => void }[] = [];
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    all += chunk;
    for (const w of [...waiters]) {
      if (all.indexOf(w.text, w.from) >= 0) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  return {
    text: () => all,
    waitFor: (text, from = 0) =>
      new Promise<void>((resolve) => {
        if (all.indexOf(text, from) >= 0) resolve();
        else waiters.push({ text, from, resolve });
      }),
  };
}

beforeAll(async () => {
  dir = await tempDir("dev");
  upstream = await startUpstream((req, res) => {
    if (req.headers["x-api-key"] !== SECRET) return json(res, 401, { error: "bad key" });
    const city = new URLSearchParams(req.query).get("city");
    if (req.path === "/alerts") return json(res, 200, { alerts: [`storm in ${city}`] });
    json(res, 200, { city, temp: 12 });
  });
  secrets = join(dir, "secrets.env");
  await writeFile(secrets, `API_KEY=${SECRET}\n`);
});

afterAll(async () => {
  await upstream.close();
  await removeDir(dir);
});

describe("kervanc dev over stdio", () => {
  it("swaps tools in place on a good edit (list_changed), keeps them on a broken one (positioned diagnostics)", async () => {
    const spec = join(dir, "weather.yaml");
    await writeFile(spec, weatherSpec(upstream.origin));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [KERVANC, "dev", spec, "--secrets-file", secrets],
      env: { PATH: process.env["PATH"] ?? "" },
      stderr: "pipe",
      cwd: REPO,
    });
    const stderr = watchText(transport.stderr as Readable);
    const client = new Client({ name: "dev-test", version: "1.0.0" });
    let notified!: () => void;
    let changed = new Promise<void>((resolve) => (notified = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => notified());
    try {
      await client.connect(transport);
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_forecast"]);
      expect((await client.callTool({ name: "get_forecast", arguments: { city: "Oslo" } })).structuredContent).toEqual({
        city: "Oslo",
        temp: 12,
      });
      expect(stderr.text()).toContain("kervanc development mode");

      // A good edit: a tool added.
      await writeFile(spec, weatherSpec(upstream.origin, SECOND_TOOL.replace("ORIGIN", upstream.origin)));
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_forecast", "get_alerts"]);
      const alerts = await client.callTool({ name: "get_alerts", arguments: { city: "Bergen" } });
      expect((alerts.content as { text: string }[])[0]!.text).toBe('{"alerts":["storm in Bergen"]}');
      expect(stderr.text()).toContain("Reloaded: 2 tool(s) (added get_alerts).");

      // A broken edit: a misspelt field; diagnostics with file, line and column, and the old tools stay.
      changed = new Promise<void>((resolve) => (notified = resolve));
      const mark = stderr.text().length;
      const broken = weatherSpec(upstream.origin, SECOND_TOOL.replace("ORIGIN", upstream.origin)).replace(
        "    description: Weather alerts",
        "    descripton: Weather alerts",
      );
      await writeFile(spec, broken);
      await stderr.waitFor("still serving the last good build (2 tools)", mark);
      const line = broken.split("\n").findIndex((l) => l.includes("descripton")) + 1;
      expect(stderr.text().slice(mark)).toContain(
        `${spec}:${line}:5 - error KV2001: tools[1].descripton: Unknown field "descripton". Did you mean "description" (a required field, missing here)?`,
      );
      // Printed as build prints it: the code frame from the edited spec and the documentation anchor.
      expect(stderr.text().slice(mark)).toContain(`> ${line} |     descripton: Weather alerts for a city.\n`);
      expect(stderr.text().slice(mark)).toContain("  see kervanc docs/diagnostics.md#kv2001\n");
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_forecast", "get_alerts"]);
      expect((await client.callTool({ name: "get_forecast", arguments: { city: "Rome" } })).structuredContent).toEqual({
        city: "Rome",
        temp: 12,
      });

      // Fixed again: back to one tool, and the client hears of it.
      await writeFile(spec, weatherSpec(upstream.origin));
      await changed;
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["get_forecast"]);
    } finally {
      await client.close();
    }
  });
});

describe("tools.listChanged", () => {
  it("is not advertised by a generated server, which never sends it (issue 21 bug 4); dev advertises it and sends it", async () => {
    const out = join(dir, "built");
    const built = await kervanc(["build", join(REPO, "fixtures", "specs", "hn.yaml"), "-o", out]);
    expect(built.code).toBe(0);
    const client = new Client({ name: "caps-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(out, "hn", "server.mjs")],
        env: { PATH: process.env["PATH"] ?? "" },
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("kervanc dev --http", () => {
  it("serves Streamable HTTP on 127.0.0.1 and serves the new tools after a good edit", async () => {
    const spec = join(dir, "http.yaml");
    await writeFile(spec, weatherSpec(upstream.origin));
    const child = spawn(
      process.execPath,
      [KERVANC, "dev", spec, "--http", "--port", "0", "--repl", "--secrets-file", secrets],
      { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] },
    );
    const err = watchText(child.stderr);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const urlAfter = async (from: number): Promise<string> => {
      await err.waitFor("Serving MCP over HTTP at ", from);
      const at = err.text().indexOf("Serving MCP over HTTP at ", from);
      await err.waitFor("\n", at);
      return err.text().slice(at).split("\n")[0]!.slice("Serving MCP over HTTP at ".length);
    };
    const toolsAt = async (url: string): Promise<string[]> => {
      const client = new Client({ name: "dev-http-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    try {
      const first = await urlAfter(0);
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(await toolsAt(first)).toEqual(["get_forecast"]);
      const mark = err.text().length;
      await writeFile(spec, weatherSpec(upstream.origin, SECOND_TOOL.replace("ORIGIN", upstream.origin)));
      expect(await toolsAt(await urlAfter(mark))).toEqual(["get_forecast", "get_alerts"]);
    } finally {
      child.stdin.end("exit\n");
    }
    expect(await exited).toBe(0);
  });
});

/** Whether something accepts a connection on 127.0.0.1:`port` now. */
const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

describe("kervanc dev --http and the end of kervanc", () => {
  it.skipIf(process.platform === "win32")(
    "a closed terminal (SIGHUP) stops the HTTP server too: none is left serving the port",
    async () => {
      const spec = join(dir, "hangup.yaml");
      await writeFile(spec, weatherSpec(upstream.origin));
      const child = spawn(process.execPath, [KERVANC, "dev", spec, "--http", "--port", "0"], {
        cwd: REPO,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const err = watchText(child.stderr);
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await err.waitFor("Serving MCP over HTTP at ");
      await err.waitFor("/mcp\n");
      const port = Number(/Serving MCP over HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(err.text())![1]);
      expect(await accepting(port)).toBe(true);
      child.kill("SIGHUP");
      await exited;
      // Without the fix the generated server outlives kervanc and keeps serving, and this loop never ends.
      while (await accepting(port)) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await accepting(port)).toBe(false);
    },
  );
});

describe("kervanc dev --http killed outright", () => {
  it.skipIf(process.platform === "win32")(
    "SIGKILL, which kervanc cannot catch, stops the HTTP server too: its IPC channel closes",
    async () => {
      const spec = join(dir, "killed.yaml");
      await writeFile(spec, weatherSpec(upstream.origin));
      const child = spawn(process.execPath, [KERVANC, "dev", spec, "--http", "--port", "0"], {
        cwd: REPO,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const err = watchText(child.stderr);
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await err.waitFor("/mcp\n");
      const port = Number(/Serving MCP over HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(err.text())![1]);
      expect(await accepting(port)).toBe(true);
      child.kill("SIGKILL");
      await exited;
      // Without the channel the server outlives kervanc and keeps serving: the loop gives it 20 s to stop.
      const until = Date.now() + 20_000;
      while (Date.now() < until && (await accepting(port))) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await accepting(port)).toBe(false);
    },
    40_000,
  );
});

describe("the kervanc dev REPL", () => {
  it("lists tools, calls one, reloads, answers help and exits, driven through stdin", async () => {
    const spec = join(dir, "repl.yaml");
    await writeFile(spec, weatherSpec(upstream.origin));
    const child = spawn(process.execPath, [KERVANC, "dev", spec, "--repl", "--secrets-file", secrets], {
      cwd: REPO,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out = watchText(child.stdout);
    const err = watchText(child.stderr);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await err.waitFor("Type help for the commands.");
    child.stdin.write("tools\n");
    await out.waitFor("get_forecast  Get the forecast for a city.\n");
    child.stdin.write('call get_forecast {"city": "Lima"}\n');
    await out.waitFor('{"city":"Lima","temp":12}\n');
    child.stdin.write("call get_forecast {}\n");
    await out.waitFor("Error: Input validation error");
    await writeFile(spec, weatherSpec(upstream.origin, SECOND_TOOL.replace("ORIGIN", upstream.origin)));
    child.stdin.write("reload\ntools\n");
    await out.waitFor("get_alerts  Weather alerts for a city.\n");
    child.stdin.write("help\n");
    await out.waitFor("call <tool> [<json>]");
    child.stdin.write("exit\n");
    expect(await exited).toBe(0);
    expect(out.text() + err.text()).not.toContain(SECRET);
  });

  it("passes a call's JSON to a tool whose name is part of the word call", async () => {
    const spec = join(dir, "all.yaml");
    await writeFile(spec, weatherSpec(upstream.origin).replace("name: get_forecast", "name: all"));
    const child = spawn(process.execPath, [KERVANC, "dev", spec, "--repl", "--secrets-file", secrets], {
      cwd: REPO,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out = watchText(child.stdout);
    const err = watchText(child.stderr);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await err.waitFor("Type help for the commands.");
    child.stdin.write('call all {"city": "Lima"}\n');
    await out.waitFor('{"city":"Lima","temp":12}\n');
    child.stdin.write("exit\n");
    expect(await exited).toBe(0);
    expect(out.text()).not.toContain("not valid JSON");
  });

  it("is refused when NODE_ENV=production", async () => {
    const child = spawn(process.execPath, [KERVANC, "dev", join(dir, "repl.yaml"), "--repl"], {
      cwd: REPO,
      env: { ...process.env, NODE_ENV: "production" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const err = watchText(child.stderr);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(err.text()).toContain("refused when NODE_ENV=production");
  });

  it("stops with one line, not an internal error, when the spec or its folder is not there, or is a folder", async () => {
    // It used to print the spec's KV1010, then crash on watching a folder that does not exist.
    for (const [spec, why] of [
      [join(dir, "no-such-folder", "x.yaml"), "ENOENT"],
      [join(dir, "missing.yaml"), "ENOENT"],
      [dir, "not a file"],
    ] as const) {
      const r = await kervanc(["dev", spec, "--repl"]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(`kervanc dev: ${spec} is not a spec file (${why}).\n`);
    }
  });
});
