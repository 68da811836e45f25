/**
 * Issue 13, finding 9: file names and arguments reach what kervanc prints, and they can hold terminal escape
 * sequences (ESC, BEL, C1 controls) or a line break that forges an output line. Everything kervanc prints in
 * text form shows them as `\uXXXX`: diagnostics (file, path and message), summary lines, check's report (and
 * the diffs in it), import's lines, usage errors; and the JSON formats, whose strings JSON.stringify leaves
 * C1 controls and U+202E raw in, write them as JSON escapes.
 */
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDiagnostic, oneLine } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

const SPEC = readFileSync(join(REPO, "fixtures/specs/posts.yaml"), "utf8");
/** Clears the screen, sets the window title, rings the bell, and starts a line that looks like kervanc's. */
const EVIL = "x\u001b[2J\u001b]0;owned\u0007\u009b31m\u202e\nBuilt 9 servers (0 tools) into dist in 0.01 s.";
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;

let root: string;
beforeAll(async () => {
  root = await tempDir("escape");
});
afterAll(async () => {
  await removeDir(root);
});

/** Every printed line is one kervanc wrote: no raw control character, no forged summary line. */
function expectInert(text: string): void {
  expect(text).not.toMatch(RAW_CONTROL);
  expect(text.split("\n").filter((l) => l.startsWith("Built 9 servers"))).toEqual([]);
}

describe("control characters in what kervanc prints", () => {
  it("formatDiagnostic escapes the file, the path and the message, line breaks included", () => {
    const line = formatDiagnostic({
      code: "KV9002",
      severity: "error",
      file: EVIL,
      line: 1,
      column: 1,
      path: 'a["\u009b"]',
      message: `${EVIL} does not exist.`,
    });
    expect(line.split("\n")).toHaveLength(1);
    expectInert(line);
    expect(line).toContain("x\\u001B[2J\\u001B]0;owned\\u0007\\u009B31m\\u202E\\u000ABuilt 9 servers");
  });

  it("escapes a missing input's name (KV9002)", async () => {
    const r = await kervanc(["build", join(root, `${EVIL}.yaml`), "-o", join(root, "out")]);
    expect(r.code).toBe(1);
    expectInert(r.stderr);
    expect(r.stderr).toContain(
      `${oneLine(join(root, `${EVIL}.yaml`))}:1:1 - error KV9002: ${oneLine(join(root, `${EVIL}.yaml`))} does not exist.`,
    );
  });

  for (const format of ["json", "sarif"] as const) {
    it(`writes them as \\uXXXX escapes in --format ${format} too, which parse back to the same text`, async () => {
      const file = join(root, `${EVIL}.yaml`);
      const r = await kervanc(["build", file, "-o", join(root, "out"), "--format", format]);
      expect(r.code).toBe(1);
      const printed = r.stdout + r.stderr;
      // JSON.stringify escapes C0 controls itself, but leaves C1 controls and U+202E raw inside strings.
      expectInert(printed);
      if (format === "json") expect(r.stdout).toContain("\\u009B31m\\u202E");
      const parsed = JSON.parse(r.stdout) as unknown;
      const messages =
        format === "json"
          ? (parsed as { message: string }[]).map((d) => d.message)
          : (parsed as { runs: { results: { message: { text: string } }[] }[] }).runs[0]!.results.map(
              (x) => x.message.text,
            );
      // SARIF's message texts are one line each (formats.ts), so they carry the escapes as text.
      expect(messages).toContain(format === "json" ? `${file} does not exist.` : `${oneLine(file)} does not exist.`);
    });
  }

  it("escapes a usage error's argument", async () => {
    const r = await kervanc([EVIL]);
    expect(r.code).toBe(2);
    expectInert(r.stderr);
    expect(r.stderr).toContain(`kervanc: unknown command "${oneLine(EVIL)}".`);
  });

  it("escapes the output folder in build's summary and in check's report, and the diff of an edited file", async () => {
    const specs = join(root, "specs");
    await mkdir(specs);
    await writeFile(join(specs, "posts.yaml"), SPEC);
    const out = join(root, EVIL);
    const built = await kervanc(["build", specs, "-o", out]);
    expect(built.code).toBe(0);
    expectInert(built.stderr);
    expect(built.stderr.startsWith(`Built 1 server (3 tools) into ${oneLine(out)} in `)).toBe(true);

    const readme = join(out, "posts", "README.md");
    await writeFile(readme, `${readFileSync(readme, "utf8")}\u001b[2J\u0007 added by hand\n`);
    const checked = await kervanc(["check", specs, "-o", out]);
    expect(checked.code).toBe(1);
    expectInert(checked.stdout + checked.stderr);
    expect(checked.stdout).toContain(`${oneLine(join(out, "posts"))}: 0 surface changes, 1 file differs`);
    expect(checked.stdout).toContain("\\u001B[2J\\u0007 added by hand");
  });

  it("escapes kervanc import's file names", async () => {
    const r = await kervanc(["import", join(root, `${EVIL}.json`), "-o", join(root, "spec.yaml")]);
    expect(r.code).toBe(1);
    expectInert(r.stderr);
    expect(r.stderr).toContain(`error KV7001: ${oneLine(join(root, `${EVIL}.json`))} does not exist.`);
    const out = join(root, `${EVIL}.yaml`);
    const ok = await kervanc(["import", join(REPO, "fixtures/openapi/notes.yaml"), "-o", out]);
    expect(ok.code).toBe(0);
    expectInert(ok.stderr);
    expect(ok.stderr).toContain(`into ${oneLine(out)} in `);
  });
});
