/**
 * Servers (import/servers.ts): which URL each tool calls, and when secrets may travel to it.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, type ImportOptions, type ImportResult } from "./helpers.ts";

describe("servers", () => {
  const single = (servers: unknown, options: ImportOptions = {}, security = false): ImportResult =>
    imp(
      api(
        { "/a": { get: { operationId: "a", ...(security ? { security: [{ k: [] }] } : {}), responses: ok200 } } },
        { servers, components: { securitySchemes: { k: { type: "apiKey", in: "header", name: "K" } } } },
      ),
      options,
    );

  it("substitutes server variables with their defaults and joins base paths", () => {
    const spec = specOf(
      single([
        {
          url: "https://{env}.example.com:{port}/base/",
          variables: { env: { default: "prod" }, port: { default: "8443" } },
        },
      ]),
    );
    expect(spec.tools[0]!["http"]["url"]).toBe("https://prod.example.com:8443/base/a");
  });

  it("refuses relative, missing and odd server URLs, and takes --server-url instead", () => {
    const message = (r: ImportResult): string[] => r.diagnostics.map((d) => d.message);
    expect(message(single([{ url: "/api/v3" }]))).toEqual([
      'The server URL "/api/v3" is relative; give the API\'s absolute URL with --server-url.',
    ]);
    expect(message(single(undefined))).toEqual([
      'The document names no server (no "servers" list); give the API\'s URL with --server-url.',
    ]);
    expect(message(single([{ url: "ftp://x.example.com" }]))).toEqual([
      'The server URL "ftp://x.example.com" is not an http or https URL.',
    ]);
    expect(message(single([{ url: "https://u:p@x.example.com" }]))).toEqual([
      'The server URL "https://u:p@x.example.com" contains credentials; declare a security scheme instead.',
    ]);
    expect(message(single([{ url: "https://{region}.example.com" }]))).toEqual([
      'The server URL "https://{region}.example.com" uses the variable {region}, which has no default value.',
    ]);
    expect(message(single([{ url: "/api" }], { serverUrl: "https://x.example.com/api?v=1" }))).toEqual([
      '--server-url "https://x.example.com/api?v=1" has a query or a #fragment; give the base URL only.',
    ]);
    expect(
      specOf(single([{ url: "/api/v3" }], { serverUrl: "https://localhost:8443/api/v3" })).tools[0]!["http"]["url"],
    ).toBe("https://localhost:8443/api/v3/a");
  });

  it("allows plain http without secrets (with a warning), and refuses it with secrets", () => {
    const plain = single([{ url: "http://x.example.com" }]);
    expect(codes(plain)).toEqual(["warning KV7013"]);
    expect(specOf(plain).tools[0]!["http"]["allowInsecureHttp"]).toBe(true);
    const secret = single([{ url: "http://x.example.com" }], {}, true);
    expect(secret.ok).toBe(false);
    expect(codes(secret)).toEqual(["error KV7008"]);
  });

  it("prefers the first https server to a plain-http one listed before it, and says which it chose", () => {
    const result = single(
      [{ url: "http://api.example.com" }, { url: "https://api.example.com/v2" }, { url: "https://other.example.com" }],
      {},
      true,
    );
    expect(specOf(result).tools[0]!["http"]["url"]).toBe("https://api.example.com/v2/a");
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7017",
        "servers[1].url",
        'The server "https://api.example.com/v2" is used: it is the first https one listed ("http://api.example.com" comes first but uses plain http). Give --server-url to choose another.',
      ],
    ]);
    // Only http servers: the first, with allowInsecureHttp, as before.
    expect(
      specOf(single([{ url: "http://a.example.com" }, { url: "http://b.example.com" }])).tools[0]!["http"],
    ).toMatchObject({ url: "http://a.example.com/a", allowInsecureHttp: true });
  });

  it("binds secrets to the host and port of the server they are sent to", () => {
    expect(
      specOf(single([{ url: "https://x.example.com" }], { serverUrl: "https://localhost:4443" }, true)).secrets,
    ).toEqual([{ name: "K", hosts: ["localhost:4443"] }]);
  });

  it("warns when a secret is sent to more than one host (an operation's own servers), once per secret", () => {
    const doc = api(
      {
        "/a": { get: { operationId: "a", responses: ok200 } },
        "/b": { get: { operationId: "b", servers: [{ url: "https://other.example" }], responses: ok200 } },
        "/c": { servers: [{ url: "https://third.example:8443" }], get: { operationId: "c", responses: ok200 } },
        "/d": { get: { operationId: "d", servers: [{ url: "https://other.example/v2" }], responses: ok200 } },
      },
      {
        components: { securitySchemes: { k: { type: "apiKey", in: "header", name: "K" } } },
        security: [{ k: [] }],
      },
    );
    const result = imp(doc);
    expect(specOf(result).secrets).toEqual([
      { name: "K", hosts: ["api.example.com:443", "other.example:443", "third.example:8443"] },
    ]);
    expect(result.diagnostics.map((d) => [d.severity, d.code, d.path, d.message])).toEqual([
      [
        "warning",
        "KV7018",
        'paths["/b"].get.servers[0].url',
        "The secret K is sent to 3 hosts: api.example.com:443 (a), other.example:443 (b, d) and third.example:8443 (c), because operations name servers of their own. Check that each host is the API's, or give --server-url to send every tool to one server.",
      ],
    ]);
    // One server for every tool: one host, no warning.
    const one = imp(doc, { serverUrl: "https://api.example.com" });
    expect(specOf(one).secrets).toEqual([{ name: "K", hosts: ["api.example.com:443"] }]);
    expect(one.diagnostics).toEqual([]);
  });

  it("lets no server variable change which host a URL names", () => {
    const message = (r: ImportResult): string[] => r.diagnostics.map((d) => d.message);
    // {host}.example.com reads as a host under example.com; defaults that end the host there name another one.
    for (const value of [
      "evil.example/",
      "evil.example?",
      "evil.example#",
      "evil.example\\",
      "user@evil.example",
      "evil.example:443/x",
    ]) {
      const result = single(
        [{ url: "https://{host}.example.com/v1", variables: { host: { default: value } } }],
        {},
        true,
      );
      expect(result.ok, value).toBe(false);
      expect(message(result)).toEqual([
        `The server URL "https://{host}.example.com/v1" puts the variable {host} in its host, with the default ${JSON.stringify(value)}; a variable there may hold only letters, digits, "." and "-", so that it cannot change which host the URL names.`,
      ]);
    }
    // A variable for the scheme, a subdomain or the port, and any text in the path, are as before.
    const spec = specOf(
      single(
        [
          {
            url: "{scheme}://{env}.example.com:{port}/{base}",
            variables: {
              scheme: { default: "https" },
              env: { default: "eu-west-1" },
              port: { default: 8443 },
              base: { default: "api/v2" },
            },
          },
        ],
        {},
        true,
      ),
    );
    expect(spec.tools[0]!["http"]["url"]).toBe("https://eu-west-1.example.com:8443/api/v2/a");
    expect(spec.secrets).toEqual([{ name: "K", hosts: ["eu-west-1.example.com:8443"] }]);
  });

  it("refuses a server URL whose host is not written as it is sent (backslashes, escapes, odd forms)", () => {
    const message = (r: ImportResult): string[] => r.diagnostics.map((d) => d.message);
    const cases: [string, string][] = [
      ["https://evil.example\\api.example.com/", "evil.example"],
      ["https://api.example.com\\@evil.example/", "api.example.com"],
      ["https://evil%2Eexample/", "evil.example"],
      ["https://0x7f.1/", "127.0.0.1"],
      ["https://api.exam\tple.com/", "api.example.com"],
      ["https://api.example.com/v1\\x", "api.example.com"],
    ];
    for (const [url, host] of cases) {
      for (const options of [{}, { serverUrl: url }]) {
        const result = single([{ url }], options, true);
        expect(result.ok, url).toBe(false);
        const where = "serverUrl" in options ? "--server-url" : "The server URL";
        expect(message(result)).toEqual([
          `${where} ${JSON.stringify(url)} is read as the host ${host}, which it does not say plainly (a backslash, a percent-escape, a control character or an unusual address form); write the URL as it is sent.`,
        ]);
      }
    }
    // Upper case, a default port written out, a trailing dot and IPv6 are plain enough.
    for (const [url, sent] of [
      ["https://API.Example.com:443/v1", "https://api.example.com/v1/a"],
      ["https://api.example.com./", "https://api.example.com./a"],
      ["https://[::1]:8443", "https://[::1]:8443/a"],
    ]) {
      expect(specOf(single([{ url }], {}, true)).tools[0]!["http"]["url"]).toBe(sent);
    }
  });
});
