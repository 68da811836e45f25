/**
 * The key set's fetch where jose shares no fetch between requests: on Cloudflare Workers a request cannot wait on
 * another request's I/O, so jose lets each request that needs the key set fetch it itself. The fetch's own
 * cooldown must then hold back only after a failed fetch: holding back every fetch for 5 s after any attempt
 * refused the requests that came while the first fetch was still on its way (at a cold start, and whenever the
 * cached key set expired under load), with "the key set could not be read", though it could.
 *
 * In process, against a key set served on 127.0.0.1; jose takes the process for Workers by `WebSocketPair`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuthenticator } from "../../packages/runtime/src/serve/auth.ts";

const ISSUER = "https://auth.example.test";
const AUDIENCE = "https://mcp.example.test/mcp";

let server: http.Server;
let url: string;
let fetches = 0;
let failing = false;
let token: string;

beforeAll(async () => {
  (globalThis as { WebSocketPair?: unknown }).WebSocketPair = class {};
  const pair = await generateKeyPair("ES256", { extractable: true });
  const keys = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] };
  token = await new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("user-1")
    .setExpirationTime("5m")
    .sign(pair.privateKey);
  // Each answer comes a moment later, so that requests arriving together find the first fetch under way.
  server = http.createServer((_req, res) => {
    fetches++;
    setTimeout(() => {
      if (failing) res.writeHead(503).end();
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(keys));
    }, 200);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});

afterAll(async () => {
  delete (globalThis as { WebSocketPair?: unknown }).WebSocketPair;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request = (): Request =>
  new Request("https://mcp.example.test/mcp", { method: "POST", headers: { authorization: `Bearer ${token}` } });

describe("the key set's fetch on Workers", () => {
  it("serves every request that arrives while the first fetch is under way", async () => {
    failing = false;
    const auth = createAuthenticator({ tokens: [], oauth: { issuer: ISSUER, jwksUrl: url, audience: AUDIENCE } })!;
    const verdicts = await Promise.all([1, 2, 3, 4].map(() => auth.check(request())));
    expect(verdicts.map((verdict) => verdict.ok)).toEqual([true, true, true, true]);
  });

  it("still fetches at most once per cooldown after a failure, on Workers too", async () => {
    failing = true;
    const auth = createAuthenticator({ tokens: [], oauth: { issuer: ISSUER, jwksUrl: url, audience: AUDIENCE } })!;
    const before = fetches;
    const started = Date.now();
    expect((await auth.check(request())).ok).toBe(false);
    for (let i = 0; i < 10; i++) expect((await auth.check(request())).ok).toBe(false);
    expect(fetches - before).toBeGreaterThanOrEqual(1);
    expect(fetches - before).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / 5_000));
  });
});
