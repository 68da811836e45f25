/** analyze/rules/credentials.ts: the upstream-auth extension's credentials (KV8010, KV8012, KV8013, KV8014). */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const spec = (credentials: string, secrets = ""): string =>
  oneTool(
    '    http: { url: "https://api.example.com/x", headers: { Authorization: "Bearer {{credentials.crm}}" } }\n    output: { raw: true }\n',
    `kervancExtensions: [upstream-auth]\n${secrets}credentials:\n  crm:\n${credentials}`,
  );

describe("credentials", () => {
  it("KV8014: a caller header that is the client's own credentials, one message per reason", () => {
    expect(findings(spec("    callerHeader: Authorization\n"), "KV8014").map((f) => f.message)).toEqual([
      expect.stringMatching(/^callerHeader Authorization is refused: the MCP client's own credentials/),
    ]);
    expect(findings(spec("    callerHeader: Mcp-Session-Id\n"), "KV8014").map((f) => f.message)).toEqual([
      "callerHeader Mcp-Session-Id is refused: Mcp-* headers belong to the MCP protocol.",
    ]);
  });

  it("KV8013: a client secret that names an undeclared secret, with the close one", () => {
    const text = spec(
      '    oauth2ClientCredentials:\n      tokenUrl: https://login.example.com/token\n      clientId: app\n      clientSecret: "{{secrets.CLIENT_SECRT}}"\n',
      "secrets:\n  - name: CLIENT_SECRET\n    hosts: [login.example.com]\n",
    );
    expect(findings(text, "KV8013").map((f) => f.message)).toEqual([
      "{{secrets.CLIENT_SECRT}} is not declared under secrets. Did you mean {{secrets.CLIENT_SECRET}}?",
    ]);
  });

  it("a caller header of its own passes", () => {
    expect(findings(spec("    callerHeader: X-Crm-Key\n"), "KV8014")).toEqual([]);
  });
});
