/** analyze/rules/input-schema.ts: an object at the root (KV5010), then the limits and Ajv's strict mode. */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const tool = (input: string): string =>
  oneTool(`    input: ${input}\n    http: { url: "https://api.example.com/x" }\n    output: { raw: true }\n`);

describe("input-schema", () => {
  it("KV5010 says which type it has, or that it has none", () => {
    expect(findings(tool("{ type: array }"), "KV5010").map((f) => f.message)).toEqual([
      'The input schema must have type: "object" (tool arguments are always an object). It has type: "array".',
    ]);
    expect(findings(tool("{ properties: { a: { type: string } } }"), "KV5010").map((f) => f.message)).toEqual([
      'The input schema must have type: "object" (tool arguments are always an object). It has no type.',
    ]);
  });

  it("Ajv's own warning about the missing object type is not repeated (KV5013)", () => {
    expect(findings(tool("{ properties: { a: { type: string } } }"), "KV5013")).toEqual([]);
  });

  it("a misspelled keyword inside is reported at its place (KV5011)", () => {
    expect(findings(tool("{ type: object, properties: { a: { type: string, maxLenght: 3 } } }"), "KV5011")).toEqual([
      expect.objectContaining({ path: "tools[0].input.properties.a.maxLenght" }),
    ]);
  });
});
