/**
 * worker.mjs authentication from its environment bindings (issue 15): bearer tokens from KERVANC_AUTH_TOKENS,
 * OAuth from KERVANC_OAUTH_* against a JWKS on 127.0.0.1 (default audience: the request's origin plus /mcp),
 * /healthz without a token, and the refusal to serve a public host without authentication.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchHandler } from "../../packages/runtime/src/entry/fetch-main.ts";
import { compileInProcess } from "../helpers/inprocess.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";
import { failedStart } from "../helpers/worker.ts";

const SPEC = `
specVersion: 1
name: worker-auth
version: "1.0.0"
tools:
  - name: echo
    description: echo
    http: { url: "https://api.example.com/e" }
    output: { select: "@" }
`;
const TOKEN = "worker-bearer-token-0123456789";
const ISSUER = "https://auth.example.test";

/** What a failed start logged, as one text. */
const startFailure = async (...args: Parameters<typeof failedStart>): Promise<string> =>
  (await failedStart(...args)).join("\n");

let jwks: http.Server;
let jwksUrl: string;
let sign: (aud: string) => Promise<string>;

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" };
  jwks = http.createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })),
  );
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  sign = (aud) =>
    new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer(ISSUER)
      .setAudience(aud)
      .setSubject("u")
      .setExpirationTime("5m")
      .sign(pair.privateKey);
});
afterAll(async () => {
  jwks.closeAllConnections();
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
});

const discover = (url: string, bearer?: string): Request =>
  new Request(url, {
    method: "POST",
    headers: {
      host: new URL(url).host,
      ...modernHeadersFor("server/discover"),
      ...(bearer !== undefined ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(modernMessage(1, "server/discover")),
  });

describe("worker.mjs authentication", () => {
  it("takes bearer tokens from KERVANC_AUTH_TOKENS", async () => {
    const worker = createFetchHandler(compileInProcess(SPEC));
    const env = { KERVANC_AUTH_TOKENS: `other-token-abcdefghijklmnop,${TOKEN}` };
    expect((await worker.fetch(discover("http://localhost/mcp"), env)).status).toBe(401);
    expect((await worker.fetch(discover("http://localhost/mcp", "wrong-token-abcdefghijklmnop"), env)).status).toBe(
      401,
    );
    expect((await worker.fetch(discover("http://localhost/mcp", TOKEN), env)).status).toBe(200);
    const health = await worker.fetch(new Request("http://localhost/healthz"), env);
    expect(await health.json()).toEqual({ status: "ok", name: "worker-auth", version: "1.0.0", tools: 1 });
  });

  it("is an OAuth resource server from KERVANC_OAUTH_*, the audience defaulting to https://<first allowed host>/mcp", async () => {
    const worker = createFetchHandler(compileInProcess(SPEC));
    const env = {
      KERVANC_OAUTH_ISSUER: ISSUER,
      KERVANC_OAUTH_JWKS_URL: jwksUrl,
      KERVANC_ALLOWED_HOSTS: "mcp.example.test",
    };
    const refused = await worker.fetch(discover("https://mcp.example.test/mcp"), env);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"',
    );
    const metadata = await worker.fetch(
      new Request("https://mcp.example.test/.well-known/oauth-protected-resource"),
      env,
    );
    expect(await metadata.json()).toMatchObject({
      resource: "https://mcp.example.test/mcp",
      authorization_servers: [ISSUER],
    });
    expect(
      (await worker.fetch(discover("https://mcp.example.test/mcp", await sign("https://other.example.test/mcp")), env))
        .status,
    ).toBe(401);
    expect(
      (await worker.fetch(discover("https://mcp.example.test/mcp", await sign("https://mcp.example.test/mcp")), env))
        .status,
    ).toBe(200);
  });

  it("never takes the OAuth audience from a request (its URL comes from the Host header on Deno and Bun)", async () => {
    const worker = createFetchHandler(compileInProcess(SPEC));
    const logged = await startFailure(worker, discover("http://localhost/mcp", await sign("http://localhost/mcp")), {
      KERVANC_OAUTH_ISSUER: ISSUER,
      KERVANC_OAUTH_JWKS_URL: jwksUrl,
    });
    expect(logged).toContain("OAuth needs KERVANC_OAUTH_AUDIENCE");
  });

  it("takes a key set over plain http only from loopback", async () => {
    const worker = createFetchHandler(compileInProcess(SPEC));
    const logged = await startFailure(worker, discover("https://mcp.example.test/mcp"), {
      KERVANC_OAUTH_ISSUER: ISSUER,
      KERVANC_OAUTH_JWKS_URL: "http://auth.example.test/jwks",
      KERVANC_ALLOWED_HOSTS: "mcp.example.test",
    });
    expect(logged).toContain("KERVANC_OAUTH_JWKS_URL must be https");
  });

  // What Deno and Bun pass as the handler's second argument (checked on both: Deno's connection info has a
  // remoteAddr getter, Bun's server a requestIP method, both on the prototype).
  class DenoInfo {
    readonly address: string;
    constructor(address: string) {
      this.address = address;
    }
    get remoteAddr(): { transport: string; hostname: string; port: number } {
      return { transport: "tcp", hostname: this.address, port: 40000 };
    }
  }
  class BunServer {
    readonly address: string;
    constructor(address: string) {
      this.address = address;
    }
    requestIP(): { address: string; family: string; port: number } {
      return { address: this.address, family: this.address.includes(":") ? "IPv6" : "IPv4", port: 40000 };
    }
  }

  // `Host: localhost` is what any client can send: without authentication, a worker served on Deno or Bun bound
  // to a public interface answered a remote client that sent it.
  it("without authentication, answers only clients on its own host where the platform says who they are", async () => {
    for (const second of [new DenoInfo("203.0.113.9"), new BunServer("203.0.113.9"), new BunServer("2001:db8::9")]) {
      const worker = createFetchHandler(compileInProcess(SPEC));
      const response = await worker.fetch(discover("http://localhost/mcp"), second);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("only clients on its own host");
    }
    for (const second of [new DenoInfo("127.0.0.1"), new BunServer("::1"), new BunServer("::ffff:127.0.0.1")]) {
      const worker = createFetchHandler(compileInProcess(SPEC));
      expect((await worker.fetch(discover("http://localhost/mcp"), second)).status).toBe(200);
    }
    // With a token, or when told to serve without one, a remote client is answered as any other.
    const withTokens = createFetchHandler(compileInProcess(SPEC));
    process.env["KERVANC_AUTH_TOKENS"] = TOKEN;
    try {
      expect(
        (await withTokens.fetch(discover("http://localhost/mcp", TOKEN), new DenoInfo("203.0.113.9"))).status,
      ).toBe(200);
    } finally {
      delete process.env["KERVANC_AUTH_TOKENS"];
    }
  });

  it("refuses to serve a public host without authentication, unless told to", async () => {
    const refusing = createFetchHandler(compileInProcess(SPEC));
    const refused = await startFailure(refusing, discover("https://mcp.example.test/mcp"), {
      KERVANC_ALLOWED_HOSTS: "mcp.example.test",
    });
    expect(refused).toContain("no authentication is configured");
    const insecure = createFetchHandler(compileInProcess(SPEC));
    expect(
      (
        await insecure.fetch(discover("https://mcp.example.test/mcp"), {
          KERVANC_ALLOWED_HOSTS: "mcp.example.test",
          KERVANC_INSECURE_NO_AUTH: "1",
        })
      ).status,
    ).toBe(200);
    // A token no client can send (a blank or a character outside printable ASCII inside it): refused at start, as
    // server.mjs refuses it, rather than configured and never matched.
    for (const tokens of ["with a blank inside-0123456789", "non-ascii-tøken-0123456789"]) {
      const unusable = await startFailure(
        createFetchHandler(compileInProcess(SPEC)),
        discover("https://mcp.example.test/mcp"),
        {
          KERVANC_ALLOWED_HOSTS: "mcp.example.test",
          KERVANC_AUTH_TOKENS: tokens,
        },
      );
      expect(unusable).toContain("not printable ASCII");
    }
    // A KERVANC_AUTH_TOKENS of separators only configures no token: refused the same way, as server.mjs does.
    for (const tokens of [",", " , "]) {
      const empty = await startFailure(
        createFetchHandler(compileInProcess(SPEC)),
        discover("https://mcp.example.test/mcp"),
        {
          KERVANC_ALLOWED_HOSTS: "mcp.example.test",
          KERVANC_AUTH_TOKENS: tokens,
        },
      );
      expect(empty).toContain("no authentication is configured");
    }
    // Loopback needs no authentication, as with server.mjs.
    expect((await createFetchHandler(compileInProcess(SPEC)).fetch(discover("http://localhost/mcp"), {})).status).toBe(
      200,
    );
  });
});
