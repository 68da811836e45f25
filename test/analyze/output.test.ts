/** analyze/rules/output.ts: the select, the output schema, their fit, error detail and binary answers. */
import { describe, expect, it } from "vitest";
import { analyze, findings, oneTool } from "./analyze-spec.ts";

const tool = (output: string, top = ""): string =>
  oneTool(`    http: { url: "https://api.example.com/x" }\n    output: ${output}\n`, top);

describe("output", () => {
  it("KV6001: a select that does not parse", () => {
    expect(findings(tool('{ select: "items[" }'), "KV6001")).toHaveLength(1);
  });

  it("KV6008: a select that can never fit the output schema", () => {
    const [found] = findings(tool('{ select: "length(items)", schema: { type: object } }'), "KV6008");
    expect(found?.message).toMatch(/Wrap the result in a hash/);
  });

  it("KV8020: a binary answer cannot promise a schema", () => {
    const text = tool('{ select: "@", schema: { type: object }, binary: {} }', "kervancExtensions: [binary-output]\n");
    expect(findings(text, "KV8020").map((f) => f.path)).toEqual(["tools[0].output.binary"]);
  });

  it("a select with a schema it fits passes", () => {
    const text = tool(
      '{ select: "{n: length(items)}", schema: { type: object, properties: { n: { type: integer } } } }',
    );
    expect(analyze(text).filter((d) => d.severity === "error")).toEqual([]);
  });
});
