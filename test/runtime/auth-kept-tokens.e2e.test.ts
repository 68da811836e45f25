/**
 * The OAuth authenticator keeps tokens that passed verification (auth.ts, VerifiedTokens), so that a client
 * sending the same token with every request costs one signature check a minute. What keeping must never do: take
 * a token that differs from a kept one in any byte (its signature included), take a kept token past its `exp`,
 * or take it for longer than VERIFIED_TOKEN_MAX_AGE_MS without checking it again against the key set as it is
 * then. The key set is a real HTTP server on 127.0.0.1; the clock is vitest's fake `Date` (jose reads it too),
 * with real timers so that the key set's fetch runs.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type Authenticator,
  createAuthenticator,
  VERIFIED_TOKEN_MAX_AGE_MS,
  VERIFIED_TOKENS_MAX,
  VerifiedTokens,
} from "../../packages/runtime/src/serve/auth.ts";

const ISSUER = "https://auth.example.test";
const AUDIENCE = "https://mcp.example.test/mcp";
const T0 = Date.UTC(2026, 11, 2, 12, 0, 0);

let server: http.Server;
let jwksUrl: string;
/** What the key set serves now; a test may swap it. */
let published: { keys: JWK[] };
let first: { privateKey: CryptoKey; jwk: JWK };
let second: { privateKey: CryptoKey; jwk: JWK };

async function keyPair(kid: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const pair = await generateKeyPair("ES256", { extractable: true });
  return { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256" } };
}

beforeAll(async () => {
  first = await keyPair("k1");
  second = await keyPair("k2");
  server = http.createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(published)),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
afterEach(() => {
  vi.useRealTimers();
});

/** A token signed now (by the fake clock) with `key`, expiring `expiresInS` seconds later. */
function token(key: { privateKey: CryptoKey; jwk: JWK }, expiresInS: number, subject = "user-1"): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: key.jwk.kid! })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + expiresInS)
    .sign(key.privateKey);
}

function authenticator(): Authenticator {
  const auth = createAuthenticator(
    { tokens: [], oauth: { issuer: ISSUER, jwksUrl, audience: AUDIENCE } },
    { cooldownMs: 0 },
  );
  if (auth === null) throw new Error("no authenticator");
  return auth;
}

async function check(auth: Authenticator, bearer: string): Promise<string> {
  const result = await auth.check(new Request(AUDIENCE, { headers: { authorization: `Bearer ${bearer}` } }));
  return result.ok ? result.subject : `refused ${result.response.status}: ${(await result.response.text()).trim()}`;
}

function at(ms: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(ms);
}

describe("tokens kept after verification", () => {
  it("a token that differs from a kept one only in its signature is refused", async () => {
    at(T0);
    published = { keys: [first.jwk] };
    const auth = authenticator();
    const good = await token(first, 3600);
    expect(await check(auth, good)).toBe("sub:user-1");
    // The same header and claims with another key's signature: the kept verdict must not cover it.
    const [header, payload] = good.split(".");
    const forged = `${header}.${payload}.${(await token(second, 3600)).split(".")[2]}`;
    expect(await check(auth, forged)).toMatch(/^refused 401: Unauthorized: the token is not valid\.$/);
    // And the kept one still passes.
    expect(await check(auth, good)).toBe("sub:user-1");
  });

  it("a kept token is refused once it has expired (past the 30 s tolerance)", async () => {
    at(T0);
    published = { keys: [first.jwk] };
    const auth = authenticator();
    const shortLived = await token(first, 20);
    expect(await check(auth, shortLived)).toBe("sub:user-1");
    at(T0 + 10_000);
    expect(await check(auth, shortLived)).toBe("sub:user-1");
    at(T0 + 51_000);
    expect(await check(auth, shortLived)).toBe("refused 401: Unauthorized: the token has expired.");
  });

  it("a kept token is checked again against the key set after VERIFIED_TOKEN_MAX_AGE_MS", async () => {
    at(T0);
    published = { keys: [first.jwk] };
    const auth = authenticator();
    const longLived = await token(first, 24 * 3600);
    expect(await check(auth, longLived)).toBe("sub:user-1");
    // The authorization server drops the key. Past the key set's own cache (ten minutes) a fresh verification
    // reads the new set and refuses; a kept verdict that outlived its minute would still say yes.
    published = { keys: [second.jwk] };
    at(T0 + 11 * 60_000);
    expect(VERIFIED_TOKEN_MAX_AGE_MS).toBeLessThan(11 * 60_000);
    expect(await check(auth, longLived)).toBe(
      "refused 401: Unauthorized: the token's signing key is not in the authorization server's key set.",
    );
  });

  it("each token keeps its own subject", async () => {
    at(T0);
    published = { keys: [first.jwk] };
    const auth = authenticator();
    const alice = await token(first, 3600, "alice");
    const bob = await token(first, 3600, "bob");
    expect(await check(auth, alice)).toBe("sub:alice");
    expect(await check(auth, bob)).toBe("sub:bob");
    expect(await check(auth, alice)).toBe("sub:alice");
  });
});

describe("VerifiedTokens", () => {
  it("keeps at most VERIFIED_TOKENS_MAX, dropping the oldest", () => {
    const kept = new VerifiedTokens();
    const exp = T0 / 1000 + 3600;
    for (let i = 0; i <= VERIFIED_TOKENS_MAX; i++) kept.keep(`key-${i}`, `sub:${i}`, T0, exp);
    expect(kept.size).toBe(VERIFIED_TOKENS_MAX);
    expect(kept.subject("key-0", T0 + 1)).toBeNull();
    expect(kept.subject("key-1", T0 + 1)).toBe("sub:1");
    expect(kept.subject(`key-${VERIFIED_TOKENS_MAX}`, T0 + 1)).toBe(`sub:${VERIFIED_TOKENS_MAX}`);
  });

  it("never answers past exp, past the maximum age, or when the clock went back", () => {
    const kept = new VerifiedTokens();
    kept.keep("soon", "sub:a", T0, T0 / 1000 + 5);
    expect(kept.subject("soon", T0 + 4_999)).toBe("sub:a");
    expect(kept.subject("soon", T0 + 5_000)).toBeNull();
    kept.keep("long", "sub:b", T0, T0 / 1000 + 3600);
    expect(kept.subject("long", T0 + VERIFIED_TOKEN_MAX_AGE_MS - 1)).toBe("sub:b");
    expect(kept.subject("long", T0 + VERIFIED_TOKEN_MAX_AGE_MS)).toBeNull();
    kept.keep("back", "sub:c", T0, T0 / 1000 + 3600);
    expect(kept.subject("back", T0 - 1)).toBeNull();
    // A token already past its exp (inside jose's tolerance) is not kept at all.
    kept.keep("late", "sub:d", T0, T0 / 1000 - 1);
    expect(kept.size).toBe(0);
  });
});

describe("what an access token must say of itself", () => {
  const signed = (header: Record<string, string>, iatOffsetS: number): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: first.jwk.kid!, ...header })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject("user-1")
      .setIssuedAt(now + iatOffsetS)
      .setExpirationTime(now + 3600)
      .sign(first.privateKey);
  };

  it("a typ naming another kind of JWT is refused; at+jwt, the generic JWT and none are taken (RFC 9068, RFC 8725)", async () => {
    at(T0);
    published = { keys: [first.jwk] };
    const auth = authenticator();
    for (const typ of ["logout+jwt", "secevent+jwt", "dpop+jwt", "application/id_token+jwt", "JOSE", "at+jwt2", ""])
      expect(await check(auth, await signed({ typ }, 0)), typ).toBe(
        "refused 401: Unauthorized: the token is not an access token (its typ names another kind of JWT, RFC 9068).",
      );
    // RFC 9068's type; the generic JWT of Auth0's default profile and of Keycloak; and no typ at all.
    for (const header of [
      { typ: "at+jwt" },
      { typ: "application/AT+JWT" },
      { typ: "JWT" },
      { typ: "application/jwt" },
      {},
    ] as Record<string, string>[])
      expect(await check(auth, await signed(header, 0)), JSON.stringify(header)).toBe("sub:user-1");
  });

  it("an iat beyond the 30 s clock skew in the future is refused; within it, taken", async () => {
    at(T0);
    published = { keys: [first.jwk] };
    const auth = authenticator();
    expect(await check(auth, await signed({ typ: "at+jwt" }, 3600))).toBe(
      "refused 401: Unauthorized: the token is issued in the future.",
    );
    expect(await check(auth, await signed({ typ: "at+jwt" }, 20))).toBe("sub:user-1");
  });
});
