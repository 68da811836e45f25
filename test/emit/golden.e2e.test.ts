/**
 * The golden packages under fixtures/golden/: each is exactly what `kervanc build` writes for its fixture spec
 * (checked with `kervanc check`, as CI would run it), and each type-checks with TypeScript 7 as its own
 * project, runtime copy included. When this fails after an intended change, run `npm run accept` and
 * review the diff.
 */
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { FIXTURES, kervanc, REPO } from "../helpers/kervanc.ts";

const run = promisify(execFile);
const GOLDEN = join(FIXTURES, "golden");
const specs = (await readdir(join(FIXTURES, "specs")))
  .filter((f) => /\.ya?ml$/i.test(f))
  .map((f) => f.replace(/\.ya?ml$/i, ""));

describe("golden packages", () => {
  it("exist for every fixture spec", async () => {
    const goldens = (await readdir(GOLDEN, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(goldens.sort(), "A golden package is missing or left over: run npm run accept").toEqual([...specs].sort());
  });

  it("are exactly what kervanc builds (kervanc check fixtures/specs -o fixtures/golden)", async () => {
    const r = await kervanc(["check", "fixtures/specs", "-o", "fixtures/golden"], { cwd: REPO });
    expect(r.code, `${r.stdout}${r.stderr}\nIf the change is intended, run: npm run accept`).toBe(0);
  });

  it.each(specs)("%s type-checks with tsc --noEmit", async (spec) => {
    const tsc = join(REPO, "node_modules", "typescript", "bin", "tsc");
    const project = join(GOLDEN, spec, "tsconfig.json");
    const result = await run(process.execPath, [tsc, "--noEmit", "-p", project], { cwd: REPO }).then(
      () => ({ code: 0, out: "" }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? -1,
        out: `${e.stdout ?? ""}${e.stderr ?? ""}`,
      }),
    );
    expect(result.out).toBe("");
    expect(result.code).toBe(0);
  });
});
