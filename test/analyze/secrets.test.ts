/** analyze/rules/secrets.ts: the secrets list (KV4001 twice, KV4003 a host that does not normalize, KV4006 a reserved name). */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const spec = (secrets: string): string =>
  oneTool(
    '    http: { url: "https://api.example.com/x", headers: { X-Key: "{{secrets.KEY}}" } }\n    output: { raw: true }\n',
    secrets,
  );

describe("secrets", () => {
  it("KV4001: a name declared twice", () => {
    expect(findings(spec("secrets: [KEY, KEY]\n"), "KV4001").map((f) => f.path)).toEqual(["secrets[1]"]);
  });

  it("KV4006: a name the server reads for itself, one message per kind", () => {
    const names = ["KERVANC_TOKEN", "HTTPS_PROXY", "NODE_OPTIONS"];
    const messages = names.map((name) => findings(spec(`secrets: [KEY, ${name}]\n`), "KV4006")[0]?.message);
    expect(messages).toEqual([
      expect.stringMatching(/named like one of the server's own settings \(KERVANC_\*\)/),
      expect.stringMatching(/named like an egress proxy setting/),
      expect.stringMatching(/named like one of Node\.js's settings \(NODE_\*\)/),
    ]);
  });

  it("KV4003: a bound host that is not a host name", () => {
    expect(findings(spec("secrets:\n  - name: KEY\n    hosts: ['api.example.com:65536']\n"), "KV4003")).toHaveLength(1);
  });
});
