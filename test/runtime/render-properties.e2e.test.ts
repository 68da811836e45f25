/**
 * Property tests, per place: thousands of hostile argument values, and the request's scheme, host, port,
 * number of path segments, query names, header names and body keys never change. Rendering is checked directly
 * for many values, and on the wire (a real upstream on 127.0.0.1) for a few hundred.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompiledServer, JsonValue } from "../../packages/runtime/src/plan.ts";
import { renderRequest } from "../../packages/runtime/src/call/render.ts";
import { ToolError } from "../../packages/runtime/src/call/errors.ts";
import { compileInProcess, inProcess, type InProcess } from "../helpers/inprocess.ts";
import { echo, startUpstream, type Upstream } from "../helpers/upstream.ts";

const SPEC = (origin: string) => `
specVersion: 1
name: props
version: "1"
tools:
  - name: everything
    description: every place at once
    rateLimit: { perMinute: 100000, concurrency: 1000 }
    input:
      type: object
      properties: { a: {}, b: {}, c: {}, d: {}, e: {} }
    http:
      method: POST
      url: ${origin}/v1/{{input.a}}/items/x{{input.b}}y
      allowInsecureHttp: true
      query: { q: "{{input.c}}", fixed: "lit", mixed: "pre-{{input.d}}" }
      headers: { X-One: "{{input.d}}", X-Two: "v={{input.e}}" }
      body: { k: "{{input.a}}", nested: { t: "t {{input.b}}", list: ["{{input.c}}"] } }
    output: { select: "@" }
`;

/** Hostile strings: separators, encodings, dot segments, control characters, templates, unicode. */
const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "..",
    ".",
    "",
    "/",
    "?",
    "#",
    "%",
    "%2e%2e",
    "%2F",
    "../../etc/passwd",
    "a/../../b",
    "@evil.example.com",
    "evil.example.com:443",
    "\\\\evil",
    "http://evil.example.com/",
    "//evil.example.com",
    "\r\nHost: evil",
    "\u0000",
    "{{secrets.API_KEY}}",
    "{{input.a}}",
    "&q=1&admin=true",
    "=",
    "+",
    " ",
    "\u2028",
    "\ud800",
    "ü€😀",
  ),
  fc
    .array(fc.constantFrom(".", "/", "%", "2", "e", "?", "#", "&", "=", "\\", ":", "@"), { maxLength: 12 })
    .map((chars) => chars.join("")),
);
const hostileValue: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
  { weight: 6, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }) },
);
const args = fc.record(
  { a: hostileValue, b: hostileValue, c: hostileValue, d: hostileValue, e: hostileValue },
  { requiredKeys: [] },
);
/** Scalars only, so that most calls are valid and the wire sees them (path values must not be empty). */
const wireString = fc.oneof(
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 30 }),
  fc.constantFrom(
    "..",
    ".",
    "%2e%2e",
    "a/../../b",
    "@evil.example.com",
    "evil.example.com:443",
    "//evil",
    "&admin=true",
    "ü",
    "{{secrets.X}}",
    "?#",
    "\\x",
  ),
);
const scalar = fc.oneof(
  { weight: 8, arbitrary: wireString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
);
const wireArgs = fc.record({ a: scalar, b: scalar, c: scalar, d: scalar, e: scalar });

let server: CompiledServer;
const ORIGIN = "https://api.example.com:8443";

beforeAll(() => {
  server = compileInProcess(SPEC(ORIGIN).replace("allowInsecureHttp: true", ""));
});

function segments(pathname: string): number {
  return pathname.split("/").length;
}

describe("rendering never changes the request's shape", () => {
  it("keeps scheme, host, port, path segments, query names, header names and body keys", () => {
    const plan = server.tools[0]!.plan.request;
    fc.assert(
      fc.property(args, (a) => {
        let rendered;
        try {
          rendered = renderRequest(plan, {
            args: JSON.parse(JSON.stringify(a)) as JsonValue,
            secrets: new Map(),
            hostPort: plan.hostPort,
          });
        } catch (error) {
          // Refusing is always allowed; anything but a ToolError is a bug.
          expect(error).toBeInstanceOf(ToolError);
          return;
        }
        const url = rendered.url;
        expect(url.protocol).toBe("https:");
        expect(url.hostname).toBe("api.example.com");
        expect(url.port).toBe("8443");
        expect(url.username + url.password + url.hash).toBe("");
        expect(segments(url.pathname)).toBe(5);
        expect(url.pathname.startsWith("/v1/")).toBe(true);
        expect(url.pathname.split("/")[3]).toBe("items");
        for (const name of url.searchParams.keys()) expect(["q", "fixed", "mixed"]).toContain(name);
        expect(url.searchParams.get("fixed")).toBe("lit");
        expect(rendered.headers.map(([n]) => n)).toEqual(["X-One", "X-Two"]);
        for (const [, value] of rendered.headers) expect(value).not.toMatch(/[\r\n\u0000]|[^\u0000-\u00ff]/);
        const body = JSON.parse((rendered.body as string | null) ?? "null") as Record<string, unknown>;
        expect(Object.keys(body).sort()).toEqual(["k", "nested"]);
        expect(Object.keys(body["nested"] as object).sort()).toEqual(["list", "t"]);
      }),
      { numRuns: 5000, seed: 20261201 },
    );
  });
});

describe("on the wire", () => {
  let upstream: Upstream;
  let live: InProcess;
  beforeAll(async () => {
    upstream = await startUpstream(echo);
    live = inProcess(SPEC(upstream.origin));
  });
  afterAll(async () => {
    await upstream.close();
  });

  it("reaches only the spec's host and port, with the spec's path shape and names", async () => {
    let delivered = 0;
    await fc.assert(
      fc.asyncProperty(wireArgs, async (a) => {
        const before = upstream.requests.length;
        const result = await live.call("everything", JSON.parse(JSON.stringify(a)));
        const sent = upstream.requests.slice(before);
        if (result.isError) {
          expect(sent).toHaveLength(0);
          return;
        }
        expect(sent).toHaveLength(1);
        delivered++;
        const request = sent[0]!;
        expect(request.headers.host).toBe(new URL(upstream.origin).host);
        expect(segments(request.path)).toBe(5);
        expect(request.path.split("/")[3]).toBe("items");
        expect(request.path).not.toMatch(/\/\.\.?(\/|$)/);
        for (const name of new URLSearchParams(request.query).keys()) expect(["q", "fixed", "mixed"]).toContain(name);
        const names = request.rawHeaders
          .filter((_, i) => i % 2 === 0)
          .map((n) => n.toLowerCase())
          .sort();
        expect(names).toEqual([
          "accept",
          "accept-encoding",
          "connection",
          "content-length",
          "content-type",
          "host",
          "x-one",
          "x-two",
        ]);
      }),
      { numRuns: 300, seed: 42 },
    );
    // The property must not pass by refusing everything: a good share of hostile values is sent, safely.
    expect(delivered).toBeGreaterThan(150);
  });
});
