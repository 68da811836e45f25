/**
 * Who counts as one client for --client-rate-limit, against the bundle as a process behind a trusted proxy
 * (--trust-proxy 127.0.0.0/8, the test playing the proxy and writing X-Forwarded-For): a client that holds an
 * IPv6 network must not get a fresh limit per address (one host is routinely given a whole /64, 2^64 addresses),
 * and one address must not become two clients by being spelled two ways (IPv4 and IPv4-mapped IPv6). Both for
 * requests served without authentication and for failed attempts at a token, which are held to the address.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postStatus, startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, getThingSpec, removeDir } from "../helpers/kervanc.ts";

const TOKEN = "client-limit-token-0123456789";

let root: string;
let serverPath: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ({ root, serverPath } = await buildOneSpec("client-limit", "limited.yaml", getThingSpec("limited")));
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  if (root) await removeDir(root);
});

async function serve(args: string[], env: Record<string, string> = {}): Promise<string> {
  const started = await startHttpServer(serverPath, ["--trust-proxy", "127.0.0.0/8", ...args], env);
  children.push(started.child);
  return started.url;
}

/** The status of an initialize sent as from `forwardedFor` (a proxy at 127.0.0.1 appending the client). */
function post(url: string, forwardedFor: string, bearer?: string): Promise<number> {
  return postStatus(
    url,
    {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-forwarded-for": forwardedFor,
      ...(bearer !== undefined ? { authorization: `Bearer ${bearer}` } : {}),
    },
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  );
}

describe("one client for the per-client limit", () => {
  it("is an IPv6 /64, not each address in it", async () => {
    const url = await serve(["--client-rate-limit", "2"]);
    expect(await post(url, "2001:db8:1:2::1")).toBe(200);
    expect(await post(url, "2001:db8:1:2::2")).toBe(200);
    // A third address of the same /64, spelled otherwise: the same client, over its limit.
    expect(await post(url, "2001:DB8:1:2:ffff:ffff:ffff:3")).toBe(429);
    // The next /64 is another client.
    expect(await post(url, "2001:db8:1:3::1")).toBe(200);
  });

  it("is one IPv4 address however it is written", async () => {
    const url = await serve(["--client-rate-limit", "1"]);
    expect(await post(url, "203.0.113.7")).toBe(200);
    expect(await post(url, "::ffff:203.0.113.7")).toBe(429);
    expect(await post(url, "::ffff:cb00:7107")).toBe(429);
    expect(await post(url, "203.0.113.8")).toBe(200);
  });

  it("is the /64 for failed attempts at a token too", async () => {
    const url = await serve(["--client-rate-limit", "2"], { KERVANC_AUTH_TOKENS: TOKEN });
    expect(await post(url, "2001:db8:9:9::1", "guess-aaaaaaaaaaaaaaaaaaaa")).toBe(401);
    expect(await post(url, "2001:db8:9:9::2", "guess-bbbbbbbbbbbbbbbbbbbb")).toBe(401);
    // Guessing on from a third address of the /64 is held to the limit.
    expect(await post(url, "2001:db8:9:9::3", "guess-cccccccccccccccccccc")).toBe(429);
    // The /64 has spent its failed attempts: even the valid token waits out the minute from there (see
    // docs/runtime.md), and is served from another /64.
    expect(await post(url, "2001:db8:9:9::4", TOKEN)).toBe(429);
    expect(await post(url, "2001:db8:9:a::4", TOKEN)).toBe(200);
  });
});
