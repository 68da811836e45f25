/**
 * A path key is sent as it reads. The spec's URL is parsed as a WHATWG URL, which resolves "." and ".." segments
 * (also written %2e), reads a backslash as "/" and drops tabs and line breaks: a document's path key could so
 * leave the server's base path (the one --server-url names) or call another path than the one a reviewer sees.
 * What the compiler plans to send is checked here, not only the spec's text.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { api, imp, problems, type ImportResult } from "./helpers.ts";

/** The path the built server sends for the tool made from `route` (its literal text, templates aside). */
function sentPath(result: ImportResult): string {
  expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
  const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
  const request = compiled.planned!.tools[0]!.plan.request as unknown as {
    path: { parts: { kind: string; text?: string }[] };
  };
  return request.path.parts.map((p) => (p.kind === "text" ? p.text : "{}")).join("");
}

const one = (route: string): ImportResult =>
  imp(
    api({
      [route]: { get: { operationId: "a", responses: { "200": { description: "OK" } } } },
      "/ok": { get: { operationId: "ok", responses: { "200": { description: "OK" } } } },
    }),
  );

describe("path keys", () => {
  it.each(["/../../admin", "/a/%2e%2e/%2E%2E/admin", "/a/.%2e/x", "/a/./b", "/.", "/a/..", "/a\\..\\..\\admin"])(
    "leaves out %s, whose dot segments a URL resolves away, with a warning",
    (route) => {
      const result = one(route);
      expect(problems(result).map((d) => [d.code, d.path])).toEqual([["KV7010", `paths[${JSON.stringify(route)}]`]]);
      expect(problems(result)[0]!.message).toMatch(/has a "\." or "\.\." segment/);
      // The other operation is imported as usual, and is the only tool.
      expect(sentPath(result)).toBe("/v1/ok");
    },
  );

  it("sends backslashes, tabs and line breaks in a path key as the characters they are (percent-encoded)", () => {
    expect(sentPath(one("/a\\b"))).toBe("/v1/a%5Cb");
    expect(sentPath(one("/a\tb/c\nd/e\rf"))).toBe("/v1/a%09b/c%0Ad/e%0Df");
    // What WHATWG already encodes stays as it was; dots inside a segment are no dot segment.
    expect(sentPath(one("/a b/é/..x/v1.2"))).toBe("/v1/a%20b/%C3%A9/..x/v1.2");
  });

  it("describes a tool without a summary by its method and path, made visible text", () => {
    const result = one("/a\u202e/b\u0007");
    expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    const tools = (compiled.loaded!.value as { tools: { description: string }[] }).tools;
    expect(tools[0]!.description).toBe("GET /a/b");
  });
});
