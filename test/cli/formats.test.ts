/**
 * Diagnostic output formats (issue 19): code frames (goldens for a multi-line range and for wide characters),
 * colour by stream and environment, JSON with end positions, fixes and documentation anchors, GitHub Actions
 * workflow commands with their escaping, and SARIF 2.1.0 validated against the published schema (shipped in
 * @microsoft/jest-sarif; no network).
 */
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { run } from "../../packages/compiler/src/cli.ts";
import type { Io } from "../../packages/compiler/src/cli/io.ts";
import { useColor } from "../../packages/compiler/src/cli/print.ts";
import { CODES } from "../../packages/compiler/src/diagnostics/codes.ts";
import type { Diagnostic } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { cellWidth } from "../../packages/compiler/src/diagnostics/frame.ts";
import {
  escapeData,
  escapeProperty,
  renderGithub,
  renderText,
  sarifLog,
} from "../../packages/compiler/src/diagnostics/formats.ts";
import { REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

const FRAMES = "test/cli/frames";
let dir: string;

beforeAll(async () => {
  dir = await tempDir("formats");
});
afterAll(async () => {
  await removeDir(dir);
});

/** Runs the CLI in-process with the given terminal flags and environment. */
async function cli(
  argv: string[],
  options: { tty?: boolean; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: Io = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    isTTY: { stdout: options.tty ?? false, stderr: options.tty ?? false },
    env: options.env ?? {},
  };
  const previous = process.cwd();
  process.chdir(REPO);
  try {
    const code = await run(argv, io);
    return { code, stdout, stderr };
  } finally {
    process.chdir(previous);
  }
}

function frameOf(name: string): string {
  const file = `${FRAMES}/${name}.yaml`;
  const bytes = readFileSync(join(REPO, file));
  const { diagnostics } = compileSpec(file, bytes);
  return renderText(diagnostics, { sources: new Map([[file, new TextDecoder().decode(bytes)]]) });
}

describe("code frames", () => {
  // A file snapshot: after an intended change, `npm run accept` rewrites it (and review the diff).
  it.each(["multiline", "wide"])("%s.yaml matches its golden", async (name) => {
    await expect(
      frameOf(name),
      "The code frame differs from its golden: if the change is intended, run npm run accept",
    ).toMatchFileSnapshot(join(REPO, FRAMES, `${name}.txt`));
  });

  it("puts the carets under the reported text after CJK and emoji (two cells each)", () => {
    const lines = frameOf("wide").split("\n");
    const source = lines.findIndex((l) => l.startsWith("> "));
    const sourceLine = lines[source]!;
    const carets = lines[source + 1]!;
    const prefix = sourceLine.slice(0, sourceLine.indexOf("{input.q}"));
    expect(carets.indexOf("^")).toBe(cellWidth(prefix));
    expect(carets.trim().replace(/^\|\s*/, "")).toBe("^".repeat("{input.q}".length));
  });

  it("marks every line of a range that spans lines", () => {
    const marked = frameOf("multiline")
      .split("\n")
      .filter((l) => l.startsWith("> "));
    expect(marked.map((l) => l.split("|")[0]!.replace(/\s+/g, " ").trim())).toEqual(["> 2", "> 8", "> 9", "> 10"]);
  });

  it("escapes control characters in the source line", () => {
    const d: Diagnostic = {
      code: "KV2001",
      severity: "error",
      file: "x.yaml",
      line: 1,
      column: 1,
      path: "",
      message: "m",
    };
    const text = renderText([d], { sources: new Map([["x.yaml", "a\u001b[31mb\u0007"]]) });
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(text).toContain("a\\u001B[31mb\\u0007");
  });

  it("come from the text the load stage decoded: also for a spec it refuses, and none for bytes that are not UTF-8", async () => {
    // The spec's bytes are decoded once (load.ts) and the text handed along, not decoded again for the frames.
    const ok = compileSpec("ok.yaml", readFileSync(join(REPO, FRAMES, "wide.yaml")));
    expect(ok.text).toBe(ok.loaded!.text);
    const broken = compileSpec("broken.yaml", new TextEncoder().encode("name: a\nname: b\n"));
    expect(broken.loaded).toBeNull();
    expect(broken.text).toBe("name: a\nname: b\n");
    expect(compileSpec("latin1.yaml", Uint8Array.from([0x6e, 0x3a, 0x20, 0xe9, 0x0a])).text).toBeUndefined();
    const spec = join(dir, "duplicate.yaml");
    await writeFile(spec, "version: 1\nname: a\nname: b\n");
    const r = await cli(["build", spec, "-o", join(dir, "duplicate-out")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error KV1005[^\n]*\n[^\n]*\n> +3 \| name: b\n/);
  });

  it("names the documentation of every diagnostic, and every anchor exists in docs/diagnostics.md", () => {
    const doc = readFileSync(join(REPO, "docs/diagnostics.md"), "utf8");
    for (const code of Object.keys(CODES)) expect(doc).toContain(`<a id="${code.toLowerCase()}"></a>${code}`);
    expect(frameOf("wide")).toContain("  see kervanc docs/diagnostics.md#kv3018\n");
  });
});

describe("colour", () => {
  const io = (tty: boolean, env: Record<string, string>): Io => ({
    stdout: () => {},
    stderr: () => {},
    isTTY: { stdout: tty, stderr: tty },
    env,
  });
  it.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: "1" }, false],
    [false, { FORCE_COLOR: "1" }, true],
    [true, { NO_COLOR: "1", FORCE_COLOR: "1" }, true],
    [false, { FORCE_COLOR: "0" }, false],
  ] as const)("tty=%s env=%j -> colour %s", (tty, env, expected) => {
    expect(useColor(io(tty, env), "stderr")).toBe(expected);
  });

  it("prints escape sequences on a terminal only", async () => {
    const spec = `${FRAMES}/wide.yaml`;
    const piped = await cli(["build", spec, "-o", join(dir, "o1")]);
    expect(piped.stderr).not.toContain("\u001b[");
    const tty = await cli(["build", spec, "-o", join(dir, "o2")], { tty: true });
    expect(tty.stderr).toContain("\u001b[31merror KV3018\u001b[0m");
    const noColor = await cli(["build", spec, "-o", join(dir, "o3")], { tty: true, env: { NO_COLOR: "1" } });
    expect(noColor.stderr).toBe(piped.stderr);
  });
});

describe("--format json", () => {
  it("adds the end position, the fix and the documentation anchor", async () => {
    const r = await cli([
      "build",
      "fixtures/invalid/template-single-brace.yaml",
      "-o",
      join(dir, "j"),
      "--format",
      "json",
    ]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([
      {
        code: "KV3018",
        severity: "error",
        file: "fixtures/invalid/template-single-brace.yaml",
        line: 16,
        column: 13,
        endLine: 16,
        endColumn: 22,
        path: "tools[0].http.query.q",
        message:
          "{input.q} is sent as written: single braces are not a template; a template has two braces. Did you mean {{input.q}}?",
        fix: { description: "Write {{input.q}}", replacement: "{{input.q}}" },
        doc: "docs/diagnostics.md#kv3018",
      },
    ]);
  });
});

describe("ranges of template references", () => {
  it("cover the whole reference, inner spaces included, so a fix replaces exactly it", () => {
    const file = "spaced.yaml";
    const text = [
      "specVersion: 1",
      "name: spaced",
      'version: "1.0.0"',
      "tools:",
      "  - name: search",
      "    description: Search.",
      "    input: { type: object, properties: { q: { type: string } } }",
      "    http:",
      '      url: "https://api.example.com/search"',
      "      query:",
      '        q: "{{  input.query  }}"',
      "    output:",
      '      select: "items"',
      "",
    ].join("\n");
    const [d] = compileSpec(file, new TextEncoder().encode(text)).diagnostics;
    expect(d).toMatchObject({
      code: "KV3004",
      line: 11,
      column: 13,
      endLine: 11,
      endColumn: 32,
      fix: { replacement: "{{input.q}}" },
    });
    expect(text.split("\n")[10]!.slice(d!.column - 1, d!.endColumn! - 1)).toBe("{{  input.query  }}");
  });
});

describe("--format github", () => {
  it("escapes %, CR and LF in the message, and : and , too in properties", () => {
    expect(escapeData("a%b\r\nc:d,e")).toBe("a%25b%0D%0Ac:d,e");
    expect(escapeProperty("a%b\r\nc:d,e")).toBe("a%25b%0D%0Ac%3Ad%2Ce");
    const d: Diagnostic = {
      code: "KV2001",
      severity: "warning",
      file: "dir,x/a:b%.yaml",
      line: 3,
      column: 4,
      endLine: 3,
      endColumn: 9,
      path: "tools[0]",
      message: "50% done: a, b",
    };
    expect(renderGithub([d])).toBe(
      "::warning file=dir%2Cx/a%3Ab%25.yaml,line=3,col=4,endLine=3,endColumn=9,title=KV2001 (docs/diagnostics.md#kv2001)::KV2001 tools[0]: 50%25 done: a, b\n",
    );
  });

  it("cannot start a second workflow command from a message with a line break", () => {
    const d: Diagnostic = {
      code: "KV2001",
      severity: "error",
      file: "a.yaml",
      line: 1,
      column: 1,
      path: "",
      message: "x\n::set-env name=A::b\r",
    };
    const out = renderGithub([d]);
    expect(out.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(out).not.toMatch(/\n::set-env/);
  });

  it("prints one command per diagnostic for build", async () => {
    const r = await cli([
      "build",
      "fixtures/invalid/template-single-brace.yaml",
      "fixtures/invalid/select-some-answers-only.yaml",
      "-o",
      join(dir, "g"),
      "--format",
      "github",
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n").filter((l) => l !== "")).toEqual([
      '::warning file=fixtures/invalid/select-some-answers-only.yaml,line=11,col=15,endLine=11,endColumn=33,title=KV6009 (docs/diagnostics.md#kv6009)::KV6009 tools[0].output.select: select returns number or null, and the output schema has type "number": calls fail whenever it returns null.',
      "::error file=fixtures/invalid/template-single-brace.yaml,line=16,col=13,endLine=16,endColumn=22,title=KV3018 (docs/diagnostics.md#kv3018)::KV3018 tools[0].http.query.q: {input.q} is sent as written: single braces are not a template; a template has two braces. Did you mean {{input.q}}?",
    ]);
  });
});

describe("--format sarif", () => {
  const require = createRequire(import.meta.url);
  // The schema as published is draft-04; its only draft-04 keyword is the root "id", which draft-07 spells "$id".
  const published = JSON.parse(
    readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"),
  ) as Record<string, unknown>;
  const { id, $schema: _draft, ...rest } = published;
  // One pattern in the published schema (language tags) is not valid with the "u" flag, which Ajv sets by default.
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
  const validate = ajv.compile({ ...rest, $id: String(id) });

  it("the validator refuses a log that breaks the schema (so passing means something)", () => {
    expect(validate({ version: "2.1.0", runs: [{ tool: { driver: {} } }] })).toBe(false);
    expect(validate({ version: "2.0.0", runs: [] })).toBe(false);
  });

  it("is valid SARIF 2.1.0 for every invalid fixture, with rules and regions", async () => {
    const r = await cli(["build", "fixtures/invalid", "-o", join(dir, "s"), "--format", "sarif"]);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout) as ReturnType<typeof sarifLog>;
    expect(validate(log), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    const run0 = log.runs[0]!;
    expect(run0.results!.length).toBeGreaterThan(150);
    for (const rule of run0.tool.driver.rules!)
      expect(rule.help?.text).toContain(`docs/diagnostics.md#${rule.id.toLowerCase()}`);
    const brace = run0.results!.find(
      (x) =>
        x.ruleId === "KV3018" &&
        x.locations![0]!.physicalLocation!.artifactLocation!.uri!.endsWith("template-single-brace.yaml"),
    )!;
    expect(brace.locations![0]!.physicalLocation!.region).toEqual({
      startLine: 16,
      startColumn: 13,
      endLine: 16,
      endColumn: 22,
    });
    expect(brace.fixes![0]!.artifactChanges[0]!.replacements[0]!.insertedContent!.text).toBe("{{input.q}}");
  });

  it("encodes file names as URIs and stays valid with odd names", () => {
    const d: Diagnostic = {
      code: "KV2001",
      severity: "error",
      file: "my specs/a#b%.yaml",
      line: 1,
      column: 1,
      path: "",
      message: "m\u0007",
    };
    const log = sarifLog([d]);
    expect(validate(log)).toBe(true);
    expect(log.runs[0]!.results![0]!.locations![0]!.physicalLocation!.artifactLocation!.uri).toBe(
      "my%20specs/a%23b%25.yaml",
    );
    expect(log.runs[0]!.results![0]!.message.text).toBe("m\\u0007");
  });

  it("kervanc import prints the same formats", async () => {
    const out = join(dir, "imp", "notes.yaml");
    const sarif = await cli(["import", "fixtures/openapi/notes.yaml", "-o", out, "--format", "sarif"]);
    expect(sarif.code).toBe(0);
    const log = JSON.parse(sarif.stdout) as ReturnType<typeof sarifLog>;
    expect(validate(log)).toBe(true);
    expect(log.runs[0]!.results!.map((x) => x.ruleId)).toContain("KV7013");
    const github = await cli([
      "import",
      "fixtures/openapi/notes.yaml",
      "-o",
      join(dir, "imp2", "notes.yaml"),
      "--format",
      "github",
    ]);
    expect(github.stdout).toMatch(
      /^::warning file=fixtures\/openapi\/notes\.yaml,line=7,col=10,.*title=KV7013 \(docs\/diagnostics\.md#kv7013\)::KV7013 servers\[0\]\.url: /m,
    );
    const json = await cli([
      "import",
      "fixtures/openapi/notes.yaml",
      "-o",
      join(dir, "imp3", "notes.yaml"),
      "--format",
      "json",
    ]);
    const value = JSON.parse(json.stdout) as { ok: boolean; diagnostics: { code: string; doc: string }[] };
    expect(value.ok).toBe(true);
    expect(value.diagnostics.find((d) => d.code === "KV7013")?.doc).toBe("docs/diagnostics.md#kv7013");
  });
});
