/**
 * The nesting pre-scan (load/nesting-scan.ts) that keeps deeply nested YAML away from the parser: it counts flow
 * brackets and block collections, and what is not structure (comments, quoted, block and plain scalars) cannot
 * raise the count, so a valid file is never refused; nor can it hide structure the parser would nest into.
 */
import { parseDocument } from "yaml";
import { describe, expect, it } from "vitest";
import { scanNesting } from "../../packages/compiler/src/load/nesting-scan.ts";
import { MAX_NESTING } from "../../packages/compiler/src/load/yaml-source.ts";

const deep = (n: number): string => `${"[".repeat(n)}${"]".repeat(n)}`;
const over = MAX_NESTING + 50;
const tooDeep = (text: string): boolean => scanNesting(text, MAX_NESTING, 100).tooDeep;

/** The parser reads the text without an error: a valid file, which the scan must accept. */
function valid(text: string): string {
  const doc = parseDocument(text, { version: "1.2", uniqueKeys: false });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  return text;
}

describe("brackets that are not structure do not count", () => {
  const many = "[{".repeat(over);
  it.each([
    ["a comment", `a: 1 # ${many}\n# ${many}\nb: [1, 2] # ${many}\n`],
    ["a double-quoted string", `a: "${many}"\nb: ["${many}", "x\\"${many}"]\n`],
    ["a single-quoted string with '' escapes", `a: '${many}'\nb: ['it''s ${many}']\n`],
    ["a double-quoted string over several lines", `a: "first\n  ${many}\n  last"\nb: 1\n`],
    ["a literal block scalar", `a: |\n  ${many}\n    ${many}\n\n  ${many}\nb: 1\n`],
    ["a folded block scalar with indicators", `a: >-\n  ${many}\nb: |2\n   ${many}\nc: 1\n`],
    ["a block scalar in a sequence", `- |\n  ${many}\n- x\n`],
    [
      "plain text in block context (templates)",
      `url: https://api.example.com/{{input.a}}/${"{{input.b}}".repeat(over)}\n`,
    ],
    ["a plain scalar whose continuation lines hold brackets", `a: text\n  ${many}\n  more ${many}\nb: 1\n`],
    ["a plain scalar with # inside", `a: x#${many}\n`],
    ["quotes inside a flow plain scalar", `a: [it's, "${many}", b]\n`],
    ["a JSON document with brackets in its strings", JSON.stringify({ a: [many, { b: many }], c: "x" })],
  ])("%s", (_, text) => {
    expect(tooDeep(valid(text))).toBe(false);
  });

  it("counts levels as the parser builds them: a spec's ordinary nesting is far below the limit", () => {
    const spec = valid(
      [
        "specVersion: 1",
        "tools:",
        "  - name: t",
        "    input:",
        "      type: object",
        "      properties:",
        "        a: { type: array, items: { type: object, properties: { b: { type: string } } } }",
        "    http: { url: 'https://x/{{input.a}}', body: { k: [1, [2, [3]]] } }",
      ].join("\n"),
    );
    // Nine levels: the root, tools, the tool, input, properties, a, items, its properties, b.
    expect(scanNesting(spec, 9, 1).tooDeep).toBe(false);
    expect(scanNesting(spec, 8, 1).tooDeep).toBe(true);
  });
});

describe("deep structure is refused before the parser sees it", () => {
  it.each([
    ["flow sequences", `x: ${deep(10_000)}\n`],
    ["flow mappings", `x: ${"{a: ".repeat(10_000)}1${"}".repeat(10_000)}\n`],
    ["compact block sequences", `x:\n  ${"- ".repeat(10_000)}1\n`],
    ["indented block mappings", Array.from({ length: over }, (_, i) => `${" ".repeat(i)}a:`).join("\n") + " 1\n"],
    ["sequences of mappings", Array.from({ length: over }, (_, i) => `${"  ".repeat(i)}- a:`).join("\n") + " 1\n"],
    ["an explicit key", `? ${deep(over)}\n: 1\n`],
    ["after an anchor or a tag", `a: &x ${deep(over)}\nb: !!seq ${deep(over)}\n`],
    // What the parser reads as structure, though a scan could take it for text:
    ["after a comment line that ends a plain scalar", `key: text\n  #c\n  ${deep(over)}\n`],
    ["a continuation line with ': '", `key: text\n  more: ${deep(over)}\n`],
    ["a tab-indented line after a plain scalar", `key: text\n\t${deep(over)}\n`],
    ["a line less indented than its block scalar", `key: |\n    x\n  ${deep(over)}\n`],
    ["a flow collection continued on the next line", `key: [a,\n${deep(over)}]\n`],
    ["after a quoted key", `"k": ${deep(over)}\n`],
    ["in a later document", `a: 1\n...\n${deep(over)}\n`],
  ])("%s", (_, text) => {
    expect(tooDeep(text)).toBe(true);
  });

  it("points at the first flow bracket at depth 100 (as the parser's stack check did), else the first node there", () => {
    expect(scanNesting(`x: ${deep(10_000)}`, MAX_NESTING, 100).offset).toBe(3 + 99);
    const block = `x:\n  ${"- ".repeat(10_000)}1\n`;
    // x: is level 1, so the 99th "-" (at offset 5 + 2 * 98) is level 100.
    expect(scanNesting(block, MAX_NESTING, 100).offset).toBe(5 + 2 * 98);
  });
});
