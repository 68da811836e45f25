/**
 * `kervanc build` and `check` load the emit stage (prettier, the bundler, the package writers: about half a
 * second) only when a spec gets that far, and the analysis stage (compile.ts: Ajv, JMESPath, the spec checks, the
 * planner) only when a spec has loaded (issue 37): a spec refused at its first line is reported with neither.
 * A child process per case, with a module-resolution hook that lists what the command loaded
 * (test/helpers/load-probe). Timings are for scripts/bench/refused-build.ts, not for a test.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getThingSpec, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await tempDir("lazy-loading");
  await writeFile(join(dir, "refused.yaml"), "specVersion: !!js/function 1\nname: x\n");
  await writeFile(join(dir, "thing.yaml"), getThingSpec("thing"));
});
afterAll(async () => {
  if (dir) await removeDir(dir);
});

async function loaded(args: string[]): Promise<{ code: number; urls: string[] }> {
  const { stdout } = await run(
    process.execPath,
    [
      "--import",
      "tsx",
      join(REPO, "test", "helpers", "load-probe", "run.mjs"),
      join(REPO, "packages", "compiler", "src", "cli.ts"),
      ...args,
    ],
    { cwd: REPO },
  );
  return JSON.parse(stdout) as { code: number; urls: string[] };
}

const emitStage = (urls: string[]): string[] =>
  urls.filter((u) => /\/prettier\/|\/esbuild\/|\/emit\/emit\.ts$|\/emit\/bundle\//.test(u));
const analysisStage = (urls: string[]): string[] =>
  urls.filter((u) =>
    /\/node_modules\/(ajv|ajv-formats|@jmespath-community\/jmespath|@modelcontextprotocol)\/|\/src\/compile\.ts$|\/analyze\/analyze\.ts$/.test(
      u,
    ),
  );

describe("what kervanc build and check load", () => {
  for (const command of ["build", "check"]) {
    it(`${command} refuses a spec at its first line without loading the emit or analysis stage`, async () => {
      const r = await loaded([command, join(dir, "refused.yaml"), "-o", join(dir, "out")]);
      expect(r.code).toBe(1);
      // The probe works: the load stage and its YAML parser were loaded and seen.
      expect(r.urls.some((u) => /\/load\/load\.ts$/.test(u))).toBe(true);
      expect(r.urls.some((u) => /\/node_modules\/yaml\//.test(u))).toBe(true);
      expect(emitStage(r.urls)).toEqual([]);
      expect(analysisStage(r.urls)).toEqual([]);
    });
  }

  it("loads both to build a good spec, and neither to skip it unchanged", async () => {
    // In a fresh clone the repository builds its prebuilt record (with esbuild) on first use: a build before the
    // one measured makes sure that is done.
    expect((await loaded(["build", join(dir, "thing.yaml"), "-o", join(dir, "out-warm")])).code).toBe(0);
    const out = join(dir, "out-unchanged");
    const r = await loaded(["build", join(dir, "thing.yaml"), "-o", out]);
    expect(r.code).toBe(0);
    expect(emitStage(r.urls).length).toBeGreaterThan(0);
    expect(analysisStage(r.urls).length).toBeGreaterThan(0);
    // No bundler in a build: the fixed part of the bundles is prebuilt (emit/bundle/prebuilt.ts). Nor zod, which
    // only the servers run: the compiler writing a view page once pulled the SDK and zod into every build.
    expect(r.urls.filter((u) => /\/node_modules\/(esbuild|zod)\//.test(u))).toEqual([]);
    const again = await loaded(["build", join(dir, "thing.yaml"), "-o", out]);
    expect(again.code).toBe(0);
    expect(again.urls.some((u) => /\/load\/load\.ts$/.test(u))).toBe(true);
    expect(emitStage(again.urls)).toEqual([]);
    expect(analysisStage(again.urls)).toEqual([]);
  });
});
