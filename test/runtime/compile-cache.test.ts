/**
 * When the compile-cache check asks for the user id (runtime/compile-cache.ts): only when a cache is configured.
 * Deno answers `process.getuid()` only with --allow-sys and throws `Requires sys access to "uid"` otherwise, so
 * asking at every start stopped server.mjs under `deno run --allow-net=… --allow-env` (issue 37). The process
 * itself under Deno is tested in test/runtimes/runtimes.e2e.test.ts; the check's refusals on Node 22 in
 * test/e2e/compile-cache.e2e.test.ts.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compileCacheProblem } from "../../packages/runtime/src/entry/compile-cache.ts";

/** process.getuid as Deno has it without --allow-sys, counting the times it is asked. */
function denoGetuid(): { calls: () => number } {
  const spy = vi.spyOn(process, "getuid").mockImplementation(() => {
    throw new Error('Requires sys access to "uid", run again with the --allow-sys flag');
  });
  return { calls: () => spy.mock.calls.length };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the compile-cache check", () => {
  it.skipIf(process.platform === "win32")(
    "does not ask for the user id when NODE_COMPILE_CACHE is unset or empty",
    () => {
      const getuid = denoGetuid();
      expect(compileCacheProblem({})).toBeNull();
      expect(compileCacheProblem({ NODE_COMPILE_CACHE: "" })).toBeNull();
      expect(getuid.calls()).toBe(0);
    },
  );

  it.skipIf(process.platform === "win32")(
    "asks for it when a cache is configured, and finds a private cache folder fine",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "kervanc-compile-cache-"));
      try {
        // Node caches in a versioned folder inside the one named, and says which (Node 22.8 and later): made
        // up here, so the test runs the same on every Node.
        const versioned = join(dir, "v22.12.0-x64-0");
        await mkdir(versioned, { mode: 0o700 });
        const builtin = process.getBuiltinModule.bind(process);
        vi.spyOn(process, "getBuiltinModule").mockImplementation(((id: string) =>
          id === "node:module" ? { getCompileCacheDir: () => versioned } : builtin(id)) as never);
        const uid = vi.spyOn(process, "getuid");
        expect(compileCacheProblem({ NODE_COMPILE_CACHE: dir })).toBeNull();
        expect(uid).toHaveBeenCalledTimes(1);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
