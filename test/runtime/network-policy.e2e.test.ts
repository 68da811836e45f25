/**
 * The address policy as the transport applies it (docs/runtime.md, "The network policy"): every hop resolved once, every answer
 * checked, the connection pinned to the checked addresses, metadata refused in every spelling even when private
 * networks are allowed.
 */
import net, { type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowPrivateNetwork, createNetworkPolicy } from "../../packages/runtime/src/net/address.ts";
import { LookupGate } from "../../packages/runtime/src/net/lookup-gate.ts";
import { createNodeTransport } from "../../packages/runtime/src/net/node-transport.ts";
import { inProcess } from "../helpers/inprocess.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => json(res, 200, { path: req.path, host: req.headers.host }));
});
afterAll(async () => {
  await upstream.close();
});

function toolAt(url: string): string {
  return `
specVersion: 1
name: policy
version: "1"
tools:
  - name: t
    description: t
    http: { url: "${url}", allowInsecureHttp: true }
    output: { select: "@" }
`;
}

async function callAt(
  url: string,
  policy = allowPrivateNetwork() as Parameters<typeof createNetworkPolicy>[0],
): Promise<string> {
  const server = inProcess(toolAt(url), { policy: policy ?? {} });
  const before = upstream.requests.length;
  const result = await server.call("t", {});
  const text = result.content?.[0]?.text ?? "";
  if (result.isError) expect(upstream.requests.length).toBe(before);
  return result.isError ? `error: ${text}` : text;
}

describe("the transport's address policy", () => {
  it("reaches loopback only when private networks are allowed", async () => {
    expect(await callAt(`${upstream.origin}/ok`)).toContain('"path":"/ok"');
    const blocked = await callAt(`${upstream.origin}/ok`, { localAddresses: [] });
    expect(blocked).toBe(
      `error: Request to 127.0.0.1:${upstream.port} was blocked: it resolves to a disallowed address (loopback address).`,
    );
  });

  it("resolves host names and checks every answer", async () => {
    expect(await callAt(`http://localhost:${upstream.port}/name`)).toContain('"path":"/name"');
    expect(await callAt(`http://localhost:${upstream.port}/name`, { localAddresses: [] })).toMatch(
      new RegExp(
        `^error: Request to localhost:${upstream.port} was blocked: it resolves to a disallowed address \\(loopback address\\)\\.$`,
      ),
    );
  });

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://0xa9fea9fe/",
    "http://2852039166/",
    "http://0251.0376.0251.0376/",
    "http://169.254.169.254./",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:a9fe:a9fe::]/",
    "http://[fd00:ec2::254]/",
    "http://[fd20:ce::254]/computeMetadata/v1/",
    "http://[fd00:a9fe:a9fe::1]/v1/token",
    "http://[fd00:42::42]/conf",
    "http://100.100.100.200/",
    "http://168.63.129.16/",
    "http://192.0.0.192/",
  ])("refuses cloud metadata at %s even with private networks allowed", async (url) => {
    expect(await callAt(url)).toMatch(
      /^error: Request to .+ was blocked: it resolves to a disallowed address \(cloud metadata address\)\.$/,
    );
  });

  it("applies the deny list to every spelling", async () => {
    const policy = { ...allowPrivateNetwork(), denyList: ["127.0.0.0/8"] };
    expect(await callAt(`${upstream.origin}/x`, policy)).toBe(
      `error: Request to 127.0.0.1:${upstream.port} was blocked: it resolves to a disallowed address (address on the deny list).`,
    );
    expect(await callAt(`http://[::ffff:127.0.0.1]:${upstream.port}/x`, policy)).toMatch(
      /\(address on the deny list\)\.$/,
    );
  });

  it("refuses 0.0.0.0 and :: before connecting where the deny list keeps loopback out (they connect to it)", async () => {
    const accepted: Socket[] = [];
    const listener = net.createServer((socket) => accepted.push(socket.end()));
    await new Promise<void>((done) => listener.listen(0, "127.0.0.1", done));
    const port = (listener.address() as AddressInfo).port;
    try {
      const transport = createNodeTransport({
        policy: createNetworkPolicy({ ...allowPrivateNetwork(), denyList: ["127.0.0.0/8", "::1/128"] }),
        gate: new LookupGate(2),
        resolve: async () => [{ address: "0.0.0.0", family: 4 }],
      });
      for (const host of ["0.0.0.0", "[::ffff:0.0.0.0]", "zero.example.test"]) {
        const hop = { method: "GET", url: new URL(`http://${host}:${port}/x`), headers: [], body: null };
        await expect(
          transport.send(hop, { signal: AbortSignal.timeout(5000), sendsSecrets: false }),
          host,
        ).rejects.toThrow("it resolves to a disallowed address (address on the deny list)");
      }
      // Refused before a connection was opened, not after the socket's address failed to match.
      expect(accepted.length).toBe(0);
    } finally {
      await new Promise((done) => listener.close(done));
    }
  });

  it("refuses a name that resolves to nothing usable", async () => {
    expect(await callAt("http://no-such-host.invalid/x")).toBe(
      "error: Request to no-such-host.invalid was blocked: the host name could not be resolved.",
    );
  });
});

describe("DNS pinning", () => {
  const hop = (url: string) => ({ method: "GET", url: new URL(url), headers: [] as [string, string][], body: null });

  it("resolves once per hop and connects only to the checked address", async () => {
    const lookups: string[] = [];
    const transport = createNodeTransport({
      policy: createNetworkPolicy(allowPrivateNetwork()),
      gate: new LookupGate(2),
      resolve: async (name) => {
        lookups.push(name);
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    const response = await transport.send(hop(`http://api.example.test:${upstream.port}/pinned`), {
      signal: AbortSignal.timeout(5000),
      sendsSecrets: false,
    });
    expect(response.status).toBe(200);
    response.discard();
    expect(lookups).toEqual(["api.example.test"]);
    expect(upstream.requests.at(-1)?.headers.host).toBe(`api.example.test:${upstream.port}`);
  });

  it("checks the socket's address on connect, before the request is written", async () => {
    // Allowed under allow-all, 0.0.0.0 connects to 127.0.0.1: an address that was not the one checked.
    const received: Buffer[] = [];
    const listener = net.createServer((socket) => socket.on("data", (chunk: Buffer) => received.push(chunk)));
    await new Promise<void>((done) => listener.listen(0, "127.0.0.1", done));
    const port = (listener.address() as AddressInfo).port;
    try {
      for (const pool of [undefined, false as const]) {
        const transport = createNodeTransport({
          policy: createNetworkPolicy(allowPrivateNetwork()),
          gate: new LookupGate(2),
          ...(pool === false ? { pool } : {}),
        });
        await expect(
          transport.send(hop(`http://0.0.0.0:${port}/x`), { signal: AbortSignal.timeout(5000), sendsSecrets: false }),
        ).rejects.toThrow(`Request to 0.0.0.0:${port} was blocked: it connected to an unchecked address.`);
      }
      expect(Buffer.concat(received).length).toBe(0);
    } finally {
      await new Promise((done) => listener.close(done));
    }
  });

  it("refuses the whole request when one answer is internal", async () => {
    const transport = createNodeTransport({
      policy: createNetworkPolicy({ localAddresses: [] }),
      gate: new LookupGate(2),
      resolve: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "10.0.0.1", family: 4 },
      ],
    });
    await expect(
      transport.send(hop("http://mixed.example.test/"), { signal: AbortSignal.timeout(5000), sendsSecrets: false }),
    ).rejects.toThrow(
      "Request to mixed.example.test was blocked: it resolves to a disallowed address (private address).",
    );
  });

  it("refuses empty answers", async () => {
    const transport = createNodeTransport({
      policy: createNetworkPolicy({}),
      gate: new LookupGate(1),
      resolve: async () => [],
    });
    await expect(
      transport.send(hop("http://empty.example.test/"), { signal: AbortSignal.timeout(5000), sendsSecrets: false }),
    ).rejects.toThrow("Request to empty.example.test was blocked: the host name resolved to no addresses.");
  });

  it("bounds the lookup by the hop's timeout", async () => {
    const transport = createNodeTransport({
      policy: createNetworkPolicy({}),
      gate: new LookupGate(1),
      resolve: () => new Promise(() => {}),
    });
    await expect(
      transport.send(hop("http://slow-dns.example.test/"), { signal: AbortSignal.timeout(200), sendsSecrets: false }),
    ).rejects.toThrow("Request to slow-dns.example.test timed out while resolving the host name.");
  });
});
