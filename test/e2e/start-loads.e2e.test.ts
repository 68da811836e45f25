/**
 * What a generated server loads before its first answer over stdio: Node's fetch implementation (undici) and the
 * upstream transport's built-ins (https, tls, dns, zlib) wait for the first call or the first HTTP request.
 * Loading one of them at start costs tens of milliseconds, much more under --disallow-code-generation-from-strings
 * (which makes Node compile its built-ins from source): a module-level `class extends Request` once did it,
 * about 35 ms of CPU before the first `tools/list` answer. So did every `import ... from "node:http"` (or
 * node:process, node:fs, node:util) on Node 22 and 24, where an ES module import of a built-in runs its lazy
 * getters: about 100 more modules, undici, http2, tls and crypto among them. The built golden package is run as
 * a process on Node 20, 22 and 24; a preloaded script records `process.moduleLoadList` when the server first
 * writes to stdout.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/kervanc.ts";
import { modernMessage } from "../helpers/mcp-http.ts";
import { requireNode22 } from "../helpers/node22.ts";
import { runtimeBinary } from "../helpers/runtimes.ts";

const SERVER = join(REPO, "fixtures", "golden", "posts", "server.mjs");

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kervanc-start-loads-"));
  await writeFile(
    join(dir, "record.cjs"),
    `const write = process.stdout.write.bind(process.stdout);
let recorded = false;
process.stdout.write = (...args) => {
  if (!recorded) {
    recorded = true;
    require("node:fs").writeFileSync(process.env.KERVANC_TEST_LOADS, process.moduleLoadList.join("\\n"));
  }
  return write(...args);
};
`,
  );
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** The modules loaded when the server answered its first request, a `tools/list` over stdio. */
async function loadedAtFirstAnswer(node: string, server: string, extraArgs: readonly string[] = []): Promise<string[]> {
  const out = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawn(node, [...extraArgs, "--require", join(dir, "record.cjs"), server], {
    env: { PATH: process.env["PATH"] ?? "", KERVANC_TEST_LOADS: out },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const answered = new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before answering`)));
  });
  child.stdin.write(`${JSON.stringify(modernMessage(1, "tools/list"))}\n`);
  try {
    await answered;
  } finally {
    child.kill();
  }
  return (await readFile(out, "utf8")).split("\n");
}

/** What a stdio server needs only later: the upstream transport's built-ins, and HTTP serving's. */
const LATER = [
  "NativeModule internal/deps/undici/undici",
  "NativeModule http",
  "NativeModule https",
  "NativeModule http2",
  "NativeModule tls",
  "NativeModule crypto",
  "NativeModule dns",
  "NativeModule zlib",
];

const NODES: [string, () => string][] = [
  [`Node ${process.versions.node.split(".")[0]} (this one)`, () => process.execPath],
  ["Node 22", requireNode22],
  ["Node 24", () => runtimeBinary("node24")],
];

describe.each(NODES)("a generated server's start over stdio on %s", (_name, node) => {
  it.each([[[] as string[]], [["--disallow-code-generation-from-strings"]]])(
    "loads neither undici nor the transport's or HTTP serving's built-ins before its first answer (node %j)",
    async (flags) => {
      const loaded = await loadedAtFirstAnswer(node(), SERVER, flags);
      // The record is real: the server's own modules and the SDK's built-ins are in it.
      expect(loaded).toContain("NativeModule stream");
      expect(loaded.filter((m) => LATER.includes(m))).toEqual([]);
    },
  );
});

describe("the bundle's imports", () => {
  it("imports no Node built-in statically (each is taken with process.getBuiltinModule where it is used)", async () => {
    const bundle = await readFile(SERVER, "utf8");
    // esbuild writes `import x from"node:fs"`, `import{a}from"node:fs"` or `import"node:fs"`.
    expect(bundle.match(/(?:\bfrom\s*|\bimport\s*)["'](?:node:)?[a-z_/]+["']/g) ?? []).toEqual([]);
  });
});
