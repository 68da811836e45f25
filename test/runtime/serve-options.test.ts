/**
 * The HTTP limit flags of server.mjs, and the id the stdio guard finds in a message too large to keep.
 */
import { describe, expect, it } from "vitest";
import { authSettings, parseNodeOptions, UsageError } from "../../packages/runtime/src/entry/node-main.ts";
import { SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
import { DEFAULT_SERVE_LIMITS, requestTarget } from "../../packages/runtime/src/serve/node-http.ts";
import { IdScanner } from "../../packages/runtime/src/entry/stdio-guard.ts";

describe("HTTP limit flags", () => {
  it("parse into ServeLimits fields, leaving the rest to the defaults", () => {
    const options = parseNodeOptions(
      [
        "--http",
        "--max-bodies",
        "8",
        "--max-body-memory",
        "1048576",
        "--request-timeout",
        "5000",
        "--headers-timeout",
        "2000",
      ],
      {},
    );
    expect(options.limits).toEqual({
      maxBodies: 8,
      maxBodyBytesTotal: 1048576,
      requestTimeoutMs: 5000,
      headersTimeoutMs: 2000,
    });
    expect(parseNodeOptions(["--http"], {}).limits).toEqual({});
    expect(DEFAULT_SERVE_LIMITS).toMatchObject({
      maxBodyBytes: 4 * 1024 * 1024,
      maxBodies: 64,
      maxBodyBytesTotal: 32 * 1024 * 1024,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
    });
  });

  it.each([
    ["--max-bodies", "0"],
    ["--max-body-memory", "-1"],
    ["--request-timeout", "1.5"],
    ["--headers-timeout", "ten"],
  ])("refuses %s %s", (flag, value) => {
    expect(() => parseNodeOptions(["--http", `${flag}=${value}`], {})).toThrow(
      new UsageError(`${flag} must be a whole number above 0.`),
    );
  });

  // A Node timer holds at most 2^31 - 1 ms: a longer one fires after 1 ms (with a TimeoutOverflowWarning), so
  // `--drain-timeout 3000000000` cut calls in flight at once instead of waiting for them.
  it.each(["--request-timeout", "--headers-timeout", "--send-timeout", "--drain-timeout"])(
    "refuses %s past what a timer can hold, and takes the longest it can",
    (flag) => {
      const http = flag === "--drain-timeout" ? [] : ["--http"];
      expect(() => parseNodeOptions([...http, flag, "2147483648"], {})).toThrow(
        new UsageError(`${flag} must be at most 2147483647 (milliseconds).`),
      );
      expect(() => parseNodeOptions([...http, flag, "2147483647"], {})).not.toThrow();
    },
  );

  it("need --http", () => {
    expect(() => parseNodeOptions(["--max-bodies", "8"], {})).toThrow(/need --http/);
  });
});

describe("request targets", () => {
  it("keep origin-form, accept absolute-form only for the Host header's authority", () => {
    expect(requestTarget("/mcp?x=1", "127.0.0.1:3000")).toBe("/mcp?x=1");
    expect(requestTarget("http://127.0.0.1:3000/mcp?x=1", "127.0.0.1:3000")).toBe("/mcp?x=1");
    expect(requestTarget("HTTP://LOCALHOST:3000/mcp", "localhost:3000")).toBe("/mcp");
    for (const target of [
      "http://evil.example/mcp",
      "http://127.0.0.1/mcp",
      "http://127.0.0.1:3000@evil.example/mcp",
      "*",
      "mcp",
      "ftp://127.0.0.1:3000/mcp",
      // Paths that do not parse, or that name an authority once read as a URL.
      "//[",
      "//evil.example/mcp",
      "/\\evil.example/mcp",
    ]) {
      expect(requestTarget(target, "127.0.0.1:3000"), target).toBeNull();
    }
    expect(requestTarget("http://127.0.0.1:3000/mcp", undefined)).toBeNull();
    // A path is read as the handler's URL will read it.
    expect(requestTarget("/a/../mcp", "127.0.0.1:3000")).toBe("/mcp");
  });
});

describe("IdScanner", () => {
  const scan = (text: string, pieces = 7): unknown => {
    const scanner = new IdScanner();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += pieces) scanner.feed(bytes.subarray(i, i + pieces));
    return scanner.id;
  };

  it("finds the top-level id wherever it is, and only there", () => {
    expect(scan('{"jsonrpc":"2.0","id":12,"method":"x"}')).toBe(12);
    expect(scan('{"params":{"id":"decoy","a":[{"id":3}]},"id":"real \\" one","x":"\\"id\\":9"}')).toBe('real " one');
    expect(scan('{"a":"id","b":{"id":1}}')).toBeNull();
    expect(scan('{ "id" : -4 }', 1)).toBe(-4);
    expect(scan('{"id":1e308}')).toBeNull();
    expect(scan('{"id":null}')).toBeNull();
    expect(scan('{"id":{"n":5}}')).toBeNull();
  });
});

describe("authentication and operations flags", () => {
  const offLoopback = ["--http", "--host", "0.0.0.0", "--allowed-host", "mcp.example.com"];

  it("refuse to serve off loopback without authentication, unless --insecure-no-auth", () => {
    expect(() => parseNodeOptions(offLoopback, {})).toThrow(/needs authentication.*--insecure-no-auth/);
    expect(parseNodeOptions([...offLoopback, "--insecure-no-auth"], {}).insecureNoAuth).toBe(true);
    expect(parseNodeOptions([...offLoopback, "--auth-tokens-file", "t"], {}).authTokensFile).toBe("t");
    expect(() => parseNodeOptions(offLoopback, { KERVANC_AUTH_TOKENS: "x" })).not.toThrow();
    expect(
      parseNodeOptions(
        [...offLoopback, "--oauth-issuer", "https://as.example", "--oauth-jwks-url", "https://as.example/jwks"],
        {},
      ).oauth,
    ).toEqual({ issuer: "https://as.example", jwksUrl: "https://as.example/jwks", audience: null });
  });

  it("default the OAuth audience to a URL that parses, an IPv6 listening address in brackets", () => {
    const oauth = ["--oauth-issuer", "https://as.example", "--oauth-jwks-url", "https://as.example/jwks"];
    const audience = (args: string[]): string | undefined =>
      authSettings(parseNodeOptions(["--http", "--port", "3000", ...oauth, ...args], {}), {}, new SecretVault()).oauth
        ?.audience;
    expect(audience(["--host", "::1"])).toBe("http://[::1]:3000/mcp");
    expect(audience([])).toBe("http://127.0.0.1:3000/mcp");
    expect(audience(["--host", "0.0.0.0", "--allowed-host", "mcp.example.com"])).toBe(
      "http://mcp.example.com:3000/mcp",
    );
  });

  it("take a key set over plain http only from loopback", () => {
    const oauth = (jwks: string): string[] => [
      "--http",
      "--oauth-issuer",
      "https://as.example",
      "--oauth-jwks-url",
      jwks,
    ];
    expect(() => parseNodeOptions(oauth("http://as.example/jwks"), {})).toThrow(/--oauth-jwks-url must be https/);
    expect(() => parseNodeOptions(oauth("HTTP://10.0.0.5:8080/jwks"), {})).toThrow(/--oauth-jwks-url must be https/);
    for (const loopback of ["http://127.0.0.1:9000/jwks", "http://localhost/jwks", "http://[::1]:9000/jwks"])
      expect(parseNodeOptions(oauth(loopback), {}).oauth?.jwksUrl).toBe(loopback);
    expect(parseNodeOptions(oauth("https://as.example/jwks"), {}).oauth?.jwksUrl).toBe("https://as.example/jwks");
  });

  it("refuse half an OAuth configuration, or both kinds at once", () => {
    expect(() => parseNodeOptions(["--http", "--oauth-issuer", "https://as.example"], {})).toThrow(
      /both --oauth-issuer and --oauth-jwks-url/,
    );
    expect(() =>
      parseNodeOptions(
        [
          "--http",
          "--oauth-issuer",
          "https://as.example",
          "--oauth-jwks-url",
          "https://as.example/j",
          "--auth-tokens-file",
          "t",
        ],
        {},
      ),
    ).toThrow(/Choose one/);
    expect(() =>
      parseNodeOptions(
        ["--http", "--port", "0", "--oauth-issuer", "https://as.example", "--oauth-jwks-url", "https://as.example/j"],
        {},
      ),
    ).toThrow(/--oauth-audience/);
  });

  it("parse the limit, proxy trust and log flags", () => {
    const options = parseNodeOptions(
      [
        "--http",
        "--client-rate-limit",
        "0",
        "--trust-proxy",
        "10.0.0.0/8",
        "--trust-proxy",
        "::1",
        "--log-format",
        "json",
        "--log-level",
        "warn",
      ],
      {},
    );
    expect(options).toMatchObject({
      clientRateLimit: 0,
      trustProxy: ["10.0.0.0/8", "::1"],
      logFormat: "json",
      logLevel: "warn",
    });
    expect(parseNodeOptions(["--http"], {}).clientRateLimit).toBe(300);
    expect(() => parseNodeOptions(["--http", "--client-rate-limit", "-1"], {})).toThrow(UsageError);
    expect(() => parseNodeOptions(["--log-format", "xml"], {})).toThrow(/text or json/);
    expect(() => parseNodeOptions(["--log-level", "loud"], {})).toThrow(/--log-level/);
    expect(() => parseNodeOptions(["--client-rate-limit", "5"], {})).toThrow(/need --http/);
  });

  it("keep upstream connections alive unless --no-upstream-keep-alive (stdio and HTTP alike)", () => {
    expect(parseNodeOptions([], {}).upstreamKeepAlive).toBe(true);
    expect(parseNodeOptions(["--no-upstream-keep-alive"], {}).upstreamKeepAlive).toBe(false);
    expect(parseNodeOptions(["--http", "--no-upstream-keep-alive"], {}).upstreamKeepAlive).toBe(false);
  });

  it("refuse the old --env-file spelling with the reason and the new name", () => {
    expect(() => parseNodeOptions(["--env-file", "x"], {})).toThrow(
      /Node reads --env-file itself.*Use --secrets-file FILE/,
    );
    expect(parseNodeOptions(["--secrets-file", "a", "--secrets-file", "b"], {}).secretsFiles).toEqual(["a", "b"]);
  });
});

describe("the client address", () => {
  it("comes from X-Forwarded-For only through trusted peers, rightmost untrusted hop first", async () => {
    const { clientAddress, parseTrustedRanges } = await import("../../packages/runtime/src/serve/client-address.ts");
    const trusted = parseTrustedRanges(["10.0.0.0/8", "192.0.2.1"]);
    expect(clientAddress("10.1.1.1", "203.0.113.5", trusted)).toBe("203.0.113.5");
    expect(clientAddress("10.1.1.1", "198.51.100.1, 203.0.113.5, 10.2.2.2", trusted)).toBe("203.0.113.5");
    expect(clientAddress("::ffff:10.1.1.1", "203.0.113.5", trusted)).toBe("203.0.113.5");
    expect(clientAddress("203.0.113.9", "198.51.100.1", trusted)).toBe("203.0.113.9");
    expect(clientAddress("10.1.1.1", "garbage, 203.0.113.5", trusted)).toBe("203.0.113.5");
    expect(clientAddress("10.1.1.1", "203.0.113.5, garbage", trusted)).toBe("10.1.1.1");
    expect(clientAddress("10.1.1.1", undefined, trusted)).toBe("10.1.1.1");
    expect(clientAddress("10.1.1.1", "203.0.113.5", [])).toBe("10.1.1.1");
    expect(() => parseTrustedRanges(["10.0.0.0/99"])).toThrow(/--trust-proxy/);
  });

  // Some proxies write the client with its port (Azure's `ip:port`, `[v6]:port`): read as not an address, the
  // walk stopped at the proxy, and every client behind it shared the proxy's one count (one client spending it
  // got all the others answered 429).
  it("reads an address a trusted proxy wrote with a port or in brackets", async () => {
    const { clientAddress, parseTrustedRanges } = await import("../../packages/runtime/src/serve/client-address.ts");
    const trusted = parseTrustedRanges(["10.0.0.0/8"]);
    expect(clientAddress("10.1.1.1", "203.0.113.5:51234", trusted)).toBe("203.0.113.5");
    expect(clientAddress("10.1.1.1", "[2001:db8::5]:443", trusted)).toBe("2001:db8::5");
    expect(clientAddress("10.1.1.1", "[2001:db8::5]", trusted)).toBe("2001:db8::5");
    expect(clientAddress("10.1.1.1", "203.0.113.5, 10.2.2.2:8080", trusted)).toBe("203.0.113.5");
    // Still not an address: a port on a bare IPv6 address cannot be told from its last group, and junk stays junk.
    expect(clientAddress("10.1.1.1", "203.0.113.5:x", trusted)).toBe("10.1.1.1");
    expect(clientAddress("10.1.1.1", "[2001:db8::5]:", trusted)).toBe("10.1.1.1");
    expect(clientAddress("10.1.1.1", "203.0.113.5:99999", trusted)).toBe("10.1.1.1");
  });
});
