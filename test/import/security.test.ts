/**
 * Security schemes and requirements (import/security.ts): which credentials a tool sends, as host-bound secrets.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, type ImportResult } from "./helpers.ts";

describe("security", () => {
  const schemes = {
    header: { type: "apiKey", in: "header", name: "X-Key" },
    query: { type: "apiKey", in: "query", name: "key" },
    cookie: { type: "apiKey", in: "cookie", name: "sid" },
    bearer: { type: "http", scheme: "Bearer" },
    basic: { type: "http", scheme: "basic" },
    oauth: { type: "oauth2", flows: {} },
    oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com" },
  };
  const withSecurity = (operations: Record<string, unknown[] | undefined>, global?: unknown[]): ImportResult =>
    imp(
      api(
        Object.fromEntries(Object.entries(operations).map(([id, security]) => [`/${id}`, { get: { operationId: id, ...(security !== undefined ? { security } : {}), responses: ok200 } }])),
        { components: { securitySchemes: schemes }, ...(global !== undefined ? { security: global } : {}) },
      ),
    );

  it("puts API keys and bearer tokens where the scheme says, as host-bound secrets", () => {
    const spec = specOf(withSecurity({ h: [{ header: [] }], q: [{ query: [] }], c: [{ cookie: [], header: [] }], b: [{ bearer: [] }] }));
    expect(spec.tools.map((t) => [t["http"]["query"], t["http"]["headers"]])).toEqual([
      [undefined, { "X-Key": "{{secrets.HEADER}}" }],
      [{ key: "{{secrets.QUERY}}" }, undefined],
      [undefined, { "X-Key": "{{secrets.HEADER}}", Cookie: "sid={{secrets.COOKIE}}" }],
      [undefined, { Authorization: "Bearer {{secrets.BEARER}}" }],
    ]);
    expect(spec.secrets).toEqual(["BEARER", "COOKIE", "HEADER", "QUERY"].map((name) => ({ name, hosts: ["api.example.com:443"] })));
  });

  it("imports operations without the schemes it cannot express, with one warning per scheme", () => {
    const result = withSecurity({ a: [{ basic: [] }], b: [{ oauth: [] }], c: [{ oauth: [] }], d: [{ oidc: [] }] });
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      ["KV7009", "components.securitySchemes.basic", 'The security scheme "basic" (http basic) is not supported; a is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.'],
      ["KV7009", "components.securitySchemes.oauth", 'The security scheme "oauth" (oauth2) is not supported; 2 operations (b, c) are imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.'],
      ["KV7009", "components.securitySchemes.oidc", 'The security scheme "oidc" (openIdConnect) is not supported; d is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.'],
    ]);
    expect(specOf(result).secrets).toBeUndefined();
  });

  it("prefers an alternative it can express; treats {} as optional; honours an operation's own security: []", () => {
    const result = withSecurity({ a: [{ oauth: [] }, { bearer: [] }], b: [{}, { oauth: [] }], c: [], d: undefined }, [{ query: [] }]);
    expect(codes(result)).toEqual([]);
    expect(specOf(result).tools.map((t) => [t["name"], t["http"]["query"] ?? t["http"]["headers"] ?? null])).toEqual([
      ["a", { Authorization: "Bearer {{secrets.BEARER}}" }],
      ["b", null],
      ["c", null],
      ["d", { key: "{{secrets.QUERY}}" }],
    ]);
  });

  it("does not ask the model for a credential the scheme already sends", () => {
    const result = imp(
      api(
        { "/a": { get: { operationId: "a", security: [{ query: [] }], parameters: [{ name: "key", in: "query", required: true, schema: { type: "string" } }], responses: ok200 } } },
        { components: { securitySchemes: schemes } },
      ),
    );
    expect(specOf(result).tools[0]!["input"]["properties"]).toEqual({});
  });
});
