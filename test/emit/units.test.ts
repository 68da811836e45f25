/**
 * In-process tests of the pieces behind provenance: canonical JSON, content-derived UUIDs, the egress list
 * and comment escaping.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { hashComment, htmlComment, lineComment } from "../../packages/compiler/src/emit/code/code.ts";
import { canonicalJson, sha256, uuidFromSha256 } from "../../packages/compiler/src/emit/code/hash.ts";
import { egressOf } from "../../packages/compiler/src/plan/egress.ts";
import { egressCheck } from "../../packages/runtime/src/net/upstream.ts";

describe("canonicalJson", () => {
  it("sorts keys at every depth by code unit, keeps array order, drops undefined members", () => {
    const value = { b: 1, a: [{ z: true, y: null }, "x"], é: 2, B: { d: undefined, c: 1.5e-7 } };
    expect(canonicalJson(value)).toBe('{"B":{"c":1.5e-7},"a":[{"y":null,"z":true},"x"],"b":1,"é":2}');
  });

  it("gives equal output for values that differ only in key order", () => {
    expect(canonicalJson({ type: "object", properties: { a: { type: "string" } } })).toBe(
      canonicalJson({ properties: { a: { type: "string" } }, type: "object" }),
    );
  });
});

describe("uuidFromSha256", () => {
  it("is a well-formed version 8 UUID fixed by the digest", () => {
    const digest = sha256("kervanc");
    const uuid = uuidFromSha256(digest);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuid.replace(/-/g, "").slice(0, 12)).toBe(digest.slice(0, 12));
    expect(uuidFromSha256(sha256("kervanc!"))).not.toBe(uuid);
  });
});

describe("comments", () => {
  it("keep spec text on one line in every comment syntax", () => {
    const name = "evil\n--> <script>\u2028x.yaml";
    expect(lineComment(name).text).toBe("// evil\\u000a--> <script>\\u2028x.yaml");
    expect(hashComment(name)).toBe("# evil\\u000a--> <script>\\u2028x.yaml");
    const html = htmlComment(name);
    expect(html.split("\n")).toHaveLength(1);
    // Only the final delimiter may close the comment.
    expect(html.slice(4, -3)).not.toContain("--");
    expect(html.endsWith("-->")).toBe(true);
  });
});

function plan(yaml: string) {
  const compiled = compileSpec("egress.yaml", new TextEncoder().encode(yaml));
  expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return compiled.planned!;
}

const tool = (name: string, method: string, url: string, extra = ""): string =>
  [
    `  - name: ${name}`,
    "    description: d",
    "    http:",
    `      method: ${method}`,
    `      url: "${url}"`,
    ...(extra ? [extra] : []),
    "    output:",
    "      raw: true",
  ].join("\n");

describe("egressOf", () => {
  it("lists each scheme, host and port once, sorted, with the methods used", () => {
    const server = plan(
      [
        "specVersion: 1",
        "name: egress",
        'version: "1"',
        "tools:",
        tool("b", "POST", "https://API.Example.com/v1/x"),
        tool("a", "GET", "https://api.example.com:443/v1/y"),
        tool("c", "GET", "https://api.example.com:8443/z"),
        tool("d", "DELETE", "http://[::1]:8080/q", "      allowInsecureHttp: true"),
        tool("e", "GET", "https://api.example.com/w"),
        tool("f", "PUT", "https://a.example.org/"),
        "",
      ].join("\n"),
    );
    expect(egressOf(server)).toEqual([
      { scheme: "http", host: "[::1]", port: 8080, methods: ["DELETE"] },
      { scheme: "https", host: "a.example.org", port: 443, methods: ["PUT"] },
      { scheme: "https", host: "api.example.com", port: 443, methods: ["GET", "POST"] },
      { scheme: "https", host: "api.example.com", port: 8443, methods: ["GET"] },
    ]);
    // The runtime enforces a list it derives from the same plans: each entry here is allowed there, and a
    // destination missing here is refused there.
    const allowed = egressCheck(server.tools.map((t) => t.plan.request));
    for (const rule of egressOf(server))
      expect(allowed(new URL(`${rule.scheme}://${rule.host}:${rule.port}/anything`)), JSON.stringify(rule)).toBe(true);
    for (const url of [
      "https://api.example.com:8080/",
      "http://api.example.com/",
      "https://[::1]:8080/",
      "https://b.example.org/",
    ])
      expect(allowed(new URL(url)), url).toBe(false);
  });
});
