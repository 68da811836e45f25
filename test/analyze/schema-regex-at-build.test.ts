/**
 * The build never runs a spec's regular expressions against the spec's own strings. A pattern is the spec
 * author's, and so is every property name, `enum`, `const`, `default` and `examples` value: in a backtracking
 * engine, `^(a+)+$` against `aaaa...a!` takes time exponential in the name's length, so running one at build
 * time lets a spec (or an imported OpenAPI document) hang the build. Ajv's strict mode did that for every
 * `patternProperties` pattern against every name in `properties` (its "matches pattern" check); the patterns
 * run only in the generated validator, against arguments, at call time.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { newAjv } from "../../packages/compiler/src/analyze/rules/schemas.ts";
import { regexpRuns } from "../helpers/regexp-runs.ts";

const PATTERNS = ["^(a+)+$", "^x", "^[a-z]+$", "^k", "a|b"];

const SPEC = `specVersion: 1
name: patterns
version: "1.0.0"
tools:
  - name: t
    description: d
    input:
      type: object
      properties:
        "aaaa!": { type: string }
        xy: { type: string }
        word:
          type: string
          pattern: "^[a-z]+$"
          default: abc
          examples: [abc, "ABC"]
          enum: [abc, "ABC"]
        fixed: { type: string, pattern: "a|b", const: a }
        map:
          type: object
          propertyNames: { pattern: "^k" }
          default: { k1: x, z: y }
      patternProperties:
        "^(a+)+$": { type: string }
        "^x": { type: string }
      required: [word]
    http:
      url: https://api.example.com/{{input.word}}
    output:
      raw: true
`;

/** Runs of a spec pattern (test, match, replace, split and search included) while `build` runs. */
function specRegexRuns(build: () => void): string[] {
  const sources = new Set(PATTERNS.map((p) => new RegExp(p, "u").source));
  return regexpRuns(build)
    .filter((r) => sources.has(r.source))
    .map((r) => `/${r.source}/ on ${JSON.stringify(r.input)}`);
}

describe("spec regular expressions at build time", () => {
  it("the schema compiler does not check names against patternProperties (Ajv allowMatchingProperties)", () => {
    expect(newAjv().opts.allowMatchingProperties).toBe(true);
  });

  it("no spec pattern runs while a spec with patterns, names and values is checked and compiled", () => {
    let ok = false;
    const runs = specRegexRuns(() => {
      ok = compileSpec("patterns.yaml", new TextEncoder().encode(SPEC)).planned !== null;
    });
    expect(ok).toBe(true);
    expect(runs).toEqual([]);
  });
});
