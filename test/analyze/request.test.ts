/**
 * analyze/rules/request.ts: URL, headers, query and body (the template grammar has its own file, templates.test.ts;
 * the URL's token rules url-tokens.test.ts).
 */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const tool = (http: string): string => oneTool(`    http: ${http}\n    output: { raw: true }\n`);

describe("request", () => {
  it("KV3006: only https URLs", () => {
    expect(findings(tool('{ url: "ftp://api.example.com/x" }'), "KV3006")).toHaveLength(1);
  });

  it("KV3014: a header name that is not one, and one that is templated, each with its own message", () => {
    expect(
      findings(tool('{ url: "https://a.example.com/", headers: { "X Key": "v" } }'), "KV3014")[0]?.message,
    ).toMatch(/with no spaces or colons\.$/);
    expect(
      findings(tool('{ url: "https://a.example.com/", headers: { "X-{{input.h}}": "v" } }'), "KV3014")[0]?.message,
    ).toMatch(/Header names cannot be templated\.$/);
  });

  it("KV3016: a body on GET says why the method is GET when it was not written", () => {
    expect(findings(tool('{ url: "https://a.example.com/", body: { a: 1 } }'), "KV3016")[0]?.message).toMatch(
      /because http\.method is not set/,
    );
    expect(findings(tool('{ method: GET, url: "https://a.example.com/", body: { a: 1 } }'), "KV3016")[0]?.message).toBe(
      "A GET request cannot have a body.",
    );
  });

  it("KV3015: a header Kervan manages", () => {
    expect(findings(tool('{ url: "https://a.example.com/", headers: { Host: "x" } }'), "KV3015")).toHaveLength(1);
  });
});
