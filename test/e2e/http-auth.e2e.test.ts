/**
 * Authentication on /mcp (issue 15): the bundle started with --http and OAuth (a JWKS served on 127.0.0.1,
 * tokens signed here with jose) or static bearer tokens, spoken to by both SDK clients with a token and by raw
 * requests for every way a token can be wrong. Also: off loopback without authentication is refused, /healthz
 * answers without a token and never calls the upstream, and the per-client limit is keyed by the subject.
 */
import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import http from "node:http";
import type { webcrypto } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { removeDir } from "../helpers/kervanc.ts";
import type { Upstream } from "../helpers/upstream.ts";
import { buildWeatherServer } from "../helpers/weather.ts";

const ISSUER = "https://auth.example.test";
const AUDIENCE = "https://mcp.example.test/mcp";
const STATIC_TOKEN = "static-token-canary-0123456789";

let upstream: Upstream;
let outDir: string;
let serverPath: string;
const children: ChildProcess[] = [];
let jwks: http.Server;
let jwksUrl: string;
let jwksFetches = 0;
let published: object[] = [];
let key1: webcrypto.CryptoKey;
let key2: webcrypto.CryptoKey;
let oauthEndpoint: string;
let publicJwk: object;
const HMAC_SECRET = "a-shared-secret-of-32-bytes-long!";

/** A token with exactly these claims and this protected header, signed by k1 (no claim set for it). */
function raw(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
  crit: Record<string, boolean> = {},
) {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "k1", ...header }).sign(key1, { crit });
}

const inMinutes = (minutes: number): number => Math.floor(Date.now() / 1000) + minutes * 60;

async function token(
  claims: Record<string, unknown>,
  options: {
    key?: webcrypto.CryptoKey;
    kid?: string;
    iss?: string;
    aud?: string;
    exp?: number | string;
    sub?: string;
  } = {},
): Promise<string> {
  const jwt = new SignJWT({ ...claims })
    .setProtectedHeader({ alg: "ES256", kid: options.kid ?? "k1" })
    .setIssuer(options.iss ?? ISSUER)
    .setAudience(options.aud ?? AUDIENCE)
    .setSubject(options.sub ?? "user-1")
    .setIssuedAt()
    .setExpirationTime(options.exp ?? "5m");
  return jwt.sign(options.key ?? key1);
}

function unsecured(): string {
  const b64 = (v: object): string => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${b64({ alg: "none", kid: "k1" })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: "user-1", exp: Math.floor(Date.now() / 1000) + 300 })}.`;
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

async function post(endpoint: string, bearer: string | null): Promise<Response> {
  return fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(bearer !== null ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: initialize,
  });
}

async function start(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stderr: () => string }> {
  const started = await startHttpServer(serverPath, ["--allow-private-network", ...args], env);
  children.push(started.child);
  return started;
}

beforeAll(async () => {
  ({ upstream, outDir, serverPath } = await buildWeatherServer());
  ({ privateKey: key1 } = await generateKeyPair("ES256", { extractable: true }).then(async (pair) => {
    // A symmetric key beside it, as a careless authorization server might publish: an HMAC token made with it
    // must still be refused (only asymmetric algorithms are accepted).
    published = [
      { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" },
      { kty: "oct", k: Buffer.from(HMAC_SECRET).toString("base64url"), kid: "hs", alg: "HS256", use: "sig" },
    ];
    publicJwk = published[0]!;
    return pair;
  }));
  const pair2 = await generateKeyPair("ES256", { extractable: true });
  key2 = pair2.privateKey;
  jwks = http.createServer((_req, res) => {
    jwksFetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  oauthEndpoint = (await start(["--oauth-issuer", ISSUER, "--oauth-jwks-url", jwksUrl, "--oauth-audience", AUDIENCE]))
    .url;
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await upstream?.close();
  jwks?.closeAllConnections();
  await new Promise<void>((resolve) => (jwks ? jwks.close(() => resolve()) : resolve()));
  if (outDir) await removeDir(join(outDir, ".."));
});

describe("OAuth resource server", () => {
  it("answers 401 with WWW-Authenticate naming the protected-resource metadata", async () => {
    const response = await post(oauthEndpoint, null);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it("serves the RFC 9728 metadata without a token", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const response = await fetch(new URL(path, oauthEndpoint));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        resource: AUDIENCE,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ["header"],
      });
    }
  });

  it("accepts a valid token", async () => {
    const response = await post(oauthEndpoint, await token({}));
    expect(response.status).toBe(200);
  });

  it("accepts a token within the 30 s clock tolerance, and one whose aud list names this server", async () => {
    const seconds = Math.floor(Date.now() / 1000);
    for (const claims of [
      { exp: seconds - 10 },
      { exp: seconds + 300, nbf: seconds + 10 },
      { exp: seconds + 300, iat: seconds + 10 },
      { exp: seconds + 300, aud: ["https://other.example.test/mcp", AUDIENCE] },
    ]) {
      const response = await post(oauthEndpoint, await raw({ iss: ISSUER, aud: AUDIENCE, sub: "u", ...claims }));
      expect(response.status).toBe(200);
    }
  });

  const refusals: [string, () => Promise<string>][] = [
    ["an expired token", () => token({}, { exp: Math.floor(Date.now() / 1000) - 3600 })],
    ["a token for another audience", () => token({}, { aud: "https://other.example.test/mcp" })],
    ["a token from another issuer", () => token({}, { iss: "https://evil.example.test" })],
    ["a token signed by a key not in the key set", () => token({}, { key: key2, kid: "k2" })],
    ["a token signed by another key under a known kid", () => token({}, { key: key2, kid: "k1" })],
    ["an unsecured token (alg none)", async () => unsecured()],
    [
      "a token without a subject",
      async () =>
        new SignJWT({})
          .setProtectedHeader({ alg: "ES256", kid: "k1" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setExpirationTime("5m")
          .sign(key1),
    ],
    ["garbage", async () => "not.a.jwt"],
    [
      "an HMAC token made with a symmetric key of the key set",
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256", kid: "hs" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setSubject("user-1")
          .setExpirationTime("5m")
          .sign(new TextEncoder().encode(HMAC_SECRET)),
    ],
    [
      "an HMAC token keyed with the public key (algorithm confusion)",
      () =>
        new SignJWT({})
          .setProtectedHeader({ alg: "HS256", kid: "k1" })
          .setIssuer(ISSUER)
          .setAudience(AUDIENCE)
          .setSubject("user-1")
          .setExpirationTime("5m")
          .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
    ],
    ["a token whose iss is a list", () => raw({ iss: [ISSUER], aud: AUDIENCE, sub: "u", exp: inMinutes(5) })],
    ["a token without exp", () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "u" })],
    ["a token whose exp is not a number", () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "u", exp: "tomorrow" })],
    [
      "a token expired past the 30 s tolerance",
      () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "u", exp: inMinutes(-2) }),
    ],
    [
      "a token not valid until past the 30 s tolerance",
      () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "u", exp: inMinutes(5), nbf: inMinutes(2) }),
    ],
    [
      "a token with a critical header this server does not understand",
      () =>
        raw(
          { iss: ISSUER, aud: AUDIENCE, sub: "u", exp: inMinutes(5) },
          { crit: ["x-bound"], "x-bound": 1 },
          { "x-bound": true },
        ),
    ],
    // The subject keys the per-client limit: one that is not a name would let unrelated clients share a count.
    ["a token whose sub is not a string", () => raw({ iss: ISSUER, aud: AUDIENCE, sub: 42, exp: inMinutes(5) })],
    ["a token whose sub is empty", () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "", exp: inMinutes(5) })],
    // Security round 2: a JWT of another kind from the same issuer, and one issued beyond the 30 s clock skew.
    [
      "a token whose typ names another kind of JWT (RFC 9068)",
      () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "u", exp: inMinutes(5) }, { typ: "logout+jwt" }),
    ],
    [
      "a token issued in the future past the 30 s clock skew",
      () => raw({ iss: ISSUER, aud: AUDIENCE, sub: "u", exp: inMinutes(60), iat: inMinutes(2) }),
    ],
  ];
  for (const [what, make] of refusals) {
    it(`refuses ${what}`, async () => {
      const response = await post(oauthEndpoint, await make());
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(response.headers.get("www-authenticate")).toContain("resource_metadata=");
    });
  }

  it("fetches the key set again for an unknown kid, so a rotated key is accepted", async () => {
    // Its own server, so its key-set cache starts empty here.
    const rotated = (await start(["--oauth-issuer", ISSUER, "--oauth-jwks-url", jwksUrl, "--oauth-audience", AUDIENCE]))
      .url;
    const before = jwksFetches;
    expect((await post(rotated, await token({}))).status).toBe(200);
    expect(jwksFetches).toBe(before + 1);
    // Cached: a second token costs no fetch.
    expect((await post(rotated, await token({}))).status).toBe(200);
    expect(jwksFetches).toBe(before + 1);
    // The authorization server rotates in k3. Past the cooldown between fetches (5 s), a token naming the
    // unknown kid makes the server fetch the key set again, and the new key is accepted.
    const pair = await generateKeyPair("ES256", { extractable: true });
    published = [...published, { ...(await exportJWK(pair.publicKey)), kid: "k3", alg: "ES256", use: "sig" }];
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    expect((await post(rotated, await token({}, { key: pair.privateKey, kid: "k3" }))).status).toBe(200);
    expect(jwksFetches).toBe(before + 2);
    published = published.filter((jwk) => (jwk as { kid?: string }).kid !== "k3");
  }, 30_000);

  it("serves both SDK clients that send a token", async () => {
    const bearer = await token({});
    const modern = new ModernClient(
      { name: "t", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    await modern.connect(
      new ModernHttp(new URL(oauthEndpoint), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }),
    );
    try {
      const result = await modern.callTool({ name: "get_current_weather", arguments: { latitude: 1, longitude: 2 } });
      expect(result.structuredContent).toEqual({ temperatureC: 3.5, windKmh: 10, weatherCode: 61 });
    } finally {
      await modern.close();
    }
    const legacy = new LegacyClient({ name: "t", version: "1" });
    await legacy.connect(
      new LegacyHttp(new URL(oauthEndpoint), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }),
    );
    try {
      const result = await legacy.callTool({ name: "get_current_weather", arguments: { latitude: 1, longitude: 2 } });
      expect(result.structuredContent).toEqual({ temperatureC: 3.5, windKmh: 10, weatherCode: 61 });
    } finally {
      await legacy.close();
    }
  });
});

describe("static bearer tokens", () => {
  let endpoint: string;
  let stderr: () => string;
  beforeAll(async () => {
    const file = join(outDir, "tokens.txt");
    await writeFile(file, `# the team's token\n${STATIC_TOKEN}\n`);
    ({ url: endpoint, stderr } = await start(["--auth-tokens-file", file, "--client-rate-limit", "3"], {
      KERVANC_AUTH_TOKENS: "second-token-abcdefghijklmnop",
    }));
  });

  it("accepts each configured token, from the file and from KERVANC_AUTH_TOKENS", async () => {
    expect((await post(endpoint, STATIC_TOKEN)).status).toBe(200);
    expect((await post(endpoint, "second-token-abcdefghijklmnop")).status).toBe(200);
  });

  // Before the refusals below: once the address has spent its failed attempts, no token of it is checked.
  it("keys the per-client limit by the token, not the address", async () => {
    // The first test spent 1 of STATIC_TOKEN's 3; the second token spent 1 of its own.
    expect((await post(endpoint, STATIC_TOKEN)).status).toBe(200);
    expect((await post(endpoint, STATIC_TOKEN)).status).toBe(200);
    const limited = await post(endpoint, STATIC_TOKEN);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Same address, another subject: still served.
    expect((await post(endpoint, "second-token-abcdefghijklmnop")).status).toBe(200);
  });

  it("refuses a missing, wrong, or prefix token", async () => {
    expect((await post(endpoint, null)).status).toBe(401);
    expect((await post(endpoint, "static-token-canary-012345678")).status).toBe(401);
    expect((await post(endpoint, `${STATIC_TOKEN}x`)).status).toBe(401);
    expect(stderr()).not.toContain(STATIC_TOKEN);
  });

  it("holds failed attempts from one address to the same limit, so tokens cannot be guessed at speed", async () => {
    // Three failed attempts were spent by the refusal test above: the fourth is answered 429, not 401.
    const guessed = await post(endpoint, "guess-token-abcdefghijklmnop");
    expect(guessed.status).toBe(429);
    // The right token is refused the same way until the address's minute is over: were it answered 200, each
    // wrong guess's 429 would only say "wrong", and guessing would go on at full speed.
    const right = await post(endpoint, "second-token-abcdefghijklmnop");
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers /healthz without a token and without calling the upstream", async () => {
    const before = upstream.requests.length;
    const response = await fetch(new URL("/healthz", endpoint));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", name: "open-meteo", version: "0.1.0", tools: 1 });
    expect(upstream.requests.length).toBe(before);
  });
});

describe("the bearer token as sent and as configured", () => {
  const FIRST = "first-token-ABCDEFGHIJKLMNOP";
  const SECOND = "second-token-abcdefghijklmnop";
  let endpoint: string;
  beforeAll(async () => {
    // A file written on Windows: a byte-order mark, CRLF line ends, a comment and a blank line.
    const file = join(outDir, "tokens-crlf.txt");
    await writeFile(file, `\uFEFF${FIRST}\r\n# a comment\r\n\r\n  ${SECOND}  \r\n`);
    // Every refusal below must be a 401, not the per-client limit's 429.
    ({ url: endpoint } = await start(["--auth-tokens-file", file, "--client-rate-limit", "0"]));
  });

  async function status(authorization: string | string[]): Promise<number> {
    const headers = new Headers({ "content-type": "application/json", accept: "application/json, text/event-stream" });
    for (const value of [authorization].flat()) headers.append("authorization", value);
    const response = await fetch(endpoint, { method: "POST", headers, body: initialize });
    await response.body?.cancel();
    return response.status;
  }

  it("reads a tokens file with a byte-order mark, CRLF, comments and blanks", async () => {
    expect(await status(`Bearer ${FIRST}`)).toBe(200);
    expect(await status(`Bearer ${SECOND}`)).toBe(200);
  });

  it("takes the scheme in any case, the token only exactly", async () => {
    expect(await status(`bearer ${FIRST}`)).toBe(200);
    expect(await status(`BEARER   ${FIRST}  `)).toBe(200);
    for (const wrong of [
      `Bearer ${FIRST.toLowerCase()}`,
      `Bearer ${FIRST.toUpperCase()}`,
      `Bearer ${FIRST},${SECOND}`,
      `Bearer ${FIRST} ${SECOND}`,
      `Bearer\t${FIRST}`,
      `Basic ${Buffer.from(`x:${FIRST}`).toString("base64")}`,
      `Token ${FIRST}`,
      FIRST,
      "Bearer",
      "Bearer ",
    ])
      expect(await status(wrong)).toBe(401);
  });

  /** The status of a raw request: the target exactly as written, no client-side normalisation. */
  function raw(method: string, target: string): Promise<number> {
    const url = new URL(endpoint);
    const body = method === "GET" || method === "HEAD" ? "" : initialize;
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method,
          path: target,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            // Declared for every method: Node sends a DELETE or OPTIONS body undelimited otherwise.
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  it("guards /mcp for every method and spelling, and serves nothing else but /healthz", async () => {
    for (const method of ["GET", "HEAD", "POST", "DELETE", "OPTIONS", "PUT", "PATCH"]) {
      for (const target of [
        "/mcp",
        "/mcp?x=1",
        "/mcp#f",
        "/x/../mcp",
        "/./mcp",
        "http://" + new URL(endpoint).host + "/mcp",
      ])
        expect([method, target, await raw(method, target)]).toEqual([method, target, 401]);
      for (const target of [
        "/mcp/",
        "/MCP",
        "/%6dcp",
        "/mcp%2f",
        "/mcp;x",
        "/",
        "/.well-known/oauth-protected-resource",
      ])
        expect([method, target, await raw(method, target)]).toEqual([method, target, 404]);
    }
    expect(await raw("GET", "/healthz")).toBe(200);
  });

  it("refuses two Authorization headers, even when both hold a valid token", async () => {
    expect(await status([`Bearer ${FIRST}`, `Bearer ${SECOND}`])).toBe(401);
    expect(await status([`Bearer ${FIRST}`, `Bearer ${FIRST}`])).toBe(401);
  });
});

describe("the log of refused requests", () => {
  // What a client sends is never written: a refusal's line holds a status and a fixed reason, so neither a token
  // nor a crafted header can put words, or another line, into the log.
  it("holds neither the token nor any header a refused client sent, one JSON object per line", async () => {
    const CANARY = "canary-token-Zq7-0123456789";
    const file = join(outDir, "tokens-log.txt");
    await writeFile(file, `${STATIC_TOKEN}\n`);
    const server = await start(["--auth-tokens-file", file, "--log-format", "json", "--client-rate-limit", "2"]);
    const send = async (headers: Record<string, string>): Promise<number> => {
      const response = await fetch(server.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: initialize,
      });
      await response.body?.cancel();
      return response.status;
    };
    const statuses = [
      await send({ authorization: `Bearer ${CANARY}` }),
      await send({ authorization: `Bearer ${CANARY}`, "user-agent": `${CANARY} {"event":"forged"}` }),
      await send({ authorization: `Bearer ${CANARY}`, origin: `http://${CANARY}.example` }),
      await send({ authorization: `Bearer ${CANARY}`, "x-forwarded-for": CANARY }),
    ];
    expect(statuses).toEqual([401, 401, 403, 429]);
    const lines = server.stderr().trimEnd().split("\n");
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((r) => r["event"] === "refused").map((r) => [r["status"], r["reason"]])).toEqual([
      [401, "not authenticated"],
      [401, "not authenticated"],
      [403, "Host or Origin not allowed"],
      [429, "client rate limit"],
    ]);
    expect(server.stderr()).not.toContain(CANARY);
    expect(server.stderr()).not.toContain("forged");
  });
});

describe("off loopback", () => {
  function exitOf(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [serverPath, "--http", "--port", "0", ...args], {
        env: { PATH: process.env["PATH"] ?? "", ...env },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      child.on("exit", (code) => resolve({ code, stderr }));
    });
  }

  it("refuses to serve without authentication", async () => {
    const result = await exitOf(["--host", "0.0.0.0", "--allowed-host", "mcp.example.test"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("needs authentication");
    expect(result.stderr).toContain("--insecure-no-auth");
  });

  /** How a start ends: its exit code, or "served" once it says it listens (it is then stopped). */
  function startOutcome(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number | "served"; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [serverPath, "--http", "--port", "0", ...args], {
        env: { PATH: process.env["PATH"] ?? "", ...env },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString("utf8");
        if (/Serving .* on http/.test(stderr)) {
          child.kill("SIGKILL");
          resolve({ code: "served", stderr });
        }
      });
      child.on("exit", (code) => resolve({ code: code ?? -1, stderr }));
    });
  }

  // KERVANC_AUTH_TOKENS set to separators only: the start-up check read "set" as "authentication on", and
  // the token list it then built was empty, so /mcp was served off loopback to anyone, without authentication.
  for (const value of [",", " ", " , ,", "\t"]) {
    it(`refuses a KERVANC_AUTH_TOKENS that holds no token (${JSON.stringify(value)})`, async () => {
      const result = await startOutcome(["--host", "0.0.0.0", "--allowed-host", "127.0.0.1"], {
        KERVANC_AUTH_TOKENS: value,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("KERVANC_AUTH_TOKENS holds no token");
    });
  }

  it("refuses a tokens file that holds no token", async () => {
    const file = join(outDir, "tokens-empty.txt");
    await writeFile(file, "# only a comment\r\n\r\n   \n");
    const result = await startOutcome(
      ["--host", "0.0.0.0", "--allowed-host", "127.0.0.1", "--auth-tokens-file", file],
      {},
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("holds no token");
  });

  // Over plain http, anyone on the path to the authorization server can answer with their own key set and then
  // sign any token this server accepts. Only loopback (a key set served on the same host) is let through.
  it("refuses an OAuth key set over plain http off loopback", async () => {
    const result = await startOutcome(
      [
        "--oauth-issuer",
        ISSUER,
        "--oauth-jwks-url",
        "http://auth.example.test/jwks.json",
        "--oauth-audience",
        AUDIENCE,
      ],
      {},
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--oauth-jwks-url must be https");
  });

  // A URL that passed the pattern but does not parse ended the process with a stack trace.
  it("refuses an OAuth URL that does not parse, with the flag's name", async () => {
    for (const [flag, value] of [
      ["--oauth-audience", "http://[/mcp"],
      ["--oauth-issuer", "https://[x"],
      ["--oauth-jwks-url", "http://[::1/jwks"],
    ] as const) {
      const args: Record<string, string> = {
        "--oauth-issuer": ISSUER,
        "--oauth-jwks-url": jwksUrl,
        "--oauth-audience": AUDIENCE,
        [flag]: value,
      };
      const result = await startOutcome(Object.entries(args).flat(), {});
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} must be an http(s) URL`);
    }
  });

  // Listening on loopback behind a reverse proxy on the same host: an --allowed-host that is not loopback is the
  // name the public reaches it by, and /mcp was served to them without authentication and without a word
  // (worker.mjs refuses the same configuration).
  it("refuses to serve a public --allowed-host without authentication, even listening on loopback", async () => {
    const refused = await startOutcome(["--allowed-host", "mcp.example.test"], {});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("needs authentication");
    const insecure = await startOutcome(["--allowed-host", "mcp.example.test", "--insecure-no-auth"], {});
    expect(insecure.code).toBe("served");
    expect(insecure.stderr).toContain("without authentication");
    expect((await startOutcome(["--allowed-host", "localhost", "--allowed-host", "127.0.0.1"], {})).code).toBe(
      "served",
    );
    expect(
      (await startOutcome(["--allowed-host", "mcp.example.test"], { KERVANC_AUTH_TOKENS: STATIC_TOKEN })).code,
    ).toBe("served");
  });

  it("serves with --insecure-no-auth, and says so", async () => {
    const started = await start(["--host", "0.0.0.0", "--allowed-host", "127.0.0.1", "--insecure-no-auth"]);
    expect(started.stderr()).toContain("without authentication");
  });
});
