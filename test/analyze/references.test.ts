/** analyze/rules/references.ts: every reference names something declared (KV3003, KV3004, KV8002, KV8011). */
import { describe, expect, it } from "vitest";
import { analyze, findings, oneTool } from "./analyze-spec.ts";

const withInput = (url: string, top = ""): string =>
  oneTool(
    `    input: { type: object, properties: { city: { type: string }, units: { type: string } } }\n` +
      `    http: { url: "${url}" }\n    output: { raw: true }\n`,
    top,
  );

describe("references", () => {
  it("KV3004: an input path the schema does not declare, with the close name as a fix", () => {
    const [found] = findings(withInput("https://api.example.com/{{input.cty}}"), "KV3004");
    expect(found?.message).toBe(
      "{{input.cty}} does not match a property of the input schema. Did you mean {{input.city}}?",
    );
  });

  it("KV3004: lists the input's properties when none is close", () => {
    const [found] = findings(withInput("https://api.example.com/{{input.zzzzzz}}"), "KV3004");
    expect(found?.message).toMatch(/The input has: city, units\.$/);
  });

  it("KV3003: an undeclared secret, with the declared ones or the close one", () => {
    const text = (name: string): string =>
      oneTool(
        `    http: { url: "https://api.example.com/x", headers: { X-Key: "{{secrets.${name}}}" } }\n    output: { raw: true }\n`,
        "secrets: [API_TOKEN]\n",
      );
    expect(findings(text("OTHER"), "KV3003").map((f) => f.message)).toEqual([
      '{{secrets.OTHER}} is not declared in the spec\'s "secrets" list. Declared: API_TOKEN.',
    ]);
    expect(findings(text("API_TOKNE"), "KV3003").map((f) => f.message)).toEqual([
      '{{secrets.API_TOKNE}} is not declared in the spec\'s "secrets" list. Did you mean {{secrets.API_TOKEN}}?',
    ]);
  });

  it("KV8002: a credential reference without the upstream-auth extension", () => {
    const text = oneTool(
      '    http: { url: "https://api.example.com/x", headers: { Authorization: "Bearer {{credentials.crm}}" } }\n    output: { raw: true }\n',
    );
    expect(findings(text, "KV8002").map((f) => f.path)).toEqual(["tools[0].http.headers.Authorization"]);
  });

  it("a declared input and secret pass", () => {
    const text = oneTool(
      "    input: { type: object, properties: { q: { type: string } } }\n" +
        '    http: { url: "https://api.example.com/x", query: { q: "{{input.q}}" }, headers: { X-Key: "{{secrets.KEY}}" } }\n' +
        "    output: { raw: true }\n",
      "secrets: [KEY]\n",
    );
    expect(analyze(text).filter((d) => d.severity === "error")).toEqual([]);
  });
});
