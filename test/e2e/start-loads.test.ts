/**
 * What a generated server loads before its first answer over stdio: Node's fetch implementation (undici) and the
 * upstream transport's built-ins (https, tls, dns, zlib) wait for the first call or the first HTTP request.
 * Loading one of them at start costs tens of milliseconds, much more under --disallow-code-generation-from-strings
 * (which makes Node compile its built-ins from source): a module-level `class extends Request` once did it,
 * about 35 ms of CPU before the first `tools/list` answer. The built golden package is run as a process; a
 * preloaded script records `process.moduleLoadList` when the server first writes to stdout.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/kervanc.ts";
import { modernMessage } from "../helpers/mcp-http.ts";

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
async function loadedAtFirstAnswer(server: string, extraArgs: readonly string[] = []): Promise<string[]> {
  const out = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawn(process.execPath, [...extraArgs, "--require", join(dir, "record.cjs"), server], {
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

const LATER = [
  "NativeModule internal/deps/undici/undici",
  "NativeModule https",
  "NativeModule tls",
  "NativeModule dns",
  "NativeModule zlib",
];

describe("a generated server's start over stdio", () => {
  it.each([[[] as string[]], [["--disallow-code-generation-from-strings"]]])(
    "loads neither undici nor the transport's built-ins before its first answer (node %j)",
    async (flags) => {
      const loaded = await loadedAtFirstAnswer(join(REPO, "fixtures", "golden", "posts", "server.mjs"), flags);
      // The record is real: the server's own modules and the SDK's built-ins are in it.
      expect(loaded).toContain("NativeModule stream");
      expect(loaded.filter((m) => LATER.includes(m))).toEqual([]);
    },
  );
});
