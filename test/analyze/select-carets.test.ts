/**
 * A `select` problem's range covers the offending token only (issue 37): a refused field name, a function name,
 * a quoted identifier with its quotes, a syntax error's one character. The range ran from the token to the end of
 * the expression (`[a.constructor, b.x, constructor]` underlined 31 characters for an 11-character name).
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";

/** The text each diagnostic's range covers on its line, for a select written on one line in double quotes. */
function underlined(select: string): string[] {
  const text = `specVersion: 1
name: s
version: "1"
tools:
  - name: t
    description: d
    http: { url: "https://api.example.com/x" }
    output: { select: ${JSON.stringify(select)} }
`;
  const lines = text.split("\n");
  return compileSpec("s.yaml", new TextEncoder().encode(text))
    .diagnostics.filter((d) => d.code.startsWith("KV6"))
    .map((d) => {
      expect(d.endLine).toBe(d.line);
      return lines[d.line - 1]!.slice(d.column - 1, d.endColumn! - 1);
    });
}

describe("select diagnostics' ranges", () => {
  it("cover a refused field, each occurrence, and nothing after it", () => {
    expect(underlined("[a.constructor, b.x, constructor]")).toEqual(["constructor", "constructor"]);
  });

  it("cover a quoted identifier with its quotes", () => {
    expect(underlined('a."__proto__".b')).toEqual(['\\"__proto__\\"']);
  });

  it("cover an unknown function's name", () => {
    expect(underlined("lenght(items)")).toEqual(["lenght"]);
  });

  it("cover one character at a syntax error", () => {
    expect(underlined("a..b")).toHaveLength(1);
    expect(underlined("a..b")[0]).toHaveLength(1);
  });
});
