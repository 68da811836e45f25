/** analyze/rules/look-alikes.ts: KV3018, text that looks like a template but is sent as written. */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const tool = (url: string, top = ""): string =>
  oneTool(
    `    input: { type: object, properties: { id: { type: string } } }\n    http: { url: "${url}" }\n    output: { raw: true }\n`,
    top,
  );

describe("look-alikes", () => {
  it("{input.id} is an error with the template as its fix", () => {
    const [found] = findings(tool("https://api.example.com/{input.id}"), "KV3018");
    expect(found).toMatchObject({
      severity: "error",
      message: expect.stringMatching(/Did you mean \{\{input\.id\}\}\?$/),
    });
  });

  it("{id} naming an input property is a warning; naming none, nothing", () => {
    expect(findings(tool("https://api.example.com/{id}"), "KV3018").map((f) => f.severity)).toEqual(["warning"]);
    expect(findings(tool("https://api.example.com/{other}"), "KV3018")).toEqual([]);
  });

  it("${X} is an error when X is a declared secret, a warning otherwise", () => {
    const url = "https://api.example.com/x?k=${KEY}";
    expect(findings(tool(url, "secrets: [KEY]\n"), "KV3018").map((f) => f.severity)).toEqual(["error"]);
    expect(findings(tool(url), "KV3018").map((f) => f.severity)).toEqual(["warning"]);
  });
});
