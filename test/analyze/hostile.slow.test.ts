/**
 * Hostile files: each gets exactly one clear diagnostic (not a crash, a stack trace or a flood), placed inside
 * the file, in well under 2 s. Files too big or too binary to commit are generated here; the small ones are
 * fixtures in fixtures/invalid/ as well.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec, MAX_DIAGNOSTICS_PER_FILE } from "../../packages/compiler/src/compile.ts";
import { build } from "../../packages/compiler/src/build.ts";
import type { Diagnostic } from "../../packages/compiler/src/diagnostics/diagnostic.ts";

/** The requirement: no hostile file makes a build take longer than this. */
/**
 * A hang guard, not a speed measurement: the blow-ups these files provoke take minutes (or never end), so each
 * test fails by its timeout if one comes back, while a loaded CI machine taking 5 s instead of 1 s does not.
 * Speed is measured by the benchmark scripts, never asserted here.
 */
const HANG_GUARD_MS = 30_000;

const HEAD = 'specVersion: 1\nname: hostile\nversion: "1"\n';
const TOOL =
  "tools:\n  - name: t\n    description: d\n    http:\n      url: https://api.example.com/\n    output:\n      raw: true\n";

function compile(bytes: Uint8Array | string): { diagnostics: readonly Diagnostic[] } {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const result = compileSpec("hostile.yaml", data);
  return { diagnostics: result.diagnostics };
}

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function lineCount(bytes: Uint8Array): number {
  let n = 1;
  for (const b of bytes) if (b === 10) n++;
  return n;
}

const billionLaughs = (() => {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) {
    const name = String.fromCharCode(97 + i);
    const prev = String.fromCharCode(96 + i);
    lines.push(`${name}: &${name} [${Array.from({ length: 9 }, () => `*${prev}`).join(",")}]`);
  }
  return lines.join("\n") + "\n";
})();

const cases: { name: string; bytes: () => Uint8Array | string; code: string; message?: RegExp }[] = [
  {
    name: "a file over 1 MiB",
    bytes: () => HEAD + "description: " + "x".repeat(1_048_576) + "\n" + TOOL,
    code: "KV1001",
    message: /^The spec is larger than 1048576 bytes \(it has \d+\)\.$/,
  },
  { name: "exactly 1 MiB + 1 of spaces", bytes: () => " ".repeat(1_048_577), code: "KV1001" },
  { name: "a billion laughs alias bomb", bytes: () => billionLaughs, code: "KV1008" },
  { name: "an alias inside its own anchor", bytes: () => "a: &a [1, *a]\n", code: "KV1012" },
  {
    // Under 50 copies, so only the cap on what aliases expand to (text counted by its characters) refuses it.
    name: "a 30,000-character text aliased 40 times",
    bytes: () => `a: &a "${"x".repeat(30_000)}"\nb: [${Array(40).fill("*a").join(", ")}]\n`,
    code: "KV1008",
    message: /^The YAML aliases expand too much \(to more than 1048576 values and characters of text in all\)/,
  },

  { name: "an alias to a mapping that holds it", bytes: () => "a: &a {b: {c: *a}}\n", code: "KV1012" },
  {
    name: "10,000 nested flow sequences",
    bytes: () => `a: ${"[".repeat(10_000)}${"]".repeat(10_000)}\n`,
    code: "KV1009",
  },
  {
    name: "10,000 nested flow mappings",
    bytes: () => `a: ${"{a: ".repeat(10_000)}1${"}".repeat(10_000)}\n`,
    code: "KV1009",
  },
  // Block nesting costs indentation: 2,000 levels already make a file over 1 MiB.
  {
    name: "2,000 nested block sequences (too big first)",
    bytes: () => Array.from({ length: 2000 }, (_, i) => `${" ".repeat(i)}-`).join("\n"),
    code: "KV1001",
  },
  {
    name: "!!js/function",
    bytes: () => HEAD + 'description: !!js/function "function () { return 1 }"\n' + TOOL,
    code: "KV1006",
  },
  { name: "!!js/undefined", bytes: () => HEAD + "description: !!js/undefined ''\n" + TOOL, code: "KV1006" },
  {
    name: "!!python/object",
    bytes: () => HEAD + "description: !!python/object:os.system [ls]\n" + TOOL,
    code: "KV1006",
  },
  { name: "!!set", bytes: () => HEAD + "description: !!set {a, b}\n" + TOOL, code: "KV1006" },
  { name: "a local tag", bytes: () => HEAD + "description: !include other.yaml\n" + TOOL, code: "KV1006" },
  { name: "several documents", bytes: () => HEAD + TOOL + "---\n" + HEAD + TOOL + "---\n" + HEAD, code: "KV1007" },
  { name: "an empty file", bytes: () => "", code: "KV1003" },
  { name: "only whitespace", bytes: () => "  \n\n   \n", code: "KV1003" },
  { name: "only comments", bytes: () => "# a\n# b\n", code: "KV1003" },
  { name: "only a BOM", bytes: () => new Uint8Array([0xef, 0xbb, 0xbf]), code: "KV1003" },
  { name: "a NUL byte", bytes: () => HEAD + "description: a\u0000b\n" + TOOL, code: "KV1004", message: /U\+0000/ },
  {
    name: "an escape character (raw)",
    bytes: () => HEAD + "description: a\u001b[2Jb\n" + TOOL,
    code: "KV1004",
    message: /U\+001B/,
  },
  {
    name: "invalid UTF-8: a lone continuation byte",
    bytes: () => new Uint8Array([...new TextEncoder().encode(HEAD + "description: caf"), 0x80, 0x0a]),
    code: "KV1002",
  },
  {
    name: "invalid UTF-8: an overlong encoding",
    bytes: () => new Uint8Array([...new TextEncoder().encode("a: "), 0xc0, 0xaf, 0x0a]),
    code: "KV1002",
  },
  {
    name: "invalid UTF-8: an encoded surrogate",
    bytes: () => new Uint8Array([...new TextEncoder().encode("a: "), 0xed, 0xa0, 0x80, 0x0a]),
    code: "KV1002",
  },
  {
    name: "invalid UTF-8: truncated at the end",
    bytes: () => new Uint8Array([...new TextEncoder().encode("a: b\nc: "), 0xe2, 0x82]),
    code: "KV1002",
  },
  {
    name: "invalid UTF-16 pretending to be YAML",
    bytes: () => new Uint8Array([0xff, 0xfe, 0x61, 0x00, 0x3a, 0x00]),
    code: "KV1002",
  },
  { name: "a YAML 1.1 directive", bytes: () => "%YAML 1.1\n---\n" + HEAD + TOOL, code: "KV1013" },
  { name: "a list as a mapping key", bytes: () => "? [a, b]\n: c\n", code: "KV1014" },
];

describe("hostile files", { timeout: HANG_GUARD_MS }, () => {
  for (const c of cases) {
    it(`${c.name}: one ${c.code}, placed in the file, quickly`, () => {
      const input = c.bytes();
      const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
      const { diagnostics } = compile(bytes);
      expect(diagnostics.map((d) => d.code)).toEqual([c.code]);
      const [d] = diagnostics;
      expect(d!.severity).toBe("error");
      if (c.message) expect(d!.message).toMatch(c.message);
      expect(d!.line).toBeGreaterThanOrEqual(1);
      expect(d!.line).toBeLessThanOrEqual(lineCount(bytes));
      expect(d!.column).toBeGreaterThanOrEqual(1);
    });
  }

  it("binary junk (seeded random bytes): one diagnostic each, never a crash", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const next = random(seed);
      // Half the files are random bytes; half are random ASCII (valid UTF-8, so the control-character check answers).
      const bytes = Uint8Array.from({ length: 2000 + Math.floor(next() * 30_000) }, () =>
        Math.floor(next() * (seed % 2 === 0 ? 256 : 128)),
      );
      const { diagnostics } = compile(bytes);
      expect(diagnostics, `seed ${seed}`).toHaveLength(1);
      expect(["KV1002", "KV1004"]).toContain(diagnostics[0]!.code);
      expect(diagnostics[0]!.line).toBeLessThanOrEqual(lineCount(bytes));
    }
  });
});

describe("hostile but well-formed files stay short, and end", { timeout: HANG_GUARD_MS }, () => {
  it("10,000 anchors each aliased once inside one aliased list (quadratic in yaml's own toJS: minutes)", () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `b${i}: &b${i} x`);
    lines.push(`a: &a [${Array.from({ length: 10_000 }, (_, i) => `*b${i}`).join(",")}]`, "c: *a");
    const { diagnostics } = compile(lines.join("\n"));
    expect(diagnostics.length).toBeLessThanOrEqual(MAX_DIAGNOSTICS_PER_FILE + 1);
  });

  it("20,000 keys in one mapping (quadratic in yaml's duplicate-key check: seconds)", () => {
    const { diagnostics } = compile(Array.from({ length: 20_000 }, (_, i) => `k${i}: ${i}`).join("\n"));
    // Unknown fields are listed up to 10 per mapping; the rest are counted in the tenth message.
    expect(diagnostics.filter((d) => d.code === "KV2001")).toHaveLength(10);
    expect(diagnostics.find((d) => d.code === "KV2001" && /19990 more unknown fields/.test(d.message))).toBeDefined();
  });

  it("1,400 nested block mappings (the deepest that fits in 1 MiB) are read without a stack overflow", () => {
    const { diagnostics } = compile(Array.from({ length: 1400 }, (_, i) => `${" ".repeat(i)}a:`).join("\n"));
    // Either the structure errors of a mapping that is not a spec, or one "nested too deeply".
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.length).toBeLessThanOrEqual(10);
  });

  it("a file with more problems than the cap shows the first ones and counts the rest as an error", () => {
    const tools = Array.from(
      { length: 200 },
      (_, i) => `  - { name: "bad name ${i}", description: "", http: { url: "" }, output: { raw: true } }`,
    );
    const { diagnostics } = compile(HEAD + "tools:\n" + tools.join("\n") + "\n");
    expect(diagnostics).toHaveLength(MAX_DIAGNOSTICS_PER_FILE + 1);
    const note = diagnostics[diagnostics.length - 1]!;
    expect(note.code).toBe("KV9005");
    expect(note.severity).toBe("error");
    expect(note.message).toMatch(
      /^\d+ more problems in this file \(\d+ errors\) are not shown; fix the ones above first\.$/,
    );
  });

  // Not a hostile file but the largest honest one: 200 tools, 400 schemas compiled by Ajv. About 1 s on an idle
  // machine; the bound is generous because CI machines are shared, and what it guards against is a slowdown
  // that grows faster than the file (a quadratic walk), not a few hundred milliseconds.
  it("a 1 MiB spec of 200 valid tools with schemas checks and plans in seconds, not minutes", () => {
    const props = Array.from(
      { length: 40 },
      (_, i) => `            p${i}: { type: string, description: "${"d".repeat(40)}", maxLength: 100 }`,
    ).join("\n");
    const tool = (i: number) =>
      `  - name: t${i}\n    description: Tool ${i}.\n    input:\n      type: object\n      properties:\n        id: { type: integer }\n        obj:\n          type: object\n          properties:\n${props}\n    http:\n      url: https://api.example.com/t/{{input.id}}\n    output:\n      select: "{id: id}"\n      schema: { type: object, properties: { id: { type: integer } } }\n`;
    const text = HEAD + "tools:\n" + Array.from({ length: 200 }, (_, i) => tool(i)).join("");
    expect(text.length).toBeGreaterThan(500_000);
    expect(text.length).toBeLessThan(1_048_576);
    const result = compileSpec("big.yaml", new TextEncoder().encode(text));
    expect(result.diagnostics).toEqual([]);
    expect(result.planned?.tools).toHaveLength(200);
  });
});

describe("folders", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kervanc-hostile-"));
    await mkdir(join(dir, "empty"));
    await mkdir(join(dir, "other-files"));
    await writeFile(join(dir, "other-files", "notes.txt"), "not a spec\n");
    await mkdir(join(dir, "other-files", "nested.yaml"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a folder with no specs gives one KV9001 and writes nothing", async () => {
    for (const folder of ["empty", "other-files"]) {
      const report = await build({ inputs: [join(dir, folder)], outDir: join(dir, "out") });
      expect(report.ok).toBe(false);
      expect(report.diagnostics.map((d) => [d.code, d.message])).toEqual([
        ["KV9001", `No spec files (*.yaml, *.yml) in ${join(dir, folder)}.`],
      ]);
    }
  });
});
