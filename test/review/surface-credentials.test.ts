/**
 * What a review says of upstream-auth credentials (review/surface.ts), in process: a credential added, or a token
 * endpoint, scope or caller header changed, is a security-relevant change (it changes who the server signs in as
 * and where it sends a client secret); a tool that starts sending a credential is one too; the token endpoint joins
 * the egress list. And the build refuses every header a callerHeader must never name (KV8014).
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { buildManifest, type Manifest } from "../../packages/compiler/src/emit/files/manifest.ts";
import { compareManifests } from "../../packages/compiler/src/review/surface.ts";

const cc = (tokenUrl: string, scopes = "[crm.read]") => `
  crm:
    oauth2ClientCredentials:
      tokenUrl: ${tokenUrl}
      clientId: "{{secrets.CRM_ID}}"
      clientSecret: "{{secrets.CRM_SECRET}}"
      scopes: ${scopes}`;

function spec(credentials: string, header: string, callerHeader = "X-Crm-Key"): string {
  return `specVersion: 1
kervancExtensions: [upstream-auth]
name: s
version: "1"
secrets: [CRM_ID, CRM_SECRET]
credentials:${credentials}
  key:
    callerHeader: ${callerHeader}
tools:
  - name: t
    description: d
    http: { url: "https://api.example.com/x", headers: { ${header} } }
    output: { select: "@" }
  - name: k
    description: d
    http: { url: "https://api.example.com/k", headers: { X-Key: "{{credentials.key}}" } }
    output: { select: "@" }
`;
}

function manifest(text: string): Manifest {
  const compiled = compileSpec("s.yaml", new TextEncoder().encode(text));
  if (compiled.planned === null) throw new Error(compiled.diagnostics.map((d) => d.message).join("\n"));
  const provenance = { kervancVersion: "0", kervancContentSha256: "0", specFile: "s.yaml", specSha256: "0" };
  return buildManifest(compiled.planned, provenance, []);
}

const BEFORE = spec(cc("https://login.example.com/token"), 'Authorization: "Bearer {{credentials.crm}}"');

describe("the review of upstream credentials", () => {
  it("lists the token endpoint on the egress list, and the credentials per tool and per server", () => {
    const m = manifest(BEFORE);
    expect(m.egress).toContainEqual({ scheme: "https", host: "login.example.com", port: 443, methods: ["POST"] });
    expect(m.tools.map((t) => t.credentials)).toEqual([["crm"], ["key"]]);
    expect(m.credentials).toEqual([
      {
        name: "crm",
        kind: "clientCredentials",
        tokenUrl: "https://login.example.com/token",
        clientAuth: "basic",
        scopes: ["crm.read"],
        audience: null,
        resource: null,
        secrets: ["CRM_ID", "CRM_SECRET"],
      },
      { name: "key", kind: "callerHeader", header: "x-crm-key" },
    ]);
  });

  it("marks a moved token endpoint, a wider scope and another caller header as security relevant", () => {
    const after = spec(
      cc("https://evil.example.com/token", "[crm.read, crm.admin]"),
      'Authorization: "Bearer {{credentials.crm}}"',
      "X-Other-Key",
    );
    const changes = compareManifests(manifest(BEFORE), manifest(after));
    const summaries = changes.filter((c) => c.kind === "credential-changed").map((c) => [c.summary, c.security]);
    expect(summaries).toEqual([
      [
        "credential crm: OAuth client credentials at https://login.example.com/token (scopes crm.read) → OAuth client credentials at https://evil.example.com/token (scopes crm.read crm.admin)",
        true,
      ],
      ["credential key: the caller's x-crm-key header → the caller's x-other-key header", true],
    ]);
    expect(changes.find((c) => c.kind === "egress-added")?.summary).toBe(
      "egress added: https://evil.example.com:443 (POST)",
    );
  });

  it("marks a tool that starts sending a credential, and a new credential, as security relevant", () => {
    const plain = `specVersion: 1
name: s
version: "1"
tools:
  - name: t
    description: d
    http: { url: "https://api.example.com/x" }
    output: { select: "@" }
`;
    const changes = compareManifests(manifest(plain), manifest(BEFORE));
    expect(changes.filter((c) => c.kind === "credential-added").every((c) => c.security)).toBe(true);
    expect(changes.filter((c) => c.kind === "credential-added").map((c) => c.subject)).toEqual(["crm", "key"]);
    const tool = changes.find((c) => c.field === "credentials")!;
    expect(tool.summary).toBe("tool t: now sends credentials crm");
    expect(tool.security).toBe(true);
  });
});

describe("callerHeader", () => {
  it.each([
    "Authorization",
    "cookie",
    "Proxy-Authorization",
    "Proxy-Connection",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Host",
    "Connection",
    "Transfer-Encoding",
    "Content-Length",
    "Forwarded",
    "X-Forwarded-For",
    "Traceparent",
  ])("refuses %s (KV8014)", (name) => {
    const compiled = compileSpec(
      "s.yaml",
      new TextEncoder().encode(spec(cc("https://login.example.com/token"), 'A: "{{credentials.crm}}"', name)),
    );
    expect(compiled.diagnostics.filter((d) => d.code === "KV8014").map((d) => d.message)).toEqual([
      expect.stringMatching(new RegExp(`^callerHeader ${name} is refused: `)),
    ]);
    expect(compiled.planned).toBeNull();
  });
});
