/**
 * `kervanc build` loads the emit stage (prettier, the bundler, the package writers: about half a second) only
 * when a spec gets that far (issue 37): a spec refused at its first line is reported without it. A child process
 * per case, with a module-resolution hook that lists what the command loaded (test/helpers/load-probe).
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
  urls.filter((u) => /\/prettier\/|\/emit\/emit\.ts$|\/emit\/bundle\.ts$/.test(u));

describe("what kervanc build loads", () => {
  it("refuses a spec at its first line without loading the emit stage", async () => {
    const r = await loaded(["build", join(dir, "refused.yaml"), "-o", join(dir, "out")]);
    expect(r.code).toBe(1);
    expect(r.urls.length).toBeGreaterThan(10);
    expect(emitStage(r.urls)).toEqual([]);
  });

  it("loads it to build a good spec", async () => {
    const r = await loaded(["build", join(dir, "thing.yaml"), "-o", join(dir, "out")]);
    expect(r.code).toBe(0);
    expect(emitStage(r.urls).length).toBeGreaterThan(0);
  });
});
