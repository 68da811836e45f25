/**
 * The kervanc command line as a user meets it: exit codes, the tsc-like error format, JSON output, and that a
 * failed build writes nothing.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";

let dir: string;

beforeAll(async () => {
  dir = await tempDir("cli");
  await mkdir(join(dir, "bad"));
  await writeFile(
    join(dir, "bad", "broken.yaml"),
    [
      "specVersion: 1",
      "name: broken",
      "version: 1.0",
      "tools:",
      "  - name: t",
      "    description: d",
      "    http:",
      "      urll: https://example.com/",
      "    output:",
      "      select: a",
      "",
    ].join("\n"),
  );
});

afterAll(async () => {
  await removeDir(dir);
});

describe("kervanc", () => {
  it("prints usage and exits 2 without arguments", async () => {
    const r = await kervanc([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kervanc: Missing command\.\nUsage: kervanc build/);
  });

  it("exits 2 without -o", async () => {
    const r = await kervanc(["build", "fixtures/specs"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Missing -o <out>.");
  });

  it("exits 2 on an unknown option", async () => {
    const r = await kervanc(["build", "fixtures/specs", "-o", join(dir, "x"), "--frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage:");
  });

  it("reports every problem like tsc, exits 1 and writes nothing", async () => {
    const out = join(dir, "out-bad");
    const r = await kervanc(["build", join(dir, "bad"), "-o", out]);
    expect(r.code).toBe(1);
    const file = join(dir, "bad", "broken.yaml");
    expect(r.stderr.split("\n")).toEqual([
      `${file}:1:1 - warning KV2012: Fix these structure problems first: more checks (URLs, template references, secrets) run once the structure is valid, and may report more problems.`,
      `${file}:3:10 - error KV2003: version: Expected a string, got the number 1. YAML reads 1 as a number; quote it: "1".`,
      `${file}:7:5 - error KV2002: tools[0].http: Missing required field "url".`,
      `${file}:8:7 - error KV2001: tools[0].http.urll: Unknown field "urll". Did you mean "url"? Allowed here: method, url, query, headers, body, timeoutMs, maxResponseBytes, allowInsecureHttp, followRedirects.`,
      "Found 3 errors; nothing was written.",
      "",
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it("prints diagnostics as a JSON array with --format json", async () => {
    const r = await kervanc(["build", join(dir, "bad"), "-o", join(dir, "out-json"), "--format", "json"]);
    expect(r.code).toBe(1);
    const diagnostics = JSON.parse(r.stdout) as { code: string; severity: string; line: number; column: number; path: string }[];
    expect(diagnostics.map((d) => [d.code, d.severity, d.line, d.column, d.path])).toEqual([
      ["KV2012", "warning", 1, 1, ""],
      ["KV2003", "error", 3, 10, "version"],
      ["KV2002", "error", 7, 5, "tools[0].http"],
      ["KV2001", "error", 8, 7, "tools[0].http.urll"],
    ]);
  });

  it("reports a missing input", async () => {
    const r = await kervanc(["build", join(dir, "nope"), "-o", join(dir, "o")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error KV9002");
  });
});
