/**
 * The query of a rendered request (render.ts `renderSearch`) is built on a list of its own and parsed into the
 * URL once. It must be the very text the URL's own `searchParams.append` gives, parameter by parameter, which
 * is what the runtime did before (and what Kervan does): checked here against that algorithm, written out, for
 * literal queries of every kind and thousands of argument values.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../packages/runtime/src/plan.ts";
import { renderRequest } from "../../packages/runtime/src/call/render.ts";
import { compileInProcess } from "../helpers/inprocess.ts";

const LITERALS = [
  "",
  "?a=b",
  "?a=b%20c&x=%2B+y",
  "?flag&&empty=",
  "?q=%C3%A9&q=é",
  "?a=1;b=2&c=%zz",
  "?sp=a b&amp=x%26y",
];

function planFor(url: string, query: string) {
  const server = compileInProcess(`
specVersion: 1
name: search
version: "1"
tools:
  - name: t
    description: t
    input: { type: object, properties: { c: {}, d: {} } }
    http:
      url: "${url}"
      query: ${query}
    output: { select: "@" }
`);
  return server.tools[0]!.plan.request;
}

/** The algorithm the runtime had: parse the URL, then `url.searchParams.append` each parameter in turn. */
function appendOneByOne(literal: string, c: JsonValue | undefined, d: string): string {
  const url = new URL(`https://api.example.com/v1/items${literal}`);
  if (c !== undefined && c !== null) {
    for (const item of Array.isArray(c) ? c : [c]) url.searchParams.append("q", String(item));
  }
  url.searchParams.append("fixed", "lit");
  url.searchParams.append("mixed", `pre-${d}`);
  return url.href;
}

const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("", " ", "+", "%", "%2B", "&", "=", "?", "#", "a b", "é", "😀", "%zz", "a&b=c"),
);
const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true }), fc.boolean());
const value: fc.Arbitrary<JsonValue | undefined> = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.constant(null),
  fc.constant(undefined),
);

describe("the rendered query", () => {
  it.each(LITERALS)("is the text url.searchParams.append gives, after the literal query %j", (literal) => {
    const plan = planFor(
      `https://api.example.com/v1/items${literal}`,
      '{ q: "{{input.c}}", fixed: "lit", mixed: "pre-{{input.d}}" }',
    );
    fc.assert(
      fc.property(value, text, (c, d) => {
        const args: Record<string, JsonValue> = { d };
        if (c !== undefined) args["c"] = c;
        const rendered = renderRequest(plan, { args, secrets: new Map(), hostPort: "api.example.com:443" });
        expect(rendered.url.href).toBe(appendOneByOne(literal, c, d));
      }),
      { numRuns: 400 },
    );
  });

  it("leaves the literal query untouched when no parameter is appended", () => {
    const plan = planFor("https://api.example.com/v1?a=b%20c&x=%2B+y", '{ q: "{{input.c}}" }');
    const rendered = renderRequest(plan, { args: {}, secrets: new Map(), hostPort: "api.example.com:443" });
    expect(rendered.url.search).toBe("?a=b%20c&x=%2B+y");
    const withValue = renderRequest(plan, { args: { c: "1" }, secrets: new Map(), hostPort: "api.example.com:443" });
    expect(withValue.url.search).toBe("?a=b+c&x=%2B+y&q=1");
  });
});
