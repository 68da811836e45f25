/**
 * The Node hop's body reader (net/node-hop.ts `readAll`), on real responses from a server on 127.0.0.1: the
 * cap counted on the wire, a reset, and a response that was destroyed before anyone read it (which must reject
 * at once: no event would ever come to settle it).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHopResponse } from "../../packages/runtime/src/net/node-hop.ts";

let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === "/big") {
      res.writeHead(200);
      res.write(Buffer.alloc(600, 0x61));
      res.end(Buffer.alloc(600, 0x62));
    } else res.end("hello");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(path: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http.get(`${origin}${path}`, { agent: false }, resolve).on("error", reject);
  });
}

const tooLarge = (): Error => new Error("too large");

describe("readAll", () => {
  it("reads a body to its end", async () => {
    const response = toHopResponse(await get("/"));
    expect(new TextDecoder().decode(await response.readAll!(100, tooLarge))).toBe("hello");
  });

  it("refuses a body the moment it passes the cap, and destroys the response", async () => {
    const res = await get("/big");
    await expect(toHopResponse(res).readAll!(1000, tooLarge)).rejects.toThrow("too large");
    expect(res.destroyed).toBe(true);
  });

  it("rejects at once for a response destroyed before it was read", async () => {
    const res = await get("/big");
    res.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(toHopResponse(res).readAll!(10_000, tooLarge)).rejects.toMatchObject({
      code: "ERR_STREAM_PREMATURE_CLOSE",
    });
  });
});
