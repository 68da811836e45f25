/**
 * The Node hop's response (net/node-hop.ts), on real responses from a server on 127.0.0.1: its headers as the
 * hop reads them, and its body reader (`readAll`): the cap counted on the wire, a reset, and a response that was
 * destroyed before anyone read it (which must reject at once: no event would ever come to settle it).
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
    } else if (req.url === "/headers") {
      // Raw header lines, repeated and in mixed case, as an upstream may send them.
      res.writeHead(200, [
        ["Content-Type", "application/json"],
        ["X-Twice", "one"],
        ["x-twice", "two"],
        ["Set-Cookie", "a=1"],
        ["set-cookie", "b=2"],
        ["Content-Encoding", "gzip"],
      ]);
      res.end();
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

describe("the response's headers", () => {
  it("are read by lower-cased name, repeated ones joined with a comma, and nothing else is a header", async () => {
    const res = await get("/headers");
    const headers = toHopResponse(res).headers;
    res.resume();
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("content-encoding")).toBe("gzip");
    expect(headers.get("x-twice")).toBe("one, two");
    expect(headers.get("set-cookie")).toBe("a=1, b=2");
    // What the object holding the headers inherits is not a header.
    for (const name of ["location", "content-length-x", "constructor", "__proto__", "toString", "hasOwnProperty"])
      expect(headers.get(name), name).toBeUndefined();
  });
});

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
