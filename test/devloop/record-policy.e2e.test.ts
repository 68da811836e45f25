/**
 * Security round 2, finding 2: `kervanc call --record`'s relay forwards through the generated server's own
 * transport and address policy (devloop/recorder.ts), so the cloud-metadata address and the other always-refused
 * addresses are refused before any connection, whether named by address or by a name that resolves to one, and
 * nothing is recorded for them. A request that carries one of the call's secrets goes over plain http only to an
 * address found loopback. In process: the relay's real HTTP server on 127.0.0.1, spoken to as the generated
 * server does. Every refused destination is refused before a connection is opened: no traffic leaves loopback.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Recorder } from "../../packages/compiler/src/devloop/recorder.ts";
import { allowPrivateNetwork, createNetworkPolicy } from "../../packages/runtime/src/net/address.ts";
import { LookupGate } from "../../packages/runtime/src/net/lookup-gate.ts";
import { createNodeTransport } from "../../packages/runtime/src/net/node-transport.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const LIMITS = { maxResponseBytes: 10_000 };
let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => json(res, 200, { path: req.path, auth: req.headers["authorization"] }));
});
afterAll(async () => {
  await upstream?.close();
});

/** A GET through the relay, as the generated server sends it: the status and the body text. */
function viaRelay(recorder: Recorder, path: string, headers: http.OutgoingHttpHeaders = {}): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${recorder.origin}${path}`, { headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString("utf8")));
      res.on("end", () => resolve([res.statusCode ?? 0, body]));
    });
    req.on("error", reject);
  });
}

/** The runtime's transport with the relay's policy and a resolver of the test's own. */
const resolvingTo = (address: string) =>
  createNodeTransport({
    policy: createNetworkPolicy(allowPrivateNetwork()),
    gate: new LookupGate(2),
    resolve: async () => [{ address, family: address.includes(":") ? 6 : 4 }],
    pool: false,
  });

describe("the --record relay", () => {
  it.each(["http://169.254.169.254", "http://[fd00:ec2::254]", "http://100.100.100.200"])(
    "refuses the metadata address %s, records nothing and passes back no answer of it",
    async (origin) => {
      const recorder = await Recorder.start(origin, LIMITS);
      try {
        const [status, body] = await viaRelay(recorder, "/latest/meta-data/iam/security-credentials/");
        expect(status).toBe(502);
        expect(body).toContain("was blocked");
        expect(recorder.exchanges).toEqual([]);
        expect(recorder.unfinished).toHaveLength(1);
      } finally {
        await recorder.close();
      }
    },
  );

  it("refuses a name that resolves to the metadata address", async () => {
    const recorder = await Recorder.start("http://metadata.example.test", LIMITS, [], resolvingTo("169.254.169.254"));
    try {
      const [status, body] = await viaRelay(recorder, "/computeMetadata/v1/");
      expect(status).toBe(502);
      expect(body).toContain("it resolves to a disallowed address");
      expect(recorder.exchanges).toEqual([]);
    } finally {
      await recorder.close();
    }
  });

  it("sends a secret over plain http only to an address found loopback", async () => {
    const secret = "recorded-secret-0123456789";
    const origin = `http://mock.localhost:${upstream.port}`;
    const notLoopback = await Recorder.start(origin, LIMITS, [secret], resolvingTo("10.20.30.40"));
    try {
      const before = upstream.requests.length;
      const [status, body] = await viaRelay(notLoopback, "/x", { authorization: `Bearer ${secret}` });
      expect(status).toBe(502);
      expect(body).toContain("secrets travel over plain http only to loopback addresses");
      expect(upstream.requests.length).toBe(before);
    } finally {
      await notLoopback.close();
    }
    const loopback = await Recorder.start(origin, LIMITS, [secret], resolvingTo("127.0.0.1"));
    try {
      const [status, body] = await viaRelay(loopback, "/x", { authorization: `Bearer ${secret}` });
      expect(status).toBe(200);
      expect(JSON.parse(body)).toEqual({ path: "/x", auth: `Bearer ${secret}` });
      expect(loopback.exchanges).toHaveLength(1);
    } finally {
      await loopback.close();
    }
  });

  it("records an allowed answer, decoded, with its headers", async () => {
    const recorder = await Recorder.start(upstream.origin, LIMITS);
    try {
      const [status, body] = await viaRelay(recorder, "/thing?q=1");
      expect(status).toBe(200);
      expect(JSON.parse(body)).toEqual({ path: "/thing" });
      const [exchange] = recorder.exchanges;
      expect(exchange).toMatchObject({ method: "GET", path: "/thing", query: "q=1", status: 200 });
      expect(exchange!.responseHeaders["content-type"]).toContain("application/json");
    } finally {
      await recorder.close();
    }
  });
});
