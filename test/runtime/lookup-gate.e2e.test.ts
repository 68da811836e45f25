/**
 * The DNS lookup gate under a burst (issue 13, observation a): 200 parallel calls to a `localhost` upstream
 * through the real runner and Node transport all succeed, because callers for one name share one lookup
 * instead of queueing 200 lookups behind two slots. The resolver is the real `dns.promises.lookup`, slowed by
 * a fixed pause to stand in for busy cores (the pause makes the old queue outlast the hop timeout; no
 * assertion here is about time).
 */
import dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowPrivateNetwork, createNetworkPolicy } from "../../packages/runtime/src/net/address.ts";
import { LookupGate, LookupWaitAborted } from "../../packages/runtime/src/net/lookup-gate.ts";
import { createNodeTransport } from "../../packages/runtime/src/net/node-transport.ts";
import { ToolRunner } from "../../packages/runtime/src/call/runner.ts";
import { envSecrets, SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
import { compileInProcess } from "../helpers/inprocess.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((_req, res) => json(res, 200, { ok: true }), { hostname: "localhost" });
});

afterAll(async () => {
  await upstream?.close();
});

describe("200 parallel calls to one host name", () => {
  it("all succeed, sharing lookups", { timeout: 60_000 }, async () => {
    const spec = `
specVersion: 1
name: burst
version: "1.0.0"
tools:
  - name: ping
    description: one call
    http: { url: "${upstream.origin}/ping", allowInsecureHttp: true, timeoutMs: 1000 }
    rateLimit: { perMinute: 1000, concurrency: 1000 }
    output: { select: ok }
`;
    let lookups = 0;
    const runner = new ToolRunner(compileInProcess(spec), {
      transport: createNodeTransport({
        policy: createNetworkPolicy(allowPrivateNetwork()),
        gate: new LookupGate(2),
        resolve: async (name) => {
          lookups++;
          await new Promise((resolve) => setTimeout(resolve, 50));
          return dns.promises.lookup(name, { all: true, verbatim: true });
        },
      }),
      secretSource: envSecrets({}),
      vault: new SecretVault(),
      allowSecretsOverHttp: false,
      log: () => {},
    });
    const results = await Promise.all(
      Array.from({ length: 200 }, () => runner.call("ping", {}, new AbortController().signal)),
    );
    const failures = results.filter((r) => r.isError).map((r) => (r.content[0] as { text: string }).text);
    console.log(`200 parallel calls: ${failures.length} failed, ${lookups} DNS lookups`);
    expect(failures).toEqual([]);
    expect(lookups).toBeLessThan(200);
  });
});

describe("LookupGate.lookup", () => {
  it("shares one lookup among callers of one name and gives each the answer", async () => {
    const gate = new LookupGate(1);
    let calls = 0;
    let finish!: (v: string[]) => void;
    const resolve = (): Promise<string[]> => {
      calls++;
      return new Promise((r) => (finish = r));
    };
    const signal = new AbortController().signal;
    const all = Promise.all([gate.lookup("a.test", resolve, signal), gate.lookup("a.test", resolve, signal)]);
    await Promise.resolve();
    finish(["1.2.3.4"]);
    expect(await all).toEqual([["1.2.3.4"], ["1.2.3.4"]]);
    expect(calls).toBe(1);
    // Nothing is cached: the next caller looks up again.
    const again = gate.lookup("a.test", resolve, signal);
    await Promise.resolve();
    await Promise.resolve();
    finish(["5.6.7.8"]);
    expect(await again).toEqual(["5.6.7.8"]);
    expect(calls).toBe(2);
  });

  it("queues past its slots; a waiter that gives up leaves the queue and the others still get answers", async () => {
    const gate = new LookupGate(1);
    const pending = new Map<string, (v: string) => void>();
    const resolve = (name: string): Promise<string> => new Promise((r) => pending.set(name, r));
    const never = new AbortController().signal;
    const first = gate.lookup("one.test", resolve, never);
    const leaving = new AbortController();
    const gaveUp = gate.lookup("two.test", resolve, leaving.signal);
    const third = gate.lookup("three.test", resolve, never);
    await Promise.resolve();
    expect(gate.active).toBe(1);
    expect(gate.waiting).toBe(2);
    leaving.abort(new DOMException("late", "TimeoutError"));
    await expect(gaveUp).rejects.toBeInstanceOf(LookupWaitAborted);
    expect(gate.waiting).toBe(1);
    pending.get("one.test")!("1");
    expect(await first).toBe("1");
    await new Promise((r) => setImmediate(r));
    expect(pending.has("two.test")).toBe(false);
    pending.get("three.test")!("3");
    expect(await third).toBe("3");
    expect(gate.active).toBe(0);
  });
});
