/**
 * KV5019: a pattern the generated validator runs on every argument that backtracks super-linearly is reported,
 * with a rewrite when one matches the same strings; ordinary patterns are not; and the analysis, which can itself
 * take seconds on a pathological pattern, is bounded so that a spec (or an imported OpenAPI document) cannot hang
 * the build with it. fixtures/invalid/schema-pattern-backtracking.yaml holds the messages as a baseline.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { backtrackingOf, LIMITS } from "../../packages/compiler/src/analyze/regex-backtracking.ts";
import type { Diagnostic } from "../../packages/compiler/src/diagnostics/diagnostic.ts";

function specWith(patterns: readonly string[]): string {
  const properties = patterns.map((p, i) => `        p${i}: { type: string, pattern: ${JSON.stringify(p)} }`);
  return [
    "specVersion: 1",
    "name: patterns",
    'version: "1.0.0"',
    "tools:",
    "  - name: t",
    "    description: d",
    "    input:",
    "      type: object",
    "      properties:",
    ...properties,
    "    http: { url: https://api.example.com/x }",
    "    output: { raw: true }",
    "",
  ].join("\n");
}

function slowWarnings(patterns: readonly string[]): Diagnostic[] {
  const compiled = compileSpec("patterns.yaml", new TextEncoder().encode(specWith(patterns)));
  expect(compiled.planned, JSON.stringify(compiled.diagnostics)).not.toBeNull();
  return compiled.diagnostics.filter((d) => d.code === "KV5019");
}

/** Every string of up to `length` characters over `alphabet`. */
function strings(alphabet: string, length: number): string[] {
  let level = [""];
  const all = [""];
  for (let n = 1; n <= length; n++) {
    level = level.flatMap((s) => [...alphabet].map((c) => s + c));
    all.push(...level);
  }
  return all;
}

/** A pathological pattern for the analysis (not for V8): about 12 s of scslre on this machine, no report. */
const SLOW_TO_ANALYSE = (n: number): string => `(${"\\p{L}*".repeat(n)})+`;

describe("patterns that backtrack (KV5019)", () => {
  it("reports exponential, polynomial and unanchored backtracking, each at its pattern, and nothing for ordinary patterns", () => {
    const ordinary = [
      "^[a-z_,]*$",
      "^[a-z0-9]+(-[a-z0-9]+)*$",
      "^\\d{4}-\\d{2}-\\d{2}$",
      "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
      "^\\+?[1-9]\\d{1,14}$",
      "^https?://",
      "^\\p{Lu}\\p{Ll}*$",
    ];
    const slow = ["^(a+)+$", "a*a*b", "\\d+-\\d+"];
    const warnings = slowWarnings([...ordinary, ...slow]);
    expect(warnings.map((d) => d.path)).toEqual([7, 8, 9].map((i) => `tools[0].input.properties.p${i}.pattern`));
    expect(warnings.every((d) => d.severity === "warning")).toBe(true);
    expect(warnings[0]!.message).toContain('"(a+)+" can match a run of "a" in exponentially many ways');
    expect(warnings[1]!.message).toContain("grows with the square of a string's length or faster");
    expect(warnings[2]!.message).toContain("tried from every position");
  });

  it("offers a rewrite only when it matches the same strings and no longer backtracks", () => {
    const source = "^\\S+@\\S+\\.\\S+$";
    const found = backtrackingOf(source);
    expect(found.kind).toBe("polynomial");
    const fix = found.kind === "polynomial" ? found.fix : null;
    expect(fix).toBe("^\\S[^\\s@]*@\\S[^\\s.]*\\.\\S+$");
    expect(backtrackingOf(fix!)).toEqual({ kind: "linear" });
    const before = new RegExp(source, "u");
    const after = new RegExp(fix!, "u");
    const inputs = strings("a@. ", 7);
    expect(inputs.length).toBeGreaterThan(20_000);
    expect(inputs.filter((s) => before.test(s) !== after.test(s))).toEqual([]);
    expect(inputs.filter((s) => after.test(s)).length).toBeGreaterThan(100);
    // A cause scslre cannot rewrite gets advice instead of a pattern.
    const [exponential] = slowWarnings(["^(\\w+\\s?)*$"]);
    expect(exponential!.message).toContain("Rewrite it so that no repeated part");
  });

  it("gives up on a pattern whose analysis takes too long, says so, and goes on with a fresh worker", () => {
    const started = performance.now();
    const warnings = slowWarnings([SLOW_TO_ANALYSE(40), "^(b+)+$"]);
    // The pattern alone takes the analysis about 12 s; the build waits LIMITS.patternMs for it.
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(warnings.map((d) => d.message)).toEqual([
      expect.stringContaining(
        `was not checked for slow backtracking: the analysis took longer than ${LIMITS.patternMs / 1000} s`,
      ),
      expect.stringContaining('"(b+)+" can match a run of "b" in exponentially many ways'),
    ]);
  });

  it("stops analysing when the spec's budget is spent, so many such patterns cannot add up, and the next spec starts afresh", () => {
    const budget = LIMITS.budgetMs;
    LIMITS.budgetMs = 0;
    try {
      const warnings = slowWarnings(["^(c+)+$", SLOW_TO_ANALYSE(41)]);
      expect(warnings.map((d) => d.message)).toEqual([
        expect.stringContaining("was not checked for slow backtracking: this spec's patterns already took the 0 s"),
        expect.stringContaining("was not checked for slow backtracking: this spec's patterns already took the 0 s"),
      ]);
    } finally {
      LIMITS.budgetMs = budget;
    }
    expect(slowWarnings(["^(c+)+$"]).map((d) => d.message)).toEqual([
      expect.stringContaining('"(c+)+" can match a run of "c" in exponentially many ways'),
    ]);
  });
});
