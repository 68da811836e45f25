/**
 * The URL's templates are placed by turning each into a token (`__kervan_template_<n>__`) that the URL parser
 * keeps as text, then finding the tokens in the parsed path. Literal text that reads as a token, however it is
 * written, is refused (KV3019) instead of crashing the build (an index no template has) or standing in for an
 * argument (an index one has).
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";

const spec = (url: string, properties = "a: { type: string }"): Uint8Array =>
  new TextEncoder().encode(`specVersion: 1
name: tokens
version: "1.0.0"
tools:
  - name: t
    description: d
    input:
      type: object
      properties: { ${properties} }
    http:
      url: ${JSON.stringify(url)}
    output:
      raw: true
`);

const compile = (url: string, properties?: string) => compileSpec("tokens.yaml", spec(url, properties));

describe("literal text that reads as a URL template token", () => {
  it.each([
    ["an index no template has", "https://api.example.com/__kervan_template_3__/{{input.a}}"],
    ["the index of a template", "https://api.example.com/__kervan_template_0__/{{input.a}}"],
    ["with no template at all", "https://api.example.com/__kervan_template_0__"],
    ["split by a tab the URL parser drops", "https://api.example.com/__kervan_temp\tlate_0__/{{input.a}}"],
    ["split by a line break", "https://api.example.com/__kervan\n_template_0__/{{input.a}}"],
    ["in upper case in the host", "https://__KERVAN_TEMPLATE_0__.example.com/{{input.a}}"],
    ["in the query", "https://api.example.com/{{input.a}}?q=__kervan_template_0__"],
    ["just before a template", "https://api.example.com/__kervan_template_1{{input.a}}"],
  ])("%s is refused with KV3019 at its place", (_, url) => {
    const result = compile(url);
    expect(result.planned).toBeNull();
    const errors = result.diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.code)).toEqual(["KV3019"]);
    expect(errors[0]!.path).toBe("tools[0].http.url");
  });

  it("points at the text", () => {
    const [d] = compile("https://api.example.com/x/__kervan_template_0__/{{input.a}}").diagnostics;
    const line = new TextDecoder().decode(spec("https://api.example.com/x/__kervan_template_0__/{{input.a}}"));
    const urlLine = line.split("\n")[d!.line - 1]!;
    expect(urlLine.slice(d!.column - 1).startsWith("__kervan_template_")).toBe(true);
  });

  it("percent-encoded, it is literal text and the template keeps its place", () => {
    const result = compile("https://api.example.com/%5F_kervan_template_0__/{{input.a}}");
    expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const parts = result.planned!.tools[0]!.plan.request.path.parts;
    expect(parts).toEqual([
      { kind: "text", text: "/%5F_kervan_template_0__/" },
      { kind: "ref", ref: { kind: "input", path: ["a"] } },
    ]);
  });

  it("an input property of that name is a template, not literal text", () => {
    const result = compile(
      "https://api.example.com/x/{{input.__kervan_template_}}",
      "__kervan_template_: { type: string }",
    );
    expect(result.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(result.planned!.tools[0]!.plan.request.path.parts).toEqual([
      { kind: "text", text: "/x/" },
      { kind: "ref", ref: { kind: "input", path: ["__kervan_template_"] } },
    ]);
  });
});
