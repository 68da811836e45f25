/**
 * A generated server generates no code from strings, even without `--disallow-code-generation-from-strings`:
 * zod (the SDK's validator) is set to jitless before the SDK builds its schemas (runtime/entry/zod-jitless.ts), so it
 * neither probes `new Function` nor compiles parsers. Under the flag the probe would fail anyway; this keeps the
 * server's behaviour the same with and without it, and spares the start-up the failed probe.
 */
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, removeDir, tempDir } from "../helpers/kervanc.ts";
import { MODERN_META } from "../helpers/mcp-http.ts";

const SERVER = join(FIXTURES, "golden", "open-meteo", "server.mjs");
const MARK = "kervanc-test: a function was made from a string";
/** Loaded before the server: every use of the Function constructor is reported on stderr. */
const SPY = `const F = Function;
const report = () => process.stderr.write(${JSON.stringify(`${MARK}\n`)});
globalThis.Function = new Proxy(F, {
  construct(target, args) { report(); return Reflect.construct(target, args); },
  apply(target, self, args) { report(); return Reflect.apply(target, self, args); },
});
`;
const LINES = [
  { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } },
  // An invalid call: the SDK's schemas parse it, and the runner refuses it before any upstream request.
  {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "get_current_weather", arguments: { latitude: "x" }, _meta: MODERN_META },
  },
];

let root: string;
let spy: string;
beforeAll(async () => {
  root = await tempDir("no-codegen");
  spy = join(root, "spy.mjs");
  await writeFile(spy, SPY);
});
afterAll(async () => {
  await removeDir(root);
});

describe("code generation from strings", () => {
  it("never happens in a generated server, from start-up through tools/list and a call", () => {
    const run = spawnSync(process.execPath, ["--import", spy, SERVER], {
      input: LINES.map((line) => `${JSON.stringify(line)}\n`).join(""),
      env: { PATH: process.env["PATH"] ?? "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const answers = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number; result?: { tools?: unknown[]; isError?: boolean } });
    expect(answers.find((a) => a.id === 1)?.result?.tools).toHaveLength(1);
    expect(answers.find((a) => a.id === 2)?.result?.isError).toBe(true);
    expect(run.stderr).toContain("Loaded open-meteo");
    expect(run.stderr).not.toContain(MARK);
  });
});
