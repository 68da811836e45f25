/**
 * An authorization server whose key set misbehaves, against the bundle as a process in OAuth mode: one that
 * fails must not be asked again for every request that brings a token (each request that found no usable key
 * set fetched it again, so a flood of tokens became a flood of fetches), and one that sends megabytes must not
 * be read past a small bound.
 */
import type { ChildProcess } from "node:child_process";
import type { webcrypto } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, getThingSpec, removeDir } from "../helpers/kervanc.ts";

const ISSUER = "https://auth.example.test";
const AUDIENCE = "https://mcp.example.test/mcp";

let root: string;
let serverPath: string;
let key: webcrypto.CryptoKey;
let published: object;
const children: ChildProcess[] = [];
const keySets: http.Server[] = [];

beforeAll(async () => {
  ({ root, serverPath } = await buildOneSpec("jwks", "guarded.yaml", getThingSpec("guarded")));
  const pair = await generateKeyPair("ES256", { extractable: true });
  key = pair.privateKey;
  published = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] };
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const server of keySets) {
    server.closeAllConnections();
    server.close();
  }
  if (root) await removeDir(root);
});

/** A key-set server that answers with `answer` and counts the requests it gets. */
async function keySet(answer: (res: http.ServerResponse) => void): Promise<{ url: string; fetches: () => number }> {
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    answer(res);
  });
  keySets.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, fetches: () => fetches };
}

async function serve(jwksUrl: string): Promise<string> {
  const started = await startHttpServer(serverPath, [
    "--oauth-issuer",
    ISSUER,
    "--oauth-jwks-url",
    jwksUrl,
    "--oauth-audience",
    AUDIENCE,
    // Every request below must reach the authenticator, however many a test sends.
    "--client-rate-limit",
    "0",
  ]);
  children.push(started.child);
  return started.url;
}

async function post(endpoint: string, token: string): Promise<{ status: number; text: string }> {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  return { status: response.status, text: await response.text() };
}

const token = (): Promise<string> =>
  new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("user-1")
    .setExpirationTime("5m")
    .sign(key);

const tokenWithKid = (kid: string): Promise<string> =>
  new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject("user-1")
    .setExpirationTime("5m")
    .sign(key);

describe("tokens that name keys the key set does not hold", () => {
  it("make at most one fetch per cooldown, however many kids a burst names", async () => {
    const good = await keySet((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(published)),
    );
    const endpoint = await serve(good.url);
    expect((await post(endpoint, await token())).status).toBe(200);
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const answer = await post(endpoint, await tokenWithKid(`unknown-${i}`));
      expect(answer.status).toBe(401);
    }
    // One fetch for the valid token, then at most one per 5 s cooldown: not one per unknown kid.
    expect(good.fetches()).toBeLessThanOrEqual(1 + Math.ceil((Date.now() - started) / 5_000));
    expect(good.fetches()).toBeLessThan(21);
  }, 60_000);
});

describe("a key set that cannot be read", () => {
  it("is not read through a redirect", async () => {
    const good = await keySet((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(published)),
    );
    const redirecting = await keySet((res) => res.writeHead(302, { location: good.url }).end());
    const endpoint = await serve(redirecting.url);
    const answer = await post(endpoint, await token());
    expect(answer.status).toBe(401);
    expect(answer.text).toContain("the authorization server's key set could not be read");
    expect(redirecting.fetches()).toBe(1);
    expect(good.fetches()).toBe(0);
  }, 60_000);

  it("is given up when it never finishes arriving", async () => {
    // Headers and the first bytes of a key set, then nothing: the fetch's timeout (5 s) covers the body too.
    const stalled = await keySet((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"keys":[');
    });
    const endpoint = await serve(stalled.url);
    const answer = await post(endpoint, await token());
    expect(answer.status).toBe(401);
    expect(answer.text).toContain("the authorization server's key set could not be read");
  }, 60_000);

  const unreadable: [string, (res: http.ServerResponse) => void][] = [
    ["an error status", (res) => res.writeHead(500).end()],
    ["not JSON", (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>sign in</html>")],
    ["JSON that is not a key set", (res) => res.writeHead(200).end('{"keys":"none"}')],
    ["a key set whose keys are not objects", (res) => res.writeHead(200).end('{"keys":[1,2]}')],
  ];
  for (const [what, answer] of unreadable)
    it(`is fetched once for a burst of requests with tokens, not once per request (${what})`, async () => {
      const failing = await keySet(answer);
      const endpoint = await serve(failing.url);
      const bearer = await token();
      const started = Date.now();
      for (let i = 0; i < 20; i++) {
        const answer = await post(endpoint, bearer);
        expect(answer.status).toBe(401);
        expect(answer.text).toContain("the authorization server's key set could not be read");
      }
      // At most one fetch per cooldown (5 s) whatever the outcome. The burst takes far less than 5 s; however
      // long it took, the bound follows it, and stays far from the 20 of one fetch per request.
      expect(failing.fetches()).toBeGreaterThanOrEqual(1);
      expect(failing.fetches()).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / 5_000));
    }, 60_000);

  it("is not read past 1 MiB, however valid the document it would be", async () => {
    // The right key, behind 2 MiB of JSON whitespace: a valid key set no authorization server sends.
    const padded = Buffer.concat([Buffer.alloc(2 * 1024 * 1024, 0x20), Buffer.from(JSON.stringify(published))]);
    const big = await keySet((res) =>
      res.writeHead(200, { "content-type": "application/json", "content-length": padded.length }).end(padded),
    );
    const endpoint = await serve(big.url);
    const answer = await post(endpoint, await token());
    expect(answer.status).toBe(401);
    expect(answer.text).toContain("the authorization server's key set could not be read");
    expect(big.fetches()).toBe(1);
  }, 60_000);

  it("is read as before when it is an ordinary key set", async () => {
    const good = await keySet((res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(published)),
    );
    const endpoint = await serve(good.url);
    expect((await post(endpoint, await token())).status).toBe(200);
    expect((await post(endpoint, await token())).status).toBe(200);
    expect(good.fetches()).toBe(1);
  }, 60_000);
});
