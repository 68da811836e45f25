/**
 * The HTTP limit flags of server.mjs, and the id the stdio guard finds in a message too large to keep.
 */
import { describe, expect, it } from "vitest";
import { parseNodeOptions, UsageError } from "../../packages/runtime/src/node-main.ts";
import { DEFAULT_SERVE_LIMITS, requestTarget } from "../../packages/runtime/src/node-http.ts";
import { IdScanner } from "../../packages/runtime/src/stdio-guard.ts";

describe("HTTP limit flags", () => {
  it("parse into ServeLimits fields, leaving the rest to the defaults", () => {
    const options = parseNodeOptions(["--http", "--max-bodies", "8", "--max-body-memory", "1048576", "--request-timeout", "5000", "--headers-timeout", "2000"], {});
    expect(options.limits).toEqual({ maxBodies: 8, maxBodyBytesTotal: 1048576, requestTimeoutMs: 5000, headersTimeoutMs: 2000 });
    expect(parseNodeOptions(["--http"], {}).limits).toEqual({});
    expect(DEFAULT_SERVE_LIMITS).toMatchObject({ maxBodyBytes: 4 * 1024 * 1024, maxBodies: 64, maxBodyBytesTotal: 32 * 1024 * 1024, requestTimeoutMs: 30_000, headersTimeoutMs: 10_000 });
  });

  it.each([["--max-bodies", "0"], ["--max-body-memory", "-1"], ["--request-timeout", "1.5"], ["--headers-timeout", "ten"]])("refuses %s %s", (flag, value) => {
    expect(() => parseNodeOptions(["--http", `${flag}=${value}`], {})).toThrow(new UsageError(`${flag} must be a whole number above 0.`));
  });

  it("need --http", () => {
    expect(() => parseNodeOptions(["--max-bodies", "8"], {})).toThrow(/need --http/);
  });
});

describe("request targets", () => {
  it("keep origin-form, accept absolute-form only for the Host header's authority", () => {
    expect(requestTarget("/mcp?x=1", "127.0.0.1:3000")).toBe("/mcp?x=1");
    expect(requestTarget("http://127.0.0.1:3000/mcp?x=1", "127.0.0.1:3000")).toBe("/mcp?x=1");
    expect(requestTarget("HTTP://LOCALHOST:3000/mcp", "localhost:3000")).toBe("/mcp");
    for (const target of ["http://evil.example/mcp", "http://127.0.0.1/mcp", "http://127.0.0.1:3000@evil.example/mcp", "*", "mcp", "ftp://127.0.0.1:3000/mcp"]) {
      expect(requestTarget(target, "127.0.0.1:3000"), target).toBeNull();
    }
    expect(requestTarget("http://127.0.0.1:3000/mcp", undefined)).toBeNull();
  });
});

describe("IdScanner", () => {
  const scan = (text: string, pieces = 7): unknown => {
    const scanner = new IdScanner();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += pieces) scanner.feed(bytes.subarray(i, i + pieces));
    return scanner.id;
  };

  it("finds the top-level id wherever it is, and only there", () => {
    expect(scan('{"jsonrpc":"2.0","id":12,"method":"x"}')).toBe(12);
    expect(scan('{"params":{"id":"decoy","a":[{"id":3}]},"id":"real \\" one","x":"\\"id\\":9"}')).toBe('real " one');
    expect(scan('{"a":"id","b":{"id":1}}')).toBeNull();
    expect(scan('{ "id" : -4 }', 1)).toBe(-4);
    expect(scan('{"id":1e308}')).toBeNull();
    expect(scan('{"id":null}')).toBeNull();
    expect(scan('{"id":{"n":5}}')).toBeNull();
  });
});
