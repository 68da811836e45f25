/**
 * Security schemes and requirements (import/security.ts): which credentials a tool sends, as host-bound secrets.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, type ImportResult } from "./helpers.ts";
import { isCredentialParameter } from "../../packages/compiler/src/import/security.ts";

describe("security", () => {
  const schemes = {
    header: { type: "apiKey", in: "header", name: "X-Key" },
    query: { type: "apiKey", in: "query", name: "key" },
    cookie: { type: "apiKey", in: "cookie", name: "sid" },
    bearer: { type: "http", scheme: "Bearer" },
    basic: { type: "http", scheme: "basic" },
    oauth: { type: "oauth2", flows: {} },
    oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com" },
    digest: { type: "http", scheme: "digest" },
    mtls: { type: "mutualTLS" },
  };
  const withSecurity = (operations: Record<string, unknown[] | undefined>, global?: unknown[]): ImportResult =>
    imp(
      api(
        Object.fromEntries(
          Object.entries(operations).map(([id, security]) => [
            `/${id}`,
            { get: { operationId: id, ...(security !== undefined ? { security } : {}), responses: ok200 } },
          ]),
        ),
        { components: { securitySchemes: schemes }, ...(global !== undefined ? { security: global } : {}) },
      ),
    );

  it("puts API keys and bearer tokens where the scheme says, as host-bound secrets", () => {
    const spec = specOf(
      withSecurity({ h: [{ header: [] }], q: [{ query: [] }], c: [{ cookie: [], header: [] }], b: [{ bearer: [] }] }),
    );
    expect(spec.tools.map((t) => [t["http"]["query"], t["http"]["headers"]])).toEqual([
      [undefined, { "X-Key": "{{secrets.HEADER}}" }],
      [{ key: "{{secrets.QUERY}}" }, undefined],
      [undefined, { "X-Key": "{{secrets.HEADER}}", Cookie: "sid={{secrets.COOKIE}}" }],
      [undefined, { Authorization: "Bearer {{secrets.BEARER}}" }],
    ]);
    expect(spec.secrets).toEqual(
      ["BEARER", "COOKIE", "HEADER", "QUERY"].map((name) => ({ name, hosts: ["api.example.com:443"] })),
    );
  });

  it("sends OAuth 2, OpenID Connect and bearer tokens as Authorization: Bearer, and basic as the encoded pair", () => {
    const result = withSecurity({ o: [{ oauth: [] }], i: [{ oidc: [] }], b: [{ bearer: [] }], p: [{ basic: [] }] });
    expect(codes(result)).toEqual([]);
    const spec = specOf(result);
    expect(spec.tools.map((t) => t["http"]["headers"])).toEqual([
      { Authorization: "Bearer {{secrets.OAUTH}}" },
      { Authorization: "Bearer {{secrets.OIDC}}" },
      { Authorization: "Bearer {{secrets.BEARER}}" },
      { Authorization: "Basic {{secrets.BASIC}}" },
    ]);
    expect(spec.secrets).toEqual(
      ["BASIC", "BEARER", "OAUTH", "OIDC"].map((name) => ({ name, hosts: ["api.example.com:443"] })),
    );
    // The spec says what each secret holds, where a reviewer sets it.
    expect(result.text).toContain("# BASIC: the base64 of user:password, sent as Authorization: Basic");
    expect(result.text).toContain(
      "# OAUTH: an access token, sent as Authorization: Bearer (obtain it outside; the server runs no OAuth flow)",
    );
  });

  it("imports operations without the schemes it cannot express, with one warning per scheme", () => {
    const result = withSecurity({ a: [{ digest: [] }], b: [{ mtls: [] }], c: [{ mtls: [] }] });
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7009",
        "components.securitySchemes.digest",
        'The security scheme "digest" (http digest) is not supported; a is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.',
      ],
      [
        "KV7009",
        "components.securitySchemes.mtls",
        'The security scheme "mtls" (mutualTLS) is not supported; 2 operations (b, c) are imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.',
      ],
    ]);
    expect(specOf(result).secrets).toBeUndefined();
  });

  it("prefers an alternative it can express; treats {} as optional; honours an operation's own security: []", () => {
    const result = withSecurity({ a: [{ digest: [] }, { bearer: [] }], b: [{}, { digest: [] }], c: [], d: undefined }, [
      { query: [] },
    ]);
    expect(codes(result)).toEqual([]);
    expect(specOf(result).tools.map((t) => [t["name"], t["http"]["query"] ?? t["http"]["headers"] ?? null])).toEqual([
      ["a", { Authorization: "Bearer {{secrets.BEARER}}" }],
      ["b", null],
      ["c", null],
      ["d", { key: "{{secrets.QUERY}}" }],
    ]);
  });

  it("sends an oauth_token query parameter from a secret, never as a model input", () => {
    const result = imp(
      api({
        "/w": {
          get: {
            operationId: "w",
            parameters: [
              { name: "oauth_token", in: "query", schema: { type: "string" } },
              { name: "q", in: "query", schema: { type: "string" } },
            ],
            responses: ok200,
          },
        },
      }),
    );
    const tool = specOf(result).tools[0]!;
    expect(Object.keys(tool["input"]["properties"])).toEqual(["q"]);
    expect(tool["http"]["query"]["oauth_token"]).toBe("{{secrets.OAUTH_TOKEN}}");
    expect(codes(result)).toContain("warning KV7015");
  });

  it("does not ask the model for a credential the scheme already sends", () => {
    const result = imp(
      api(
        {
          "/a": {
            get: {
              operationId: "a",
              security: [{ query: [] }],
              parameters: [{ name: "key", in: "query", required: true, schema: { type: "string" } }],
              responses: ok200,
            },
          },
        },
        { components: { securitySchemes: schemes } },
      ),
    );
    expect(specOf(result).tools[0]!["input"]["properties"]).toEqual({});
  });

  it("asks the model for a `key` that its description says is the key of something (Jira's preferences)", () => {
    // Found by the differential suite (differential.e2e.test.ts): Jira's GET /mypreferences was sent without
    // its required `key`, taken for an API key and left out since basic auth already authenticates.
    const result = imp(
      api(
        {
          "/a": {
            get: {
              operationId: "a",
              security: [{ query: [] }],
              parameters: [
                {
                  name: "key",
                  in: "query",
                  required: true,
                  description: "The key of the preference.",
                  schema: { type: "string" },
                },
              ],
              responses: ok200,
            },
          },
        },
        { components: { securitySchemes: { ...schemes, query: { type: "http", scheme: "bearer" } } } },
      ),
    );
    const tool = specOf(result).tools[0]!;
    expect(tool["input"]["required"]).toEqual(["key"]);
    expect(tool["http"]["query"]).toEqual({ key: "{{input.key}}" });
    // Google's `key` stays a credential: its description says it is an API key.
    expect(isCredentialParameter("key", "API key. Your API key identifies your project.")).toBe(true);
    expect(isCredentialParameter("key", undefined)).toBe(true);
  });

  it("sends parameters that are credentials from secrets, with a warning, and never as inputs", () => {
    const param = (name: string, where: string, description?: string, required = true) => ({
      name,
      in: where,
      required,
      schema: { type: "string" },
      ...(description ? { description } : {}),
    });
    const result = imp(
      api({
        "/chat.postMessage": {
          get: {
            operationId: "chat_postMessage",
            parameters: [
              param("token", "query", "Authentication token bearing required scopes."),
              param("X-Api-Key", "header"),
              param("X-Partner-Key", "header", "Your partner API key."),
              param("channel", "query"),
              param("page_token", "query", "The page token from the last answer.", false),
            ],
            responses: ok200,
          },
        },
      }),
    );
    const tool = specOf(result).tools[0]!;
    expect(Object.keys(tool["input"]["properties"])).toEqual(["channel", "page_token"]);
    expect(tool["http"]["query"]).toEqual({
      token: "{{secrets.TOKEN}}",
      channel: "{{input.channel}}",
      page_token: "{{input.page_token}}",
    });
    expect(tool["http"]["headers"]).toEqual({
      "X-Api-Key": "{{secrets.X_API_KEY}}",
      "X-Partner-Key": "{{secrets.X_PARTNER_KEY}}",
    });
    expect(specOf(result).secrets!.map((s) => s.name)).toEqual(["TOKEN", "X_API_KEY", "X_PARTNER_KEY"]);
    expect(result.diagnostics.filter((d) => d.code === "KV7015").map((d) => d.message)).toEqual([
      'The query parameter "token" carries a credential; it is sent from the secret TOKEN instead of being an input the model fills in.',
      'The header parameter "X-Api-Key" carries a credential; it is sent from the secret X_API_KEY instead of being an input the model fills in.',
      'The header parameter "X-Partner-Key" carries a credential; it is sent from the secret X_PARTNER_KEY instead of being an input the model fills in.',
    ]);
    expect(result.diagnostics.map((d) => d.code)).not.toContain("KV7016");
  });

  it("leaves a credential parameter out when the operation's security scheme already authenticates", () => {
    const result = imp(
      api(
        {
          "/a": {
            get: {
              operationId: "a",
              security: [{ oauth: [] }],
              parameters: [{ name: "token", in: "query", schema: { type: "string" } }],
              responses: ok200,
            },
          },
        },
        { components: { securitySchemes: schemes } },
      ),
    );
    const tool = specOf(result).tools[0]!;
    expect(tool["http"]["query"]).toBeUndefined();
    expect(tool["http"]["headers"]).toEqual({ Authorization: "Bearer {{secrets.OAUTH}}" });
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'The query parameter "token" carries a credential, and the operation\'s security scheme already sends one; it is left out.',
    ]);
  });

  it("says once when the document declares no security scheme, so the tools are unauthenticated", () => {
    const result = imp(
      api({
        "/a": { get: { operationId: "a", responses: ok200 } },
        "/b": { get: { operationId: "b", responses: ok200 } },
      }),
    );
    expect(result.ok).toBe(true);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
      [
        "warning",
        "KV7016",
        "The document declares no security scheme, so the tools send no credentials. If the API needs them, add a header with {{secrets.NAME}} and a secrets entry by hand.",
      ],
    ]);
  });

  it("refuses to send a credential parameter over plain http", () => {
    const result = imp(
      api(
        {
          "/a": {
            get: {
              operationId: "a",
              parameters: [{ name: "api_key", in: "query", schema: { type: "string" } }],
              responses: ok200,
            },
          },
        },
        { servers: [{ url: "http://api.example.com" }] },
      ),
    );
    expect(result.ok).toBe(false);
    expect(codes(result)).toContain("error KV7008");
  });
  it("names a secret away from the server's own settings (KV4006), so a document's scheme cannot take them", () => {
    const result = imp(
      api(
        {
          "/a": {
            get: {
              operationId: "a",
              security: [{ kervanc_auth_tokens: [], https_proxy: [], NodeOptions: [] }],
              responses: ok200,
            },
          },
        },
        {
          components: {
            securitySchemes: {
              kervanc_auth_tokens: { type: "apiKey", in: "header", name: "X-A" },
              https_proxy: { type: "apiKey", in: "header", name: "X-B" },
              NodeOptions: { type: "apiKey", in: "header", name: "X-C" },
            },
          },
        },
      ),
    );
    expect(codes(result)).toEqual([]);
    expect(
      specOf(result)
        .secrets!.map((s: { name: string }) => s.name)
        .sort(),
    ).toEqual(["API_HTTPS_PROXY", "API_KERVANC_AUTH_TOKENS", "API_NODE_OPTIONS"]);
  });
});
