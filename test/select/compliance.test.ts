/**
 * The JMESPath Community compliance suite, run through our interpreter.
 *
 * Every case is compiled with the library's `compile()` (as the kervanc compiler does at build time), the tree is
 * deep-frozen (as generated code does), the input is deep-frozen too (which proves we never write to the data),
 * and the tree is evaluated with `evaluateSelect`. Results must deep-equal `result`; `error` cases must throw a
 * `SelectError` of kind "evaluation" whose code is the suite's error kind; `syntax` cases must fail to compile.
 * Cases that only carry `bench` (no expected value) are checked against the library's own `search`.
 *
 * Legacy literals: kervanc compiles with the library's default options, which reject the legacy `` `foo` ``
 * string-literal syntax (see `jep-12/`, run with the default). The `legacy/` cases are still run, compiled with
 * `enable_legacy_literals` as the library's own harness does: they produce ordinary Literal nodes, so they test
 * the interpreter, not a syntax our builds accept.
 *
 * Each expression is also run through the library's `search`; differences are reported (printed), not failed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { compile, getRegisteredFunctions, search } from "@jmespath-community/jmespath";
import { afterAll, describe, expect, it } from "vitest";
import type { JsonValue, SelectNode } from "../../packages/runtime/src/select/ast.ts";
import { evaluateSelect, SelectError } from "../../packages/runtime/src/select/evaluate.ts";
import { FUNCTION_NAMES } from "../../packages/runtime/src/select/functions.ts";
import { deepFreeze } from "./deep-freeze.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const complianceDir =
  process.env.KERVANC_JMESPATH_COMPLIANCE ?? path.resolve(repoRoot, "..", "shared", "data", "jmespath-compliance");
const haveSuite = existsSync(complianceDir) && statSync(complianceDir).isDirectory();

interface ComplianceCase {
  readonly expression: string;
  readonly result?: JsonValue;
  readonly error?: string;
  readonly bench?: string;
  readonly comment?: string;
}

interface ComplianceSuite {
  readonly given: JsonValue;
  readonly comment?: string;
  readonly cases: readonly ComplianceCase[];
}

/**
 * Suite cases whose expected outcome we deliberately do not produce, keyed by `file#suite#case`, with the reason.
 * Empty: we pass every case. A future divergence goes here so that it is skipped with its reason visible.
 */
const SUITE_DIVERGENCES: ReadonlyMap<string, string> = new Map<string, string>([]);

/**
 * Where we deliberately differ from @jmespath-community/jmespath 1.3.0 (none of these is covered by the suite,
 * which both pass). Each entry is asserted against our interpreter; the library's answer is printed.
 */
const LIBRARY_DIVERGENCES: ReadonlyArray<{
  readonly expression: string;
  readonly given?: JsonValue;
  readonly expected:
    { readonly result: JsonValue } | { readonly error: string; readonly kind?: "evaluation" | "budget" };
  readonly library: string;
  readonly reason: string;
}> = [
  {
    expression: "sort(`[10, 9, 100, 1]`)",
    expected: { result: [1, 9, 10, 100] },
    library: "[1, 10, 100, 9]",
    reason: "The library calls Array.prototype.sort() without a comparator, ordering numbers as text.",
  },
  {
    expression: "let $x = `2` in map(&[@, $x], [`1`])",
    expected: { result: [[1, 2]] },
    library: "undefined-variable",
    reason: "The library evaluates an &expr with the root interpreter, losing the let scope (JEP-11 lexical scope).",
  },
  {
    expression: "let $x = null in let $y = `1` in $x",
    expected: { result: null },
    library: "undefined-variable",
    reason: "The library reports a variable bound to a falsy value in an outer scope as undefined.",
  },
  {
    expression: 'sort_by(`[{"k":"a","i":1},{"k":"a","i":2},{"k":"a","i":3}]`, &k)[].i',
    expected: { result: [1, 2, 3] },
    library: "[3, 2, 1]",
    reason:
      "The library's string comparer never returns 0, so equal string keys do not keep their order; the spec's sort_by is stable.",
  },
  {
    expression: 'max_by(`[{"a":"x"},{"a":"y"}]`, &a)',
    expected: { result: { a: "y" } },
    library: "null",
    reason:
      "The library compares string keys against -Infinity, so non-numeric string keys never win; the spec allows string keys.",
  },
  {
    expression: "max_by(`[0]`, &@)",
    expected: { result: 0 },
    library: "null",
    reason: "The library returns `maxRecord || null`, turning a falsy winning element into null (same for min_by).",
  },
  {
    expression: 'max_by(`[{"a":1},{"a":"x"}]`, &a)',
    expected: { error: "invalid-type" },
    library: "{a: 1}",
    reason: "Mixed number and string keys have no order; rejected as sort_by rejects them.",
  },
  {
    expression: 'min(`["a", "B"]`)',
    expected: { result: "B" },
    library: '"a"',
    reason:
      "The library compares strings with localeCompare, which depends on the host locale; we use code point order, as sort does.",
  },
  {
    expression: 'contains(`[{"a":1}]`, `{"a":1}`)',
    expected: { result: true },
    library: "false",
    reason:
      "The library uses Array.prototype.includes (reference equality); the spec compares elements with JMESPath equality.",
  },
  {
    expression: "contains('abc', `1`)",
    expected: { result: false },
    library: "null",
    reason: "The spec says contains() on a string with a non-string search MUST return false.",
  },
  {
    expression: "pad_left('', `3`)",
    expected: { result: "   " },
    library: '""',
    reason: "The library returns '' for an empty subject (`subject && ...`); the spec pads every string.",
  },
  {
    expression: "find_first('abc', 'a', `0`, `0`)",
    expected: { result: null },
    library: "0",
    reason: "The library treats an explicit end of 0 as omitted (`end || length`); 0 is an empty search range.",
  },
  {
    expression: "replace('aaa', 'a', 'ba', `2`)",
    expected: { result: "babaa" },
    library: '"bbaaa"',
    reason:
      "The library re-scans the partly replaced string; the spec replaces the first `count` occurrences of the subject.",
  },
  {
    expression: "replace('abc', 'b', '$&$&', `1`)",
    expected: { result: "a$&$&c" },
    library: '"abbc"',
    reason:
      "The library passes the replacement to String.prototype.replace, which expands $-patterns; replacement is literal.",
  },
  {
    expression: "split('a/b', '/', `5`)",
    expected: { result: ["a", "b"] },
    library: '["a", "b", ""]',
    reason: "With a count above the number of separators the library appends an empty remainder; the spec does not.",
  },
  {
    expression: "merge(`{}`, `1`)",
    expected: { error: "invalid-type" },
    library: "{}",
    reason: "The library type-checks only the first argument of a variadic function; every argument is checked here.",
  },
  {
    expression: "zip(`[1, 2]`, 'abc')",
    expected: { error: "invalid-type" },
    library: '[[1, "a"], [2, "b"]]',
    reason: "Same unchecked variadic arguments: zip() indexes into a string as if it were an array.",
  },
  {
    expression: "`1e308` * `10`",
    expected: { error: "not-a-number" },
    library: "Infinity (serialised as null)",
    reason: "JSON has no Infinity; JEP-16 raises not-a-number on overflow.",
  },
  {
    expression: "`5` % `0`",
    expected: { error: "not-a-number" },
    library: "NaN (serialised as null)",
    reason: "JEP-16 raises not-a-number on division by zero; the library only checks / and //.",
  },
  {
    expression: "'a😀b'[-1:]",
    expected: { result: "b" },
    library: '""',
    reason: "The library computes string slice bounds from the UTF-16 length but indexes code points.",
  },
  {
    expression: "&foo",
    expected: { error: "invalid-type" },
    library: "the expression tree as an object",
    reason: "An expression reference is only a value as a function argument or a let binding; it is never data.",
  },
  {
    expression: "not_null(&foo)",
    expected: { error: "invalid-type" },
    library: "the expression tree as an object",
    reason: "Parameters of type `any` accept JSON values only; returning or printing a syntax tree leaks internals.",
  },
  {
    expression: "type(@)",
    given: { expref: true, type: "Field", name: "x" },
    expected: { result: "object" },
    library: "invalid-type",
    reason: "The library treats any object with a truthy `expref` member as an expression; data cannot forge one here.",
  },
  {
    expression: 'group_by(`[{"k":"constructor"}]`, &k)',
    expected: { result: { constructor: [{ k: "constructor" }] } },
    library: "TypeError: target.push is not a function",
    reason:
      "The library reads `acc[key]` through the prototype (and sets the prototype for __proto__); groups live in a Map here.",
  },
  {
    expression: "a.constructor",
    given: { a: {} },
    expected: { result: null },
    library: "the Object function",
    reason: "Only own properties are read.",
  },
  {
    expression: "let $x = a, b in c",
    expected: { error: "invalid-expression" },
    library: "null (and `b`'s members become variables)",
    reason: "The parser accepts a non-binding in a let list; the library spreads its value into the scope.",
  },
  {
    expression: "'x' < 'y'",
    expected: { result: null },
    library: "null",
    reason:
      "Not a divergence, recorded for clarity: ordering is defined for numbers only, as in the library and the suite.",
  },
];

/**
 * Deep equality by Node's `isDeepStrictEqual`, which compares real prototypes and own properties. Vitest's
 * `toStrictEqual` reads `value.constructor` to compare types, which is wrong for data with a `constructor` key.
 */
function expectJson(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) {
    expect.fail(`expected ${JSON.stringify(actual)} to deep-equal ${JSON.stringify(expected)}`);
  }
}

function listSuiteFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...listSuiteFiles(full));
    else if (entry.name.endsWith(".json") && entry.name !== "schema.json") files.push(full);
  }
  return files.sort();
}

type Outcome = { readonly ok: unknown } | { readonly error: string };

function ours(ast: SelectNode, given: JsonValue): Outcome {
  try {
    return { ok: evaluateSelect(ast, given) };
  } catch (error) {
    return { error: error instanceof SelectError ? `${error.kind}/${error.code}: ${error.message}` : String(error) };
  }
}

function library(given: JsonValue, expression: string, options: { enable_legacy_literals?: boolean }): Outcome {
  try {
    return { ok: search(structuredClone(given), expression, options) };
  } catch (error) {
    return { error: String(error) };
  }
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  if ("ok" in a && "ok" in b) return isDeepStrictEqual(a.ok, b.ok);
  return "error" in a && "error" in b;
}

function show(outcome: Outcome): string {
  return "ok" in outcome ? (JSON.stringify(outcome.ok) ?? String(outcome.ok)).slice(0, 160) : `throws ${outcome.error}`;
}

const libraryDifferences: string[] = [];
let comparedWithLibrary = 0;

describe("function table", () => {
  it("has exactly the library's built-in functions", () => {
    expect([...FUNCTION_NAMES].sort()).toEqual([...getRegisteredFunctions()].sort());
  });
});

describe.skipIf(!haveSuite)(
  `JMESPath Community compliance suite (${haveSuite ? complianceDir : `skipped: no suite at ${complianceDir}; set KERVANC_JMESPATH_COMPLIANCE`})`,
  () => {
    const files = haveSuite ? listSuiteFiles(complianceDir) : [];

    it("found suite files, including jep-12/ and legacy/", () => {
      const names = files.map((file) => path.relative(complianceDir, file));
      expect(names.length).toBeGreaterThan(10);
      expect(names.some((name) => name.startsWith(`jep-12${path.sep}`))).toBe(true);
      expect(names.some((name) => name.startsWith(`legacy${path.sep}`))).toBe(true);
    });

    for (const file of files) {
      const relative = path.relative(complianceDir, file);
      const options = relative.startsWith(`legacy${path.sep}`) ? { enable_legacy_literals: true } : {};
      const suites = JSON.parse(readFileSync(file, "utf8")) as ComplianceSuite[];
      describe(relative, () => {
        suites.forEach((suite, suiteIndex) => {
          suite.cases.forEach((testCase, caseIndex) => {
            const id = `${relative}#${suiteIndex}#${caseIndex}`;
            const title = `suite ${suiteIndex} case ${caseIndex}: ${testCase.expression}`;
            const divergence = SUITE_DIVERGENCES.get(id);
            if (divergence !== undefined) {
              it.skip(`${title} (deliberate divergence: ${divergence})`, () => {});
              return;
            }
            it(title, () => {
              if (testCase.error === "syntax") {
                expect(() => compile(testCase.expression, options)).toThrow();
                return;
              }
              // No cast: this line also checks at type level that compile()'s tree is assignable to SelectNode.
              const ast: SelectNode = deepFreeze(compile(testCase.expression, options));
              const given = deepFreeze(structuredClone(suite.given));
              const outcome = ours(ast, given);
              const reference = library(suite.given, testCase.expression, options);
              comparedWithLibrary += 1;
              if (!sameOutcome(outcome, reference)) {
                libraryDifferences.push(
                  `${id} ${testCase.expression}\n    ours:    ${show(outcome)}\n    library: ${show(reference)}`,
                );
              }

              if (testCase.error !== undefined) {
                let thrown: unknown;
                try {
                  evaluateSelect(ast, given);
                } catch (error) {
                  thrown = error;
                }
                expect(thrown, show(outcome)).toBeInstanceOf(SelectError);
                expect((thrown as SelectError).kind).toBe("evaluation");
                expect((thrown as SelectError).code).toBe(testCase.error);
              } else if ("result" in testCase) {
                expectJson(evaluateSelect(ast, given), testCase.result);
              } else {
                // A bench-only case: the library is the oracle.
                expect(show(outcome)).toBe(show(reference));
              }
            });
          });
        });
      });
    }
  },
);

describe("deliberate divergences from @jmespath-community/jmespath 1.3.0", () => {
  const report: string[] = [];
  for (const divergence of LIBRARY_DIVERGENCES) {
    it(`${divergence.expression}: ${divergence.reason}`, () => {
      const given = deepFreeze(structuredClone(divergence.given ?? {}));
      const ast: SelectNode = deepFreeze(compile(divergence.expression));
      if ("result" in divergence.expected) {
        expectJson(evaluateSelect(ast, given), divergence.expected.result);
      } else {
        let thrown: unknown;
        try {
          evaluateSelect(ast, given);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(SelectError);
        expect((thrown as SelectError).kind).toBe(divergence.expected.kind ?? "evaluation");
        expect((thrown as SelectError).code).toBe(divergence.expected.error);
      }
      report.push(
        `${divergence.expression}\n    library: ${show(library(divergence.given ?? {}, divergence.expression, {}))}`,
      );
    });
  }
  afterAll(() => {
    console.info(`Library answers for the documented divergences:\n  ${report.join("\n  ")}`);
  });
});

afterAll(() => {
  if (!haveSuite) {
    console.info(`JMESPath compliance suite not found at ${complianceDir}; its tests were skipped.`);
    return;
  }
  console.info(
    `Compared ${comparedWithLibrary} suite expressions with the library's search(): ${libraryDifferences.length} differences.` +
      (libraryDifferences.length > 0 ? `\n  ${libraryDifferences.join("\n  ")}` : ""),
  );
});
