/**
 * Deeply nested JSON (issue 13, finding 6): arguments and upstream bodies nested past 256 levels get a tool
 * error naming the limit, never an internal error from a stack overflow; 256 levels still work. The real
 * runner and transport in-process, against a real upstream on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonTextNestsDeeper, scanNestsDeeper, valueNestsDeeper } from "../../packages/runtime/src/call/json-depth.ts";
import { inProcess, type InProcess } from "../helpers/inprocess.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
let server: InProcess;
let upstreamBody = "{}";

function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

function spec(origin: string): string {
  return `
specVersion: 1
name: nesting
version: "1.0.0"
tools:
  - name: send
    description: sends the payload in a JSON body
    input: { type: object, properties: { payload: { type: [object, array] } } }
    http:
      method: POST
      url: ${origin}/send
      allowInsecureHttp: true
      body: { data: "{{input.payload}}" }
    output: { select: "length(@)" }
  - name: fetch
    description: selects from the upstream body
    http: { url: "${origin}/fetch", allowInsecureHttp: true }
    output: { select: "@" }
  - name: fetch_structured
    description: selects from the upstream body, structured
    http: { url: "${origin}/fetch", allowInsecureHttp: true }
    output: { select: "{ v: @ }", schema: { type: object } }
`;
}

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    const body = req.path === "/send" ? req.body : upstreamBody;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  });
  server = inProcess(spec(upstream.origin));
});

afterAll(async () => {
  await upstream?.close();
});

describe("arguments", () => {
  it("refuses arguments nested past 256 levels with a tool error naming the limit", async () => {
    for (const levels of [300, 4_900, 9_000]) {
      const result = await server.call("send", { payload: nested(levels) });
      expect(result.isError).toBe(true);
      expect(result.content?.[0]?.text).toBe(
        "Invalid arguments for tool send: arguments are nested more than 256 levels deep, the limit",
      );
    }
    expect(server.logs.join("\n")).not.toMatch(/internal error/i);
  });

  it("sends arguments nested exactly 256 levels (the arguments object is the first)", async () => {
    const payload = nested(255);
    const before = upstream.requests.length;
    const result = await server.call("send", { payload });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(upstream.requests[before]!.body)).toEqual({ data: payload });
    expect((await server.call("send", { payload: nested(256) })).isError).toBe(true);
  });
});

describe("upstream bodies", () => {
  it("refuses upstream JSON nested past 256 levels in select mode with a tool error naming the limit", async () => {
    for (const levels of [258, 5_000, 100_000]) {
      // Written out, not stringified: JSON.stringify itself overflows well before 100,000 levels.
      upstreamBody = `${'{"k":['.repeat(levels / 2)}1${"]}".repeat(levels / 2)}`;
      for (const tool of ["fetch", "fetch_structured"]) {
        const result = await server.call(tool, {});
        expect(result.isError).toBe(true);
        expect(result.content?.[0]?.text).toBe("Upstream returned JSON nested more than 256 levels deep, the limit.");
      }
    }
    expect(server.logs.join("\n")).not.toMatch(/internal error/i);
  });

  it("serves upstream JSON nested 256 levels, and brackets inside strings do not count", async () => {
    upstreamBody = JSON.stringify(nested(256));
    const result = await server.call("fetch", {});
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content![0]!.text!)).toEqual(nested(256));
    upstreamBody = JSON.stringify({ s: "[{".repeat(10_000), t: '\\"[[[' });
    expect((await server.call("fetch", {})).isError).toBeUndefined();
  });
});

describe("the depth checks", () => {
  it("count containers, not scalars, and agree between text and value", () => {
    for (const levels of [0, 1, 2, 255, 256, 257, 1_000]) {
      const value = nested(levels);
      expect(valueNestsDeeper(value, 256)).toBe(levels > 256);
      expect(jsonTextNestsDeeper(JSON.stringify(value), 256)).toBe(levels > 256);
    }
    expect(jsonTextNestsDeeper('["\\\\", "]]]", [[1]]]', 2)).toBe(true);
    expect(jsonTextNestsDeeper('["\\"[[[[", [1]]', 2)).toBe(false);
  });

  it("answer the same with the bracket count's shortcut as with the full scan, around the bound", () => {
    // The shortcut answers "not deeper" only when the text has at most `max` opening brackets in all; texts
    // with about `max` brackets, some of them inside strings or behind escapes, are where it could go wrong.
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ["[", "{", "]", "}", '"', "\\", '\\"', ",", "1", '"a"', '"[{"', " "];
    let deeper = 0;
    for (let round = 0; round < 4_000; round++) {
      let text = "";
      const length = 1 + next(24);
      for (let i = 0; i < length; i++) text += pieces[next(pieces.length)]!;
      const max = next(6);
      const expected = scanNestsDeeper(text, max);
      expect(jsonTextNestsDeeper(text, max), text).toBe(expected);
      if (expected) deeper++;
    }
    // Both answers occur, so the comparison above tested something.
    expect(deeper).toBeGreaterThan(100);
    expect(deeper).toBeLessThan(3_900);
  });
});
