/** analyze/rules/hosts.ts: a secret bound to hosts goes only there (KV4004); so does an audience's token (KV8015). */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const tool = (url: string): string =>
  oneTool(
    `    http: { url: "${url}", headers: { X-Key: "{{secrets.KEY}}" } }\n    output: { raw: true }\n`,
    "secrets:\n  - name: KEY\n    hosts: [api.example.com]\n",
  );

describe("hosts", () => {
  it("KV4004: a bound secret sent to another host", () => {
    expect(findings(tool("https://other.example.com/x"), "KV4004")).toEqual([
      expect.objectContaining({
        path: "tools[0].http.url",
        message: "Secret KEY may only be sent to api.example.com:443; this tool calls other.example.com:443.",
      }),
    ]);
  });

  it("is quiet for the bound host", () => {
    expect(findings(tool("https://api.example.com/x"), "KV4004")).toEqual([]);
  });

  it("KV8015: a credential whose audience names another API's URL", () => {
    const text = oneTool(
      '    http: { url: "https://api.example.com/x", headers: { Authorization: "Bearer {{credentials.crm}}" } }\n    output: { raw: true }\n',
      "kervancExtensions: [upstream-auth]\nsecrets:\n  - name: ID\n    hosts: [login.example.com]\n  - name: SECRET\n    hosts: [login.example.com]\n" +
        "credentials:\n  crm:\n    oauth2ClientCredentials:\n      tokenUrl: https://login.example.com/token\n" +
        '      clientId: "{{secrets.ID}}"\n      clientSecret: "{{secrets.SECRET}}"\n      audience: https://crm.example.com/\n',
    );
    expect(findings(text, "KV8015").map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^Credential crm is for crm\.example\.com \(its audience\), but this tool sends it to api\.example\.com/,
      ),
    ]);
  });
});
