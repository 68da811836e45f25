/**
 * `select` nests at most MAX_SELECT_DEPTH levels (KV6010). The tree is written into the tool's module a level
 * per indent: 1000 `!` made a 3 MB module and seconds of build for one tool. Within the bound, the interpreter
 * never meets its own nesting cap.
 */
import { compile } from "@jmespath-community/jmespath";
import type { SelectNode } from "@kervanc/runtime";
import { describe, expect, it } from "vitest";
import { checkSelect } from "../../packages/compiler/src/analyze/rules/select.ts";
import { MAX_SELECT_DEPTH } from "../../packages/compiler/src/analyze/rules/select-static.ts";
import type { Finding } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { SELECT_MAX_NESTING } from "../../packages/runtime/src/select/core.ts";
import { evaluateSelect } from "../../packages/runtime/src/select/evaluate.ts";

const check = (expression: string): Finding[] => {
  const out: Finding[] = [];
  checkSelect(expression, ["tools", 0, "output", "select"], out);
  return out;
};

/** Expressions whose tree is `levels` deep, one per way of nesting. */
const SHAPES: Record<string, (levels: number) => string> = {
  not: (n) => `${"!".repeat(n - 1)}a`,
  dots: (n) => Array.from({ length: n }, () => "a").join("."),
  pipes: (n) => Array.from({ length: n }, () => "a").join("|"),
  lists: (n) => `${"[".repeat(n - 1)}a${"]".repeat(n - 1)}`,
  calls: (n) => `${"abs(".repeat(n - 1)}a${")".repeat(n - 1)}`,
  // A hash and its key are two levels: `n` is odd here.
  hashes: (n) => `${"{a:".repeat((n - 1) / 2)}b${"}".repeat((n - 1) / 2)}`,
};

describe("select nesting", () => {
  it("stays within the interpreter's cap", () => {
    expect(MAX_SELECT_DEPTH).toBeLessThanOrEqual(SELECT_MAX_NESTING);
  });

  it.each(Object.keys(SHAPES))("%s: one level over the bound is KV6010, placed in the expression", (shape) => {
    const expression = SHAPES[shape]!(MAX_SELECT_DEPTH + 1);
    const findings = check(expression);
    expect(findings.map((f) => f.code)).toEqual(["KV6010"]);
    expect(findings[0]!.message).toContain(`at most ${MAX_SELECT_DEPTH} are allowed`);
    const offset = findings[0]!.offset;
    expect(offset).toBeDefined();
    expect(offset!).toBeGreaterThanOrEqual(0);
    expect(offset!).toBeLessThan(expression.length);
  });

  it("reports the 1000-character chain of the review once, with its depth", () => {
    const findings = check(`${"!".repeat(999)}a`);
    expect(findings.map((f) => f.code)).toEqual(["KV6010"]);
    expect(findings[0]!.message).toMatch(/^select nests 1000 levels deep; at most 64/);
  });

  it.each(Object.keys(SHAPES))(
    "%s: at the bound it is accepted and evaluates within the interpreter's cap",
    (shape) => {
      const expression = SHAPES[shape]!(shape === "hashes" ? MAX_SELECT_DEPTH - 1 : MAX_SELECT_DEPTH);
      expect(check(expression)).toEqual([]);
      const ast = compile(expression) as unknown as SelectNode;
      expect(() => evaluateSelect(ast, { a: -1 })).not.toThrow();
    },
  );
});
