/**
 * worker.mjs on self-hosted workerd without authentication answers only clients on its own host, as it does on
 * Deno and Bun. workerd gives the connection's address in `request.cf.clientIp`; the handler read only Deno's
 * and Bun's forms, so a workerd whose socket an operator opened to the network served /mcp to any client that
 * sent `Host: localhost`. The test cannot connect from another address (everything here is on 127.0.0.1), so the
 * package's own workerd.capnp is changed only to read the cf object from a header (`cfBlobHeader`, what a proxy
 * in front of workerd uses to pass it on), and the header names the client.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOneSpec, getThingSpec, removeDir } from "../helpers/kervanc.ts";
import { freePort, runtimeBinary, type Service, startService } from "../helpers/runtimes.ts";

const CF_HEADER = "x-test-cf";
let root: string;
let service: Service;

beforeAll(async () => {
  const built = await buildOneSpec("workerd-peer", "peer.yaml", getThingSpec("peer"));
  root = built.root;
  const pkg = built.packageDir;
  const port = await freePort();
  let config = await readFile(join(pkg, "workerd.capnp"), "utf8");
  for (const [from, to] of [
    [`address = "127.0.0.1:3000", http = ()`, `address = "127.0.0.1:${port}", http = (cfBlobHeader = "${CF_HEADER}")`],
  ] as const) {
    expect(config, `the sample configuration has ${from}`).toContain(from);
    config = config.replace(from, to);
  }
  await writeFile(join(pkg, "test.capnp"), config);
  service = await startService(runtimeBinary("workerd"), ["serve", "test.capnp"], { cwd: pkg, port });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  if (root) await removeDir(root);
});

/** A discover request as the client at `clientIp` (workerd's `address:port` form). */
async function discoverFrom(clientIp: string): Promise<{ status: number; text: string }> {
  const response = await fetch(service.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
      [CF_HEADER]: JSON.stringify({ clientIp }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return { status: response.status, text: await response.text() };
}

describe("workerd serving worker.mjs without authentication", () => {
  it("refuses a client on another host, whatever Host it sends", async () => {
    for (const client of ["203.0.113.9:40000", "[2001:db8::9]:40000"]) {
      const answer = await discoverFrom(client);
      expect(answer.status, client).toBe(403);
      expect(answer.text).toContain("only clients on its own host");
    }
  });

  it("answers a client on its own host", async () => {
    for (const client of ["127.0.0.1:40000", "[::1]:40000"]) {
      expect((await discoverFrom(client)).status, client).toBe(200);
    }
  });
});
