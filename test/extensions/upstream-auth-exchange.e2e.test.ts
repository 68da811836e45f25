/**
 * The upstream-auth extension's token exchange (RFC 8693), end to end, on both bundles: `server.mjs --http` and
 * `worker.mjs` served by Bun, each an OAuth resource server (a key set on 127.0.0.1, tokens signed here), with an
 * exchange endpoint (STS) and an API over https that record what they get. The caller's verified access token is
 * the subject token and goes to the STS only; the exchanged token is kept per subject; the STS's refusals are
 * named without its words; every token the API echoes is redacted. Without OAuth (stdio, static bearer tokens)
 * the tool says what it needs.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ChildProcess } from "node:child_process";
import type { webcrypto } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/clients.ts";
import { startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import {
  freePort,
  readmeCommands,
  runtimeBinary,
  type Service,
  shellWords,
  startService,
} from "../helpers/runtimes.ts";
import { leaks } from "../helpers/secret-encodings.ts";
import { json, type RecordedRequest, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const ISSUER = "https://auth.example.test";
const AUDIENCE = "https://mcp.example.test/mcp";
const API_AUDIENCE = "https://api.example.com";
const CLIENT_SECRET = "sts-client-secret-canary-51c2";

let sts: Upstream;
let api: Upstream;
let jwks: http.Server;
let jwksUrl: string;
let key: webcrypto.CryptoKey;
let root: string;
let serverPath: string;
let packageDir: string;
const children: ChildProcess[] = [];
const services: Service[] = [];
/** Exchanged tokens issued, in order. */
const exchanged: string[] = [];

const SPEC = `specVersion: 1
kervancExtensions: [upstream-auth]
name: crm-user
version: "1.0.0"
secrets: [STS_CLIENT_ID, STS_CLIENT_SECRET]
credentials:
  crm_user:
    tokenExchange:
      tokenUrl: "STS_ORIGIN/token"
      clientId: "{{secrets.STS_CLIENT_ID}}"
      clientSecret: "{{secrets.STS_CLIENT_SECRET}}"
      audience: ${API_AUDIENCE}
tools:
  - name: mine
    description: My accounts.
    http:
      url: "API_ORIGIN/mine"
      headers: { Authorization: "Bearer {{credentials.crm_user}}" }
    output: { select: "@" }
`;

const callerToken = (sub: string, exp: string | number = "5m"): Promise<string> =>
  new SignJWT({ scope: "crm" })
    .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(key);

const stsRequests = (): RecordedRequest[] => sts.requests.filter((r) => r.path === "/token");

function serverEnv(): Record<string, string> {
  return { NODE_EXTRA_CA_CERTS: TEST_CA, STS_CLIENT_ID: "sts-client-id-0001", STS_CLIENT_SECRET: CLIENT_SECRET };
}

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  key = pair.privateKey;
  const published = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] };
  jwks = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(published));
  });
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  sts = await startUpstream(
    (req, res) => {
      const form = new URLSearchParams(req.body);
      const subject = decodeJwt(form.get("subject_token") ?? "").sub ?? "";
      if (subject === "refused-user")
        return json(res, 400, { error: "invalid_grant", error_description: `subject ${form.get("subject_token")}` });
      const token = `exch-${subject}-${exchanged.length + 1}-${Math.random().toString(36).slice(2, 10)}`;
      exchanged.push(token);
      return json(res, 200, {
        access_token: token,
        issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
        token_type: "Bearer",
        expires_in: 600,
      });
    },
    { tls: true },
  );
  api = await startUpstream((req, res) => json(res, 200, { authorization: req.headers.authorization ?? null }), {
    tls: true,
  });
  ({ root, serverPath, packageDir } = await buildOneSpec(
    "upstream-auth-exchange",
    "crm-user.yaml",
    SPEC.replaceAll("STS_ORIGIN", sts.origin).replaceAll("API_ORIGIN", api.origin),
  ));
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  for (const service of services) await service.stop();
  await sts?.close();
  await api?.close();
  jwks?.closeAllConnections();
  await new Promise<void>((resolve) => (jwks ? jwks.close(() => resolve()) : resolve()));
  if (root) await removeDir(root);
});

type Result = { isError?: boolean; content: { text: string }[] };

async function call(endpoint: string, bearer: string, era: "modern" | "legacy" = "modern"): Promise<Result> {
  const requestInit = { headers: { authorization: `Bearer ${bearer}` } };
  if (era === "modern") {
    const client = new ModernClient({ name: "t", version: "1" });
    await client.connect(new ModernHttp(new URL(endpoint), { requestInit }));
    try {
      return (await client.callTool({ name: "mine", arguments: {} })) as Result;
    } finally {
      await client.close();
    }
  }
  const client = new LegacyClient({ name: "t", version: "1" });
  await client.connect(new LegacyHttp(new URL(endpoint), { requestInit }));
  try {
    return (await client.callTool({ name: "mine", arguments: {} })) as Result;
  } finally {
    await client.close();
  }
}

/** The same behaviour from whichever bundle `start` serves; `who` keeps each suite's subjects apart. */
function exchangeSuite(name: string, who: string, start: () => Promise<string>): void {
  describe(name, () => {
    let endpoint: string;

    beforeAll(async () => {
      endpoint = await start();
    }, 60_000);

    it("exchanges the caller's token once per subject and sends only the exchanged one", async () => {
      const alice = await callerToken(`${who}-alice`);
      const before = stsRequests().length;
      const first = await call(endpoint, alice, "modern");
      const second = await call(endpoint, alice, "legacy");
      expect(first.isError ?? false, first.content[0]?.text).toBe(false);
      expect(second.isError ?? false).toBe(false);
      expect(stsRequests().length).toBe(before + 1);
      const request = stsRequests().at(-1)!;
      expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
        grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
        subject_token: alice,
        subject_token_type: "urn:ietf:params:oauth:token-type:access_token",
        requested_token_type: "urn:ietf:params:oauth:token-type:access_token",
        audience: API_AUDIENCE,
      });
      const token = exchanged.at(-1)!;
      expect(token).toContain(`${who}-alice`);
      expect(api.requests.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
      // The API echoed the exchanged token: the model sees it redacted.
      expect(JSON.parse(second.content[0]!.text)).toEqual({ authorization: "Bearer [redacted]" });
      expect(leaks(second.content[0]!.text, token)).toEqual([]);
      // Another subject gets its own exchange.
      const bob = await callerToken(`${who}-bob`);
      await call(endpoint, bob);
      expect(stsRequests().length).toBe(before + 2);
      expect(exchanged.at(-1)).toContain(`${who}-bob`);
    });

    it("never sends the caller's own token to the API", async () => {
      const token = await callerToken(`${who}-carol`);
      await call(endpoint, token);
      for (const request of api.requests) expect(JSON.stringify(request)).not.toContain(token.split(".")[2]!);
    });

    it("never exchanges an expired token or one for another audience: the server refuses the caller first", async () => {
      const before = stsRequests().length;
      const expired = await callerToken(`${who}-late`, Math.floor(Date.now() / 1000) - 3600);
      const elsewhere = await new SignJWT({})
        .setProtectedHeader({ alg: "ES256", kid: "k1" })
        .setIssuer(ISSUER)
        .setAudience("https://other.example.test/mcp")
        .setSubject(`${who}-elsewhere`)
        .setExpirationTime("5m")
        .sign(key);
      for (const token of [expired, elsewhere]) {
        const response = await fetch(endpoint, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
        expect(response.status).toBe(401);
      }
      expect(stsRequests().length).toBe(before);
    });

    it("names the exchange's refusal with its OAuth error code, never its words", async () => {
      const refused = await callerToken("refused-user");
      const r = await call(endpoint, refused);
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toBe(
        `The token endpoint refused credential crm_user (token endpoint ${new URL(sts.origin).host}): HTTP 400, error invalid_grant.`,
      );
    });
  });
}

exchangeSuite("server.mjs over Streamable HTTP with OAuth", "node", async () => {
  const started = await startHttpServer(
    serverPath,
    ["--allow-private-network", "--oauth-issuer", ISSUER, "--oauth-jwks-url", jwksUrl, "--oauth-audience", AUDIENCE],
    serverEnv(),
  );
  children.push(started.child);
  return started.url;
});

exchangeSuite("worker.mjs served by Bun with OAuth", "bun", async () => {
  const readme = await readFile(join(packageDir, "README.md"), "utf8");
  const [line] = readmeCommands(readme, "### Bun");
  const port = await freePort();
  const words = shellWords(line!).map((word) => word.replace(/^(--port=)?3000$/, (_, flag = "") => `${flag}${port}`));
  expect(words).toContain(`--port=${port}`);
  const service = await startService(runtimeBinary("bun"), words.slice(1), {
    env: {
      ...serverEnv(),
      KERVANC_ALLOW_PRIVATE_NETWORK: "1",
      KERVANC_OAUTH_ISSUER: ISSUER,
      KERVANC_OAUTH_JWKS_URL: jwksUrl,
      KERVANC_OAUTH_AUDIENCE: AUDIENCE,
      DO_NOT_TRACK: "1",
      NO_COLOR: "1",
    },
    cwd: packageDir,
    port,
  });
  services.push(service);
  return service.url;
});

describe("without OAuth", () => {
  it("over stdio, the tool says the exchange needs Streamable HTTP with OAuth", async () => {
    const client = await connect("modern", serverPath, { serverArgs: ["--allow-private-network"], env: serverEnv() });
    try {
      const r = await client.callTool("mine", {});
      expect(r.isError).toBe(true);
      expect(r.content?.[0]?.text).toBe(
        "Credential crm_user exchanges the caller's OAuth access token for a token of its own, so it is available only over Streamable HTTP with OAuth authentication; this server runs over stdio.",
      );
    } finally {
      await client.close();
    }
  });

  it("with static bearer tokens, the tool says the server has no OAuth, and nothing is exchanged", async () => {
    const before = stsRequests().length;
    const started = await startHttpServer(serverPath, ["--allow-private-network"], {
      ...serverEnv(),
      KERVANC_AUTH_TOKENS: "static-token-0123456789",
    });
    children.push(started.child);
    const r = await call(started.url, "static-token-0123456789");
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toContain(
      "needs this server's OAuth authentication (--oauth-issuer); the server has none",
    );
    expect(stsRequests().length).toBe(before);
  });
});
