/**
 * The kervanc command line as a user meets it: exit codes, the tsc-like error format, JSON output, and that a
 * failed build writes nothing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { copyFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { withoutFrames } from "../helpers/kervanc.ts";

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
  it("prints the overview of commands and exits 2 without arguments", async () => {
    const r = await kervanc([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kervanc \d+\.\d+\.\d+: compiles Kervan specs/);
    for (const command of ["init", "build", "check", "import", "help"])
      expect(r.stderr).toMatch(new RegExp(`^  ${command} +\\w`, "m"));
  });

  it("exits 2 without -o, in one line plus where the help is", async () => {
    const r = await kervanc(["build", "fixtures/specs"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("kervanc build: missing -o <out>.\nSee kervanc build --help.\n");
  });

  it("exits 2 on an unknown option, in its own words (not Node's parser's)", async () => {
    const r = await kervanc(["build", "fixtures/specs", "-o", join(dir, "x"), "--frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("kervanc build: unknown option --frobnicate.\nSee kervanc build --help.\n");
  });

  it("reports every problem like tsc, exits 1 and writes nothing", async () => {
    const out = join(dir, "out-bad");
    const r = await kervanc(["build", join(dir, "bad"), "-o", out]);
    expect(r.code).toBe(1);
    const file = join(dir, "bad", "broken.yaml");
    expect(withoutFrames(r.stderr).split("\n")).toEqual([
      `${file}:1:1 - warning KV2012: Fix these structure problems first: more checks (URLs, template references, secrets) run once the structure is valid, and may report more problems.`,
      `${file}:3:10 - error KV2003: version: Expected a string, got the number 1. YAML reads 1.0 as the number 1; quote it: "1.0".`,
      `${file}:8:7 - error KV2001: tools[0].http.urll: Unknown field "urll". Did you mean "url" (a required field, missing here)?`,
      "Found 2 errors; nothing was written.",
      "",
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a billion laughs of empty lists (KV1008) in a process with little memory, and writes nothing", async () => {
    // yaml's alias count took an empty list for no copy, so this passed the budget and every later walk of its
    // 10^10 leaves ran out of memory (48 s at 1 GiB). The small heap makes a regression fail in seconds.
    const bomb = join(dir, "bomb");
    await mkdir(bomb);
    const levels = Array.from(
      { length: 9 },
      (_, i) => `  l${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(",")}]`,
    );
    await writeFile(
      join(bomb, "bomb.yaml"),
      [
        "specVersion: 1",
        "name: bomb",
        'version: "1"',
        "x-laughs:",
        "  l0: &a0 [[],[],[],[],[],[],[],[],[],[]]",
        ...levels,
        "",
      ].join("\n"),
    );
    const out = join(dir, "out-bomb");
    const r = await kervanc(["build", bomb, "-o", out], {
      env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=256" },
    });
    expect(withoutFrames(r.stderr).split("\n")[0]).toBe(
      `${join(bomb, "bomb.yaml")}:7:24 - error KV1008: The YAML aliases expand too much (more than 50 copies); write the values out or use fewer aliases.`,
    );
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });

  it("prints diagnostics as a JSON array with --format json", async () => {
    const r = await kervanc(["build", join(dir, "bad"), "-o", join(dir, "out-json"), "--format", "json"]);
    expect(r.code).toBe(1);
    const diagnostics = JSON.parse(r.stdout) as {
      code: string;
      severity: string;
      line: number;
      column: number;
      path: string;
    }[];
    expect(diagnostics.map((d) => [d.code, d.severity, d.line, d.column, d.path])).toEqual([
      ["KV2012", "warning", 1, 1, ""],
      ["KV2003", "error", 3, 10, "version"],
      ["KV2001", "error", 8, 7, "tools[0].http.urll"],
    ]);
  });

  it("reports a missing input", async () => {
    const r = await kervanc(["build", join(dir, "nope"), "-o", join(dir, "o")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error KV9002");
  });

  it("reports a folder without specs", async () => {
    await mkdir(join(dir, "empty"), { recursive: true });
    const r = await kervanc(["build", join(dir, "empty"), "-o", join(dir, "o")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${join(dir, "empty")}:1:1 - error KV9001: No spec files (*.yaml, *.yml) in ${join(dir, "empty")}.`,
    );
  });

  it("reports two specs that would be written to the same folder", async () => {
    await mkdir(join(dir, "twins"), { recursive: true });
    const spec = readFileSync(join(REPO, "fixtures/specs/open-meteo.yaml"));
    await writeFile(join(dir, "twins", "api.yaml"), spec);
    await writeFile(join(dir, "twins", "API.yml"), spec);
    const r = await kervanc(["build", join(dir, "twins"), "-o", join(dir, "o")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error KV9003: .* would both be written to /);
  });

  it("exits 0 when a spec has warnings only, and prints them", async () => {
    await mkdir(join(dir, "warn"), { recursive: true });
    await copyFile(join(REPO, "fixtures/invalid/secret-unused.yaml"), join(dir, "warn", "secret-unused.yaml"));
    const r = await kervanc(["build", join(dir, "warn"), "-o", join(dir, "out-warn")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("warning KV4002: secrets[0]: Secret API_KEY is declared but never used.");
  });
});

describe("kervanc build on the fixture folders", () => {
  const goldens = readdirSync(join(REPO, "fixtures/invalid")).filter((f) => f.endsWith(".diagnostics.txt"));
  const expected = goldens.flatMap((f) =>
    readFileSync(join(REPO, "fixtures/invalid", f), "utf8")
      .split("\n")
      .filter((l) => l !== ""),
  );

  it("prints every problem of every broken spec in one run (fixtures/invalid)", async () => {
    const out = join(dir, "out-invalid");
    const r = await kervanc(["build", "fixtures/invalid", "-o", out]);
    expect(r.code).toBe(1);
    const printed = withoutFrames(r.stderr).split("\n");
    expect(expected.length).toBeGreaterThan(200);
    expect(expected.filter((line) => !printed.includes(line))).toEqual([]);
    // Nothing but those lines and the summary.
    expect(printed.filter((l) => l !== "")).toHaveLength(expected.length + 1);
    expect(printed.filter((l) => l !== "").at(-1)).toMatch(/^Found \d+ errors; nothing was written\.$/);
    expect(existsSync(out)).toBe(false);
  });

  it("prints the same problems as JSON with --format json", async () => {
    const r = await kervanc(["build", "fixtures/invalid", "-o", join(dir, "out-invalid-json"), "--format", "json"]);
    expect(r.code).toBe(1);
    const diagnostics = JSON.parse(r.stdout) as {
      code: string;
      severity: string;
      file: string;
      line: number;
      column: number;
      path: string;
      message: string;
    }[];
    expect(diagnostics).toHaveLength(expected.length);
    for (const d of diagnostics) {
      expect(
        Object.keys(d)
          .filter((k) => !["endLine", "endColumn", "fix", "doc"].includes(k))
          .sort(),
      ).toEqual(["code", "column", "file", "line", "message", "path", "severity"]);
      expect(d.file).toMatch(/^fixtures\/invalid\/[a-z0-9-]+\.yaml$/);
    }
  });

  it("builds every spec that must be accepted (fixtures/valid), emit included", async () => {
    const r = await kervanc(["build", "fixtures/valid", "-o", join(dir, "out-valid")]);
    // Only KV2015: shapes.yaml names a tool with every character Kervan allows, a dot among them, which some
    // clients refuse; kervanc accepts it, as Kervan does, with that warning.
    const problems = r.stderr.split("\n").filter((line) => / - (error|warning) KV/.test(line));
    expect(problems).toEqual([expect.stringMatching(/^fixtures\/valid\/shapes\.yaml:\d+:\d+ - warning KV2015: /)]);
    expect(r.code).toBe(0);
    const specs = readdirSync(join(REPO, "fixtures/valid")).filter((f) => f.endsWith(".yaml"));
    for (const spec of specs)
      expect(existsSync(join(dir, "out-valid", spec.replace(/\.yaml$/, ""), "server.mjs"))).toBe(true);
  });
});

describe("kervanc build when the output cannot be written", () => {
  it("reports KV9004 with the path and the reason, and exits 1 without a stack trace", async () => {
    const blocker = join(dir, "not-a-folder");
    await writeFile(blocker, "a file where the output folder should be\n");
    const r = await kervanc(["build", "fixtures/specs", "-o", blocker]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `${blocker}:1:1 - error KV9004: Cannot write ${blocker} (EEXIST); nothing more was written.`,
    );
    expect(r.stderr).toContain("Found 1 error; nothing was written.");
    expect(r.stderr).not.toContain("internal error");
  });
});
