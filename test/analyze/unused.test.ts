/** analyze/rules/unused.ts: declared secrets (KV4002) and credentials (KV8016) that no tool sends. */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

describe("unused", () => {
  it("KV4002: a secret no tool sends", () => {
    const text = oneTool(
      '    http: { url: "https://api.example.com/x" }\n    output: { raw: true }\n',
      "secrets: [KEY]\n",
    );
    expect(findings(text, "KV4002")).toEqual([expect.objectContaining({ path: "secrets[0]", severity: "warning" })]);
  });

  it("a secret whose only use is a look-alike is named by that error, not as unused", () => {
    const text = oneTool(
      '    http: { url: "https://api.example.com/x", headers: { X-Key: "{{secret.KEY}}" } }\n    output: { raw: true }\n',
      "secrets: [KEY]\n",
    );
    expect(findings(text, "KV3002")).toHaveLength(1);
    expect(findings(text, "KV4002")).toEqual([]);
  });

  it("KV8016: a credential no tool sends", () => {
    const text = oneTool(
      '    http: { url: "https://api.example.com/x" }\n    output: { raw: true }\n',
      "kervancExtensions: [upstream-auth]\ncredentials:\n  crm:\n    callerHeader: X-Crm-Key\n",
    );
    expect(findings(text, "KV8016").map((f) => f.path)).toEqual(["credentials.crm"]);
  });
});
