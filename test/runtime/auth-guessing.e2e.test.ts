/**
 * Failed credentials and the per-client limit (http-handler.ts): an address that spent its limit on failed
 * attempts is answered 429 without any credential being checked, the right one included, until its minute is
 * over. Were the right token answered 200, every wrong guess's 429 would only mean "wrong", and guessing would go
 * on at full speed; and each attempt would still cost a signature check (an OAuth server's most expensive step).
 */
import { describe, expect, it } from "vitest";
import type { Authenticator } from "../../packages/runtime/src/serve/auth.ts";
import { createHttpHandler } from "../../packages/runtime/src/serve/http-handler.ts";
import { createServerFactory } from "../../packages/runtime/src/serve/mcp.ts";
import { ClientRateLimit } from "../../packages/runtime/src/serve/rate-limit.ts";
import { compileInProcess, inProcess } from "../helpers/inprocess.ts";

const SPEC = `
specVersion: 1
name: guessing
version: "1.0.0"
tools:
  - name: ping
    description: Pings.
    http: { url: "https://api.example.com/ping" }
    output: { raw: true }
`;
const RIGHT = "right-token-0123456789";

/** A static-token authenticator that counts the credentials it was asked to check. */
function countingAuth(): Authenticator & { checked: number } {
  const auth = {
    mode: "tokens" as const,
    metadataPaths: [],
    metadata: () => new Response(null, { status: 404 }),
    checked: 0,
    async check(request: Request) {
      auth.checked++;
      return request.headers.get("authorization") === `Bearer ${RIGHT}`
        ? { ok: true as const, subject: "token:right" }
        : { ok: false as const, response: new Response("Unauthorized.\n", { status: 401 }) };
    },
  };
  return auth;
}

const list = (token: string): Request =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      host: "127.0.0.1",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });

describe("failed credentials against the per-client limit", () => {
  it("lock the address out, the right token included, without checking any credential", async () => {
    const auth = countingAuth();
    const { runner } = inProcess(SPEC);
    const handler = createHttpHandler(createServerFactory(compileInProcess(SPEC), runner), {
      onerror: () => {},
      auth,
      clientLimit: new ClientRateLimit(3),
    });
    try {
      const from = { clientAddress: "192.0.2.7" };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await handler.fetch(list(`wrong-${i}-0123456789`), from)).status);
      expect(statuses).toEqual([401, 401, 401]);
      expect(auth.checked).toBe(3);
      const guess = await handler.fetch(list("wrong-3-0123456789"), from);
      const right = await handler.fetch(list(RIGHT), from);
      expect([guess.status, right.status]).toEqual([429, 429]);
      expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
      // Neither was checked: the address was over its limit before its credential was looked at.
      expect(auth.checked).toBe(3);
      // Another address is not affected, and its right token is served.
      const elsewhere = await handler.fetch(list(RIGHT), { clientAddress: "192.0.2.8" });
      expect(elsewhere.status).toBe(200);
      expect(auth.checked).toBe(4);
    } finally {
      await handler.close();
    }
  });

  it("waiting() says how long a full window lasts and counts nothing", () => {
    const limit = new ClientRateLimit(2);
    expect(limit.waiting("a", 0)).toBe(0);
    expect(limit.size).toBe(0);
    limit.take("a", 0);
    expect(limit.waiting("a", 1_000)).toBe(0);
    limit.take("a", 1_000);
    expect(limit.waiting("a", 30_000)).toBe(30);
    expect(limit.waiting("a", 30_000)).toBe(30);
    // The window ends after 60 s: nothing to wait for, and nothing was counted meanwhile.
    expect(limit.waiting("a", 60_000)).toBe(0);
    expect(limit.take("a", 60_000)).toBe(0);
  });

  it("check at most the limit's number of credentials per address and minute, however many arrive at once", async () => {
    // A check that takes a while, as a signature check against a key set does: every request is in flight at once.
    const auth = countingAuth();
    const check = auth.check.bind(auth);
    auth.check = async (request: Request) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return check(request);
    };
    const { runner } = inProcess(SPEC);
    const handler = createHttpHandler(createServerFactory(compileInProcess(SPEC), runner), {
      onerror: () => {},
      auth,
      clientLimit: new ClientRateLimit(5),
    });
    try {
      const from = { clientAddress: "192.0.2.9" };
      const statuses = await Promise.all(
        Array.from({ length: 600 }, (_, i) => handler.fetch(list(`wrong-${i}-0123456789`), from).then((r) => r.status)),
      );
      // Counted after the check, all 600 were checked (112 to 694 checks in the reported runs).
      expect(auth.checked).toBe(5);
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(595);
    } finally {
      await handler.close();
    }
  });

  it("give a good credential's attempt back, so a client with the right token is never locked out by its own calls", async () => {
    const auth = countingAuth();
    const { runner } = inProcess(SPEC);
    const handler = createHttpHandler(createServerFactory(compileInProcess(SPEC), runner), {
      onerror: () => {},
      auth,
      clientLimit: new ClientRateLimit(3),
    });
    try {
      const from = { clientAddress: "192.0.2.10" };
      // Two wrong guesses, then more good calls than the limit: the good ones count against the subject only.
      for (let i = 0; i < 2; i++) await handler.fetch(list(`wrong-${i}-0123456789`), from);
      const good = [];
      for (let i = 0; i < 3; i++) good.push((await handler.fetch(list(RIGHT), from)).status);
      expect(good).toEqual([200, 200, 200]);
      // The address still has one failed attempt left.
      expect((await handler.fetch(list("wrong-2-0123456789"), from)).status).toBe(401);
      expect((await handler.fetch(list("wrong-3-0123456789"), from)).status).toBe(429);
    } finally {
      await handler.close();
    }
  });
});
