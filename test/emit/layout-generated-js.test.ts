/**
 * The layout of Ajv's standalone code (code-style.ts, `layoutGeneratedJs`): lines indented by the brackets open
 * before them, with brackets inside strings and regular expression literals not counted, and the code itself
 * unchanged but for leading and trailing spaces.
 */
import { describe, expect, it } from "vitest";
import { layoutGeneratedJs } from "../../packages/compiler/src/emit/code/code-style.ts";

describe("layoutGeneratedJs", () => {
  it("indents blocks and dedents a line that starts by closing one", () => {
    const text = 'function validate0(data){\nif(a){\nx = {"k":[1]};\n}\nelse {\ny();\n}\nreturn 1;\n}\n';
    expect(layoutGeneratedJs(text)).toBe(
      'function validate0(data){\n  if(a){\n    x = {"k":[1]};\n  }\n  else {\n    y();\n  }\n  return 1;\n}\n',
    );
  });

  it("does not count brackets inside strings, escaped quotes or regular expression literals", () => {
    const text = [
      "if(a){",
      'm = "a { b ( [ \\" }";',
      "const formats2 = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-z]+)*$/i;",
      "n = (data0/3) / 2;",
      "}",
      "done();",
    ].join("\n");
    const lines = layoutGeneratedJs(text).split("\n");
    expect(lines[1]).toBe('  m = "a { b ( [ \\" }";');
    expect(lines[2]).toMatch(/^ {2}const formats2 = \//);
    expect(lines[3]).toBe("  n = (data0/3) / 2;");
    expect(lines[4]).toBe("}");
    expect(lines[5]).toBe("done();");
  });

  it("refuses what Ajv does not write instead of laying it out wrongly", () => {
    expect(() => layoutGeneratedJs("a = `x${1}`;\n")).toThrow(/template literal/);
    expect(() => layoutGeneratedJs("a = 1; // {\n")).toThrow(/comment/);
    expect(() => layoutGeneratedJs('a = "open;\n')).toThrow(/unterminated string/);
  });

  it("keeps every line's code and collapses runs of blank lines", () => {
    const text = "a();\n\n\n\nb();\n\n";
    expect(layoutGeneratedJs(text)).toBe("a();\n\nb();\n");
  });
});
