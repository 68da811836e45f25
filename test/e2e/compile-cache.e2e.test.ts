/**
 * Node's compile cache for a generated server (runtime/entry/compile-cache.ts): `NODE_COMPILE_CACHE=DIR` on Node 22
 * fills DIR when the server exits cleanly, and the server refuses to start with a cache folder, a cache file or a
 * folder above them that another user could write to (whoever writes there can run code in the server). The
 * root-owned cache the generated Dockerfile builds is tested in dockerfile-cache.test.ts.
 */
import { chmod, chown, mkdir, readdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, removeDir, tempDir } from "../helpers/kervanc.ts";
import { runNode22 } from "../helpers/node22.ts";

// A built package (the goldens are rebuilt by `npm run goldens` and checked by test/emit/golden.e2e.test.ts).
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

  it("refuses to start when a cache file in it is writable by others, or is not a plain file", async () => {
    const cache = join(root, "files");
    await mkdir(cache, { mode: 0o700 });
    expect((await start(cache)).code).toBe(0);
    const [inner] = await readdir(cache);
    const [file] = await readdir(join(cache, inner!));
    await chmod(join(cache, inner!, file!), 0o666);
    const writable = await start(cache);
    expect(writable.code).toBe(2);
    expect(writable.stderr).toContain("the cache file");
    expect(writable.stderr).toContain("writable by every user");
    await chmod(join(cache, inner!, file!), 0o600);
    await symlink(join(root, "elsewhere"), join(cache, inner!, "planted"));
    const linked = await start(cache);
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain("is not a plain file");
  });

  it("refuses a private cache folder inside a folder others can write to, unless that one is sticky", async () => {
    const open = join(root, "open");
    await mkdir(open);
    await chmod(open, 0o777);
    await mkdir(join(open, "cache"), { mode: 0o700 });
    const run = await start(join(open, "cache"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`the folder above it, ${open} is writable by every user`);
    // Sticky, as /tmp: only an entry's owner can rename or remove it, so the private folder cannot be swapped.
    await chmod(open, 0o1777);
    const sticky = await start(join(open, "cache"));
    expect(sticky.code, sticky.stderr).toBe(0);
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
