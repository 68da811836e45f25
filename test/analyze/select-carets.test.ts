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

/**
 * The text each diagnostic's range covers, for a select written as YAML over several lines (`yaml` is what
 * follows `select:`, its later lines indented by eight spaces), with the line each range starts on (1 is the
 * `select:` line).
 */
function underlinedIn(yaml: string): { line: number; text: string }[] {
  const head = `specVersion: 1
name: s
version: "1"
tools:
  - name: t
    description: d
    http: { url: "https://api.example.com/x" }
    output:
      select: `;
  const text = `${head}${yaml}\n`;
  const lines = text.split("\n");
  const first = head.split("\n").length;
  return compileSpec("s.yaml", new TextEncoder().encode(text))
    .diagnostics.filter((d) => d.code.startsWith("KV6"))
    .map((d) => {
      expect(d.endLine, `${d.code} at ${d.line}:${d.column} has a range`).toBe(d.line);
      return { line: d.line - first + 1, text: lines[d.line - 1]!.slice(d.column - 1, d.endColumn! - 1) };
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

  // They pointed at the scalar's first character (the `>-` of a block scalar) with no range.
  it("cover the token in a folded block scalar", () => {
    expect(underlinedIn(">-\n        [a.constructor,\n        lenght(b), __proto__]")).toEqual([
      { line: 2, text: "constructor" },
      { line: 3, text: "lenght" },
      { line: 3, text: "__proto__" },
    ]);
  });

  it("cover the token in a literal block scalar, past an empty line and extra indentation", () => {
    expect(underlinedIn("|\n        {x: a.prototype,\n\n           y: length(a, b)}")).toEqual([
      { line: 2, text: "prototype" },
      { line: 4, text: "length" },
    ]);
  });

  it("cover the token in double quotes over several lines, past escapes and an escaped line break", () => {
    expect(underlinedIn('"{x: a.\\"prototype\\",\n        y: length(a, b), \\\n        z: abs(\'x\')}"')).toEqual([
      { line: 1, text: '\\"prototype\\"' },
      { line: 2, text: "length" },
      { line: 3, text: "abs" },
    ]);
  });

  it("cover the token in a plain scalar over several lines", () => {
    expect(underlinedIn("a.b\n        .constructor\n        | sort_by(@, x)")).toEqual([
      { line: 2, text: "constructor" },
      { line: 3, text: "sort_by" },
    ]);
  });
});
