/**
 * Security round 2, finding 5: the development relaxation lets secrets travel over plain http to loopback only,
 * judged by the address a connection resolves to, not by the name. `call`/`dev`/`test` accept a spec's
 * `http://mock.localhost` by name at build time; glibc's usual `hosts: files dns` asks DNS for that name, and the
 * secret used to go in clear to whatever address came back. The server now runs with
 * --allow-insecure-secrets-to-loopback (devloop/relax.ts), and the transport sends such a hop only on a new, direct
 * connection to addresses it resolved and found loopback.
 *
 * The name's resolution is the test's own (the transport's resolver is injectable). No connection is ever made to
 * the non-loopback address it returns: the transport refuses before connecting, and were that broken, the pooled
 * agent the test hands in records the attempt instead of connecting (so the test fails, and sends nothing).
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { defineServer } from "../../packages/runtime/src/define.ts";
import { allowPrivateNetwork, createNetworkPolicy } from "../../packages/runtime/src/net/address.ts";
import { LookupGate } from "../../packages/runtime/src/net/lookup-gate.ts";
import { createNodeTransport } from "../../packages/runtime/src/net/node-transport.ts";
import type { ConnectionPool } from "../../packages/runtime/src/net/pool.ts";
import type { CompiledValidator } from "../../packages/runtime/src/plan.ts";
import { ToolRunner } from "../../packages/runtime/src/call/runner.ts";
import { envSecrets, SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const SECRET = "dev-secret-value-0123456789";
let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => json(res, 200, { auth: req.headers["authorization"] ?? null }));
});
afterAll(async () => {
  await upstream?.close();
});

function runner(resolvesTo: string, attempts: string[]): ToolRunner {
  const text = `specVersion: 1
name: mock
version: "1.0.0"
secrets: [API_KEY]
tools:
  - name: get
    description: Get.
    http:
      url: "http://mock.localhost:${upstream.port}/thing"
      headers: { Authorization: "Bearer {{secrets.API_KEY}}" }
    output: { select: "@" }
`;
  // The build's development relaxation: plain http to a loopback *name* passes.
  const planned = compileSpec("mock.yaml", new TextEncoder().encode(text), { devLoopbackHttp: true }).planned!;
  const server = defineServer(
    planned.plan,
    planned.tools.map((t) => ({
      plan: t.plan,
      validateInput: t.input.validate as unknown as CompiledValidator,
      validateOutput: null,
    })),
  );
  // Any connection made through the pool is recorded and never opened.
  const spy = new http.Agent();
  spy.createConnection = ((options: { host?: string }) => {
    attempts.push(String(options.host));
    throw new Error("the test's pool opens no connection");
  }) as never;
  const pool = { agent: () => spy } as unknown as ConnectionPool;
  return new ToolRunner(server, {
    transport: createNodeTransport({
      policy: createNetworkPolicy(allowPrivateNetwork()),
      gate: new LookupGate(2),
      resolve: async () => [{ address: resolvesTo, family: 4 }],
      pool,
    }),
    secretSource: envSecrets({ API_KEY: SECRET }),
    vault: new SecretVault(),
    allowSecretsOverHttp: "loopback",
    log: () => {},
  });
}

describe("secrets over plain http in the development relaxation", () => {
  it("are not sent when the name resolves to an address that is not loopback", async () => {
    const attempts: string[] = [];
    const r = runner("10.20.30.40", attempts);
    r.prepareSecrets();
    const before = upstream.requests.length;
    const result = await r.call("get", {}, new AbortController().signal);
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(
      "was not sent: secrets travel over plain http only to loopback addresses here, and it resolves to an address that is not loopback",
    );
    expect(attempts).toEqual([]);
    expect(upstream.requests.length).toBe(before);
  });

  it("are sent when it resolves to loopback, on a connection of its own", async () => {
    const attempts: string[] = [];
    const r = runner("127.0.0.1", attempts);
    r.prepareSecrets();
    const before = upstream.requests.length;
    const result = await r.call("get", {}, new AbortController().signal);
    expect(result.isError ?? false).toBe(false);
    // The upstream got the secret (the result shows it redacted, as always).
    expect(upstream.requests[before]!.headers["authorization"]).toBe(`Bearer ${SECRET}`);
    // Not through the pool: a pooled connection was checked for what it was opened for.
    expect(attempts).toEqual([]);
  });
});
