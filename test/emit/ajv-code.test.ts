/**
 * `withoutLiterals` (emit/validators/ajv-code.ts) copies runs of code with one slice each instead of one character at a time
 * (it read every validator twice, about 2.4 MB for a 200-tool spec, at some 30 ns a character). The rewrite must
 * blank exactly what the character-by-character version blanked: this compares the two on generated code made
 * of the characters that matter (quotes, slashes, stars, escapes, brackets, line breaks) and on real validators.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { withoutLiterals } from "../../packages/compiler/src/emit/validators/ajv-code.ts";
import { validatorModule } from "../../packages/compiler/src/emit/validators/validators.ts";
import { REPO } from "../helpers/kervanc.ts";

const BEFORE_REGEX = /[(,=:[!&|?{};+\-*%<>~^]/;

/** The character-by-character version, as it was: the reference. */
function reference(code: string): string | null {
  let out = "";
  let previous = ";";
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"' || c === "'") {
      const end = stringEnd(code, i);
      if (end < 0) return null;
      out += c + c;
      i = end;
      previous = c;
      continue;
    }
    if (c === "`") return null;
    if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      if (end < 0) return null;
      out += " ";
      i = end + 1;
      continue;
    }
    if (c === "/" && code[i + 1] === "/") {
      const end = code.indexOf("\n", i);
      out += " ";
      i = (end < 0 ? code.length : end) - 1;
      continue;
    }
    if (c === "/" && BEFORE_REGEX.test(previous)) {
      const end = regexEnd(code, i);
      if (end < 0) return null;
      out += "/ /";
      i = end;
      previous = "/";
      continue;
    }
    out += c;
    if (!/\s/.test(c)) previous = c;
  }
  return out;
}

function stringEnd(code: string, i: number): number {
  const quote = code[i];
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j];
    if (c === "\\") j++;
    else if (c === quote) return j;
    else if (c === "\n") return -1;
  }
  return -1;
}

function regexEnd(code: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j];
    if (c === "\\") j++;
    else if (c === "\n") return -1;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "/") {
      while (/[a-z]/.test(code[j + 1] ?? "")) j++;
      return j;
    }
  }
  return -1;
}

/** Single characters that matter, and whole tokens (so comments, strings and regexes next to each other are common). */
const PIECES = [
  ...["a", "g", "1", " ", "\t", "\n", '"', "'", "/", "*", "\\", "(", ")", "=", ",", "[", "]", ":", "}", ";", "`"],
  ...['"s"', "'t'", '"\\""', "/*c*/", "/**/", "//c\n", "/r/g", "/[/]/", "x", "x/2", " / "],
];
describe("withoutLiterals", () => {
  it("blanks exactly what the character-by-character version blanked, on generated code", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (chars) => {
        const code = chars.join("");
        expect(withoutLiterals(code)).toBe(reference(code));
      }),
      { numRuns: 20_000 },
    );
  });

  it("blanks exactly what it blanked on the validators Ajv writes for the fixture specs", () => {
    let compared = 0;
    for (const spec of ["fixtures/specs/posts.yaml", "fixtures/specs/open-meteo.yaml", "fixtures/specs/hn.yaml"]) {
      const compiled = compileSpec(spec, readFileSync(join(REPO, spec)));
      for (const tool of compiled.planned!.tools) {
        for (const schema of [tool.input, tool.output]) {
          if (schema === undefined || schema === null) continue;
          const { code } = validatorModule(schema);
          expect(withoutLiterals(code)).toBe(reference(code));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(3);
  });
});
