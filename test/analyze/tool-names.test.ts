/** analyze/rules/tool-names.ts: KV2014, a tool name used twice. */
import { describe, expect, it } from "vitest";
import { findings } from "./analyze-spec.ts";

const tool = (name: string): string =>
  `  - name: ${name}\n    description: A tool.\n    http: { url: "https://api.example.com/x" }\n    output: { raw: true }\n`;
const spec = (...names: string[]): string =>
  `specVersion: 1\nname: s\nversion: "1"\ntools:\n${names.map(tool).join("")}`;

describe("tool-names", () => {
  it("names the first tool of that name at the second one's name", () => {
    expect(findings(spec("a", "b", "a"), "KV2014")).toEqual([
      expect.objectContaining({ path: "tools[2].name", line: 13, message: expect.stringMatching(/tools\[0\]/) }),
    ]);
  });

  it("is quiet for distinct names, case included", () => {
    expect(findings(spec("a", "A", "b"), "KV2014")).toEqual([]);
  });
});
