/** analyze/rules/client-names.ts: KV2015, a tool name some MCP clients refuse, with the name to use instead. */
import { describe, expect, it } from "vitest";
import { findings } from "./analyze-spec.ts";

const spec = (name: string): string =>
  `specVersion: 1\nname: s\nversion: "1"\ntools:\n  - name: ${name}\n    description: A tool.\n` +
  `    http: { url: "https://api.example.com/x" }\n    output: { raw: true }\n`;

describe("client-names", () => {
  it("warns for a dotted name", () => {
    expect(findings(spec("users.list"), "KV2015")).toEqual([expect.objectContaining({ severity: "warning" })]);
  });

  it("is quiet for letters, digits, _ and -", () => {
    expect(findings(spec("users_list-2"), "KV2015")).toEqual([]);
  });
});
