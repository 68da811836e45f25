/**
 * `kervanc check` over a folder of hostile specs nested 10,000 levels deep (flow sequences, flow mappings, block
 * sequences). The YAML parser runs out of stack on such files, and on Node 20 a process that has parsed a few of
 * them can die on the next regular expression it compiles ("FATAL ERROR: RegExpCompiler Allocation failed"),
 * which would take the whole check down. The nesting pre-scan (load/nesting-scan.ts) refuses them before the
 * parser runs: each gets KV1009 at the place where its nesting gets deep, and the check ends normally.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";

const N = 10_000;
let root: string;
beforeAll(async () => {
  root = await tempDir("deep-yaml");
  await mkdir(join(root, "specs"));
  const head = 'specVersion: 1\nname: deep\nversion: "1"\n';
  await writeFile(join(root, "specs", "flow-sequences.yaml"), `${head}x: ${"[".repeat(N)}${"]".repeat(N)}\n`);
  await writeFile(join(root, "specs", "flow-mappings.yaml"), `${head}x: ${"{a: ".repeat(N)}1${"}".repeat(N)}\n`);
  await writeFile(join(root, "specs", "block-sequences.yaml"), `${head}x:\n  ${"- ".repeat(N)}1\n`);
});
afterAll(async () => {
  await removeDir(root);
});

describe("kervanc check on specs nested 10,000 levels deep", () => {
  it(`refuses each at the place its nesting gets deep, and exits normally (Node ${process.versions.node})`, async () => {
    const r = await kervanc(["check", join(root, "specs"), "-o", join(root, "out")]);
    const output = `${r.stdout}${r.stderr}`;
    expect(output).not.toMatch(/FATAL|Allocation failed|out of memory/);
    expect(r.code).toBe(1);
    const found = output
      .split("\n")
      .filter((line) => / - error /.test(line))
      .map((line) => line.slice(line.lastIndexOf("/") + 1));
    expect(found).toEqual([
      // Line 5, "  - - - ...": "x:" is level 1, so the 99th "-" (column 3 + 2 * 98) is level 100.
      "block-sequences.yaml:5:199 - error KV1009: The YAML is nested too deeply to read.",
      // Line 4, "x: {a: {a: ...": the 100th "{" (column 4 + 4 * 99).
      "flow-mappings.yaml:4:400 - error KV1009: The YAML is nested too deeply to read.",
      // Line 4, "x: [[[...": the 100th "[".
      "flow-sequences.yaml:4:103 - error KV1009: The YAML is nested too deeply to read.",
    ]);
    expect(output).toMatch(/Found 3 errors; nothing was compared\./);
  });
});
