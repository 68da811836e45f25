/**
 * The request body the Node adapter reads itself (issue 20): http-handler.ts gives the SDK a JSON body already
 * parsed (`parsedBody`) instead of a web body to clone and read back. Every answer must be the one the SDK gives
 * when it reads the body from the Request itself, which is how Workers, Deno and Bun are served: the same
 * handler, the real SDK, a compiled tool and its upstream on 127.0.0.1, each request sent both ways.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandler, parsedJsonBody } from "../../packages/runtime/src/serve/http-handler.ts";
import { createServerFactory } from "../../packages/runtime/src/serve/mcp.ts";
import { compileInProcess, inProcess } from "../helpers/inprocess.ts";
import { MODERN_META } from "../helpers/mcp-http.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const URL_ = "http://127.0.0.1/mcp";
const MODERN = {
  host: "127.0.0.1",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
};
const LEGACY = { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream" };

let upstream: Upstream;
let handler: HttpHandler;

beforeAll(async () => {
  upstream = await startUpstream((req, res) => json(res, 200, { seen: req.query }));
  const spec = `
specVersion: 1
name: body-check
version: "1.0.0"
defaults:
  http: { allowInsecureHttp: true }
tools:
  - name: lookup
    description: Looks a thing up.
    input:
      type: object
      properties:
        q: { type: string, maxLength: 20 }
      required: [q]
      additionalProperties: false
    http:
      url: ${upstream.origin}/things
      query: { q: "{{input.q}}" }
    output: { select: "seen" }
`;
  const { runner } = inProcess(spec);
  handler = createHttpHandler(createServerFactory(compileInProcess(spec), runner), { onerror: () => {} });
});

afterAll(async () => {
  await handler?.close();
  await upstream?.close();
});

const call = (args: unknown, id: unknown = 1): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "lookup", arguments: args, _meta: MODERN_META },
  });
const callHeaders = { ...MODERN, "mcp-method": "tools/call", "mcp-name": "lookup" };
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

interface Case {
  readonly what: string;
  readonly method?: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  /** What the SDK answers: the cases reach the tool, its refusals, and the SDK's own refusals. */
  readonly status: number;
}

const legacy = { ...LEGACY, "mcp-protocol-version": "2025-11-25" };
const rpc = (value: unknown): Uint8Array => bytes(JSON.stringify(value));
const protoArguments = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{"q":"a","__proto__":{"q":"b"}},"_meta":${JSON.stringify(MODERN_META)}}}`;

const CASES: Case[] = [
  { what: "a 2026-07-28 tools/call", headers: callHeaders, body: bytes(call({ q: "tea" })), status: 200 },
  { what: "arguments the schema refuses", headers: callHeaders, body: bytes(call({ q: "x".repeat(30) })), status: 200 },
  { what: "a __proto__ key among the arguments", headers: callHeaders, body: bytes(protoArguments), status: 200 },
  { what: "a UTF-8 byte-order mark", headers: callHeaders, body: bytes(`\uFEFF${call({ q: "bom" })}`), status: 200 },
  {
    what: "malformed UTF-8 inside a string",
    headers: callHeaders,
    body: bytes(call({ q: "a~b" })).map((byte) => (byte === 0x7e ? 0xff : byte)),
    status: 200,
  },
  {
    what: "MCP headers that disagree",
    headers: { ...callHeaders, "mcp-name": "x" },
    body: bytes(call({})),
    status: 400,
  },
  {
    what: "a 2025-11-25 initialize",
    headers: LEGACY,
    body: rpc({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
    status: 200,
  },
  {
    what: "a 2025-11-25 tools/call",
    headers: legacy,
    body: rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "lookup", arguments: { q: "old" } } }),
    status: 200,
  },
  {
    what: "a 2025-11-25 batch",
    headers: legacy,
    body: rpc([
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { jsonrpc: "2.0", id: 5, method: "ping" },
    ]),
    status: 200,
  },
  {
    what: "a notification",
    headers: legacy,
    body: rpc({ jsonrpc: "2.0", method: "notifications/initialized" }),
    status: 202,
  },
  { what: "invalid JSON", headers: callHeaders, body: bytes("{bad"), status: 400 },
  { what: "an empty body", headers: callHeaders, body: new Uint8Array(0), status: 400 },
  { what: "only whitespace", headers: callHeaders, body: bytes("  \n"), status: 400 },
  { what: "JSON null", headers: callHeaders, body: bytes("null"), status: 400 },
  { what: "a JSON string", headers: callHeaders, body: bytes('"tools/call"'), status: 400 },
  {
    what: "a text/plain body",
    headers: { ...callHeaders, "content-type": "text/plain" },
    body: bytes(call({ q: "a" })),
    status: 415,
  },
  {
    what: "a JSON content type with parameters",
    headers: { ...callHeaders, "content-type": "application/json; charset=utf-8" },
    body: bytes(call({ q: "cs" })),
    status: 200,
  },
  {
    what: "a body over the SDK's 4 MiB cap",
    headers: callHeaders,
    body: bytes(call({ q: "a", pad: "x".repeat(4 * 1024 * 1024) })),
    status: 413,
  },
  { what: "a DELETE with a body", method: "DELETE", headers: callHeaders, body: bytes(call({ q: "a" })), status: 405 },
  { what: "a PUT with a body", method: "PUT", headers: callHeaders, body: bytes(call({ q: "a" })), status: 405 },
];

async function answer(response: Response): Promise<{ status: number; headers: [string, string][]; text: string }> {
  return { status: response.status, headers: [...response.headers], text: await response.text() };
}

describe("a compressed request body", () => {
  it("is refused with 415 before it is read, and never reaches the tool", async () => {
    const before = upstream.requests.length;
    for (const coding of ["gzip", "br", "deflate", "gzip, identity", "x-anything"]) {
      let read = false;
      const response = await handler.fetch(
        new Request(URL_, { method: "POST", headers: { ...callHeaders, "content-encoding": coding } }),
        {
          clientAddress: "c",
          body: async () => {
            read = true;
            return bytes(call({ q: "gz" }));
          },
        },
      );
      expect(response.status, coding).toBe(415);
      expect(response.headers.get("accept-encoding")).toBe("identity");
      expect(await response.text()).toBe(
        "Content-Encoding is not supported here: send the request body uncompressed.\n",
      );
      expect(read, coding).toBe(false);
    }
    expect(upstream.requests.length).toBe(before);
  });

  it("is served when its coding is identity (or names none)", async () => {
    for (const coding of ["identity", "IDENTITY", "", " identity "]) {
      const response = await handler.fetch(
        new Request(URL_, { method: "POST", headers: { ...callHeaders, "content-encoding": coding } }),
        { clientAddress: "d", body: async () => bytes(call({ q: "plain" })) },
      );
      expect(response.status, JSON.stringify(coding)).toBe(200);
      expect(await response.text()).toContain("plain");
    }
  });
});

describe("a body handed beside the Request", () => {
  for (const c of CASES) {
    it(`is answered as the SDK answers it in the Request: ${c.what}`, async () => {
      const method = c.method ?? "POST";
      const inRequest = await answer(
        await handler.fetch(new Request(URL_, { method, headers: c.headers, body: c.body }), { clientAddress: "a" }),
      );
      const beside = await answer(
        await handler.fetch(new Request(URL_, { method, headers: c.headers }), {
          clientAddress: "b",
          body: async () => c.body,
        }),
      );
      expect(inRequest.status).toBe(c.status);
      expect(beside).toEqual(inRequest);
      console.log(c.what, inRequest.status, inRequest.text.slice(0, 150));
    });
  }

  it("is parsed for the SDK only when the SDK would parse it, to the value it would parse", () => {
    const parsed = (c: Case): unknown =>
      parsedJsonBody(new Request(URL_, { method: c.method ?? "POST", headers: c.headers }), c.body);
    const byWhat = new Map(CASES.map((c) => [c.what, c]));
    const unparsed = parsed(byWhat.get("invalid JSON")!);
    expect(parsed(byWhat.get("a 2026-07-28 tools/call")!)).toEqual(JSON.parse(call({ q: "tea" })));
    expect(parsed(byWhat.get("a UTF-8 byte-order mark")!)).toEqual(JSON.parse(call({ q: "bom" })));
    expect(parsed(byWhat.get("JSON null")!)).toBeNull();
    const proto = parsed(byWhat.get("a __proto__ key among the arguments")!) as {
      params: { arguments: Record<string, unknown> };
    };
    expect(Object.getPrototypeOf(proto.params.arguments)).toBe(Object.prototype);
    expect(Object.keys(proto.params.arguments)).toEqual(["q", "__proto__"]);
    for (const what of [
      "an empty body",
      "only whitespace",
      "a text/plain body",
      "a body over the SDK's 4 MiB cap",
      "a DELETE with a body",
      "a PUT with a body",
    ])
      expect(parsed(byWhat.get(what)!), what).toBe(unparsed);
  });
});
