/**
 * A spec whose property name backtracks against one of its own patternProperties patterns builds in the time
 * any spec does: the build never runs a spec's patterns (test/analyze/schema-regex-at-build.test.ts says where it
 * did). Run as a child process with a time limit, so a regression fails the test instead of hanging the suite.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

// Before the fix, 28 characters took 11.8 s and each one more doubled it: 36 would take about an hour.
const NAME = `${"a".repeat(35)}!`;
const LIMIT_MS = 30_000;

let dir: string | undefined;
afterAll(async () => {
  if (dir !== undefined) await removeDir(dir);
});

it("builds a spec with a name that backtracks against its own pattern, within the limit", async () => {
  dir = await tempDir("redos");
  const spec = join(dir, "redos.yaml");
  await writeFile(
    spec,
    `specVersion: 1
name: redos
version: "1.0.0"
tools:
  - name: t
    description: d
    input:
      type: object
      properties:
        "${NAME}": { type: string }
      patternProperties:
        "^(a+)+$": { type: string }
    http:
      url: https://api.example.com/x
    output:
      raw: true
`,
  );
  const started = Date.now();
  const result = await new Promise<{ code: number | null; signal: string | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(REPO, "packages", "compiler", "bin", "kervanc.js"), "build", spec, "-o", join(dir!, "out")],
      { cwd: REPO, timeout: LIMIT_MS, killSignal: "SIGKILL" },
      (error, _stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
          signal: error?.signal ?? null,
          stderr,
        }),
    );
  });
  expect(result.signal, `the build was stopped after ${Date.now() - started} ms`).toBeNull();
  expect(result.code, result.stderr).toBe(0);
}, 60_000);
