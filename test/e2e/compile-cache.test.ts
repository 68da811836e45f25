/**
 * Node's compile cache for a generated server (runtime/compile-cache.ts): `NODE_COMPILE_CACHE=DIR` on Node 22
 * fills DIR when the server exits cleanly, and the server refuses to start with a cache folder that another user
 * could write to (whoever writes there can run code in the server).
 */
import { chmod, chown, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, removeDir, tempDir } from "../helpers/kervanc.ts";
import { runNode22 } from "../helpers/node22.ts";

// A built package (the goldens are rebuilt by `npm run goldens` and checked by test/emit/golden.test.ts).
const SERVER = join(FIXTURES, "golden", "open-meteo", "server.mjs");

let root: string;
beforeAll(async () => {
  root = await tempDir("compile-cache");
});
afterAll(async () => {
  await removeDir(root);
});

/** Starts the server on Node 22 over stdio with no input: it loads, sees the end of stdin and exits. */
const start = (cache: string) =>
  runNode22(["--disallow-code-generation-from-strings", SERVER], {
    env: { PATH: process.env["PATH"] ?? "", NODE_COMPILE_CACHE: cache },
    timeoutMs: 60_000,
  });

async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe("NODE_COMPILE_CACHE (Node 22)", () => {
  it("fills a private cache folder on a clean exit, and starts from it again", async () => {
    const cache = join(root, "private");
    await mkdir(cache, { mode: 0o700 });
    const first = await start(cache);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("Loaded open-meteo");
    expect((await filesIn(cache)).length).toBeGreaterThan(0);
    const second = await start(cache);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain("Loaded open-meteo");
  });

  it.each([
    ["every user", 0o777],
    ["every user", 0o1777],
    ["its group", 0o770],
  ])("refuses to start when the cache folder is writable by %s (mode %s)", async (who, mode) => {
    const cache = join(root, `shared-${mode.toString(8)}`);
    await mkdir(cache);
    await chmod(cache, mode);
    const run = await start(cache);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`writable by ${who}`);
    expect(run.stderr).toContain("can run code in this server");
    expect(run.stderr).not.toContain("Loaded open-meteo");
  });

  it("refuses to start when Node's own folder inside it is writable by others", async () => {
    const cache = join(root, "inner");
    await mkdir(cache, { mode: 0o700 });
    expect((await start(cache)).code).toBe(0);
    const [inner] = await readdir(cache);
    await chmod(join(cache, inner!), 0o777);
    const run = await start(cache);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("writable by every user");
  });

  it.runIf(process.getuid?.() === 0)("refuses a cache folder that belongs to another user", async () => {
    const cache = join(root, "theirs");
    await mkdir(cache, { mode: 0o700 });
    await chown(cache, 65534, 65534);
    const run = await start(cache);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("belongs to another user");
  });
});
