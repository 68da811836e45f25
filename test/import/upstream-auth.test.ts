/**
 * kervanc import --upstream-auth (import/upstream-auth.ts): an OAuth scheme with a client-credentials flow becomes
 * an oauth2ClientCredentials credential the server fetches and renews; without the flag the spec stays plain
 * Kervan, a static token secret whose note says the flag exists.
 */
import { describe, expect, it } from "vitest";
import { tokenEndpoint } from "../../packages/compiler/src/import/upstream-auth.ts";
import { api, codes, imp, ok200, specOf } from "./helpers.ts";

const schemes = {
  crmOAuth: {
    type: "oauth2",
    flows: { clientCredentials: { tokenUrl: "/oauth2/token", scopes: { "crm.read": "", "crm.write": "" } } },
  },
  userOAuth: {
    type: "oauth2",
    flows: {
      authorizationCode: { authorizationUrl: "https://id.example.com/a", tokenUrl: "https://id.example.com/t" },
    },
  },
  plainToken: {
    type: "oauth2",
    flows: { clientCredentials: { tokenUrl: "http://login.example.com/token", scopes: {} } },
  },
};

const doc = api(
  {
    "/accounts": {
      get: { operationId: "listAccounts", security: [{ crmOAuth: ["crm.read"] }], responses: ok200 },
      post: { operationId: "createAccount", security: [{ crmOAuth: ["crm.write"] }], responses: ok200 },
    },
    "/me": { get: { operationId: "me", security: [{ userOAuth: [] }], responses: ok200 } },
    "/legacy": { get: { operationId: "legacy", security: [{ plainToken: [] }], responses: ok200 } },
  },
  { components: { securitySchemes: schemes } },
);

describe("kervanc import --upstream-auth", () => {
  it("makes a client-credentials scheme a credential, with the scopes the operations ask for", () => {
    const result = imp(doc, { upstreamAuth: true });
    const spec = specOf(result);
    expect(spec["kervancExtensions"]).toEqual(["upstream-auth"]);
    expect(spec["credentials"]).toEqual({
      crmOAuth: {
        oauth2ClientCredentials: {
          // A relative tokenUrl is resolved against the operation's server.
          tokenUrl: "https://api.example.com/oauth2/token",
          clientId: "{{secrets.CRM_OAUTH_CLIENT_ID}}",
          clientSecret: "{{secrets.CRM_OAUTH_CLIENT_SECRET}}",
          scopes: ["crm.read", "crm.write"],
        },
      },
    });
    const headers = Object.fromEntries(spec.tools.map((t) => [t["name"], t["http"]["headers"]]));
    expect(headers["listAccounts"]).toEqual({ Authorization: "Bearer {{credentials.crmOAuth}}" });
    expect(headers["createAccount"]).toEqual({ Authorization: "Bearer {{credentials.crmOAuth}}" });
    // Schemes without a client-credentials flow, or whose token endpoint is not https, stay static secrets.
    expect(headers["me"]).toEqual({ Authorization: "Bearer {{secrets.USER_OAUTH}}" });
    expect(headers["legacy"]).toEqual({ Authorization: "Bearer {{secrets.PLAIN_TOKEN}}" });
    // The client id and secret go to the token endpoint alone.
    expect(spec.secrets?.filter((s) => s.name.startsWith("CRM_OAUTH"))).toEqual([
      { name: "CRM_OAUTH_CLIENT_ID", hosts: ["api.example.com:443"] },
      { name: "CRM_OAUTH_CLIENT_SECRET", hosts: ["api.example.com:443"] },
    ]);
    expect(codes(result).filter((c) => c.startsWith("error"))).toEqual([]);
  });

  it("without the flag, stays plain Kervan and says the flag exists", () => {
    const result = imp(doc);
    const spec = specOf(result);
    expect(spec["kervancExtensions"]).toBeUndefined();
    expect(spec["credentials"]).toBeUndefined();
    expect(spec.tools[0]!["http"]["headers"]).toEqual({ Authorization: "Bearer {{secrets.CRM_OAUTH}}" });
    expect(result.text).toContain("the scheme has an OAuth client-credentials flow: kervanc import --upstream-auth");
  });

  it("takes only an https token endpoint without user info or fragment", () => {
    const server = new URL("https://api.example.com/v1");
    expect(tokenEndpoint("/token", server)?.href).toBe("https://api.example.com/token");
    expect(tokenEndpoint("http://login.example.com/token", server)).toBeNull();
    expect(tokenEndpoint("https://u:p@login.example.com/token", server)).toBeNull();
    expect(tokenEndpoint("https://login.example.com/token#x", server)).toBeNull();
  });
});
