/** analyze/rules/extensions.ts: KV8001 a declared extension (a note), KV8002 one used without its declaration. */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const retrying = '    http: { url: "https://api.example.com/x", retry: { attempts: 2 } }\n    output: { raw: true }\n';

describe("extensions", () => {
  it("KV8002: retry without kervancExtensions: [retry]", () => {
    expect(findings(oneTool(retrying), "KV8002").map((f) => f.path)).toEqual(["tools[0].http.retry"]);
  });

  it("KV8001: declared, it builds with a note that it is not portable", () => {
    const text = oneTool(retrying, "kervancExtensions: [retry]\n");
    expect(findings(text, "KV8002")).toEqual([]);
    expect(findings(text, "KV8001")).toEqual([
      expect.objectContaining({ severity: "info", message: expect.stringMatching(/kervanc extension retry/) }),
    ]);
  });

  it("KV8021: an upload limit on a tool that sends no multipart body", () => {
    const text = oneTool(
      '    http: { method: POST, url: "https://api.example.com/x", maxUploadBytes: 10, body: { a: 1 } }\n    output: { raw: true }\n',
      "kervancExtensions: [multipart-body]\n",
    );
    expect(findings(text, "KV8021").map((f) => f.path)).toEqual(["tools[0].http.maxUploadBytes"]);
  });

  it("KV8002: http.omitAbsent without kervancExtensions: [omit-absent]; declared, a note (KV8001)", () => {
    const tool =
      '    input: { type: object, properties: { t: { type: string } } }\n    http: { url: "https://api.example.com/x", headers: { X-T: "{{input.t}}" }, omitAbsent: true }\n    output: { raw: true }\n';
    expect(findings(oneTool(tool), "KV8002").map((f) => f.path)).toEqual(["tools[0].http.omitAbsent"]);
    const declared = oneTool(tool, "kervancExtensions: [omit-absent]\n");
    expect(findings(declared, "KV8002")).toEqual([]);
    expect(findings(declared, "KV8001")).toEqual([
      expect.objectContaining({ severity: "info", message: expect.stringMatching(/kervanc extension omit-absent/) }),
    ]);
  });
});
