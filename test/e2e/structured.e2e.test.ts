/**
 * Structured results across protocol revisions (seed 004): a 2026-07-28 client receives any JSON value the
 * output schema allows as structuredContent; a 2025-11-25 client only ever receives an object root (the SDK's
 * projection wraps other values as `{ result }`, and the listed schema to match). Error results carry no
 * structured content. Hostile upstream keys pollute nothing, in this call or the next.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Era, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
let root: string;
let serverPath: string;

const DATA = { name: "Ada", count: 42, items: [1, 2, 3], nested: { ok: true } };
const HOSTILE =
  '{"__proto__":{"polluted":"yes"},"a":{"__proto__":{"polluted":"yes"},"b":1},"constructor":{"prototype":{"polluted":"yes"}},"toString":"x"}';

function spec(origin: string): string {
  const tool = (name: string, select: string, schema?: string, path = "data") => `
  - name: ${name}
    description: ${name}
    http: { url: "${origin}/${path}", allowInsecureHttp: true }
    output: { select: ${JSON.stringify(select)}${schema ? `, schema: ${schema}` : ""} }`;
  return `
specVersion: 1
name: structured
version: "1.0.0"
tools:${tool("object", "@", "{ type: object, properties: { name: { type: string } }, required: [name] }")}${tool("array", "items", "{ type: array, items: { type: integer } }")}${tool("number", "count", "{ type: number }")}${tool("string", "name", "{ type: string }")}${tool("text_only", "items")}${tool("mismatch", "name", "{ type: integer }")}${tool("hostile", "[a.polluted, polluted, a.toString, toString, keys(@), merge(@, a).polluted, from_items([['__proto__', `1`]])]", undefined, "hostile")}${tool("after", "{polluted: polluted, proto: a.polluted}", "{ type: object }")}
`;
}

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(req.path === "/hostile" ? HOSTILE : JSON.stringify(DATA));
  });
  ({ root, serverPath } = await buildOneSpec("structured", "structured.yaml", spec(upstream.origin)));
}, 60_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

describe.each(["modern", "legacy"] as Era[])("structured results for a %s client", (era) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await connect(era, serverPath, {
      nodeArgs: ["--disallow-code-generation-from-strings"],
      serverArgs: ["--allow-private-network"],
    });
  });
  afterAll(async () => {
    await client?.close();
  });

  const wrap = (value: unknown): unknown => (era === "legacy" ? { result: value } : value);

  it("returns an object root as is, with the same JSON as text", async () => {
    const r = await client.callTool("object", {});
    expect(r.structuredContent).toEqual(DATA);
    expect(r.content).toEqual([{ type: "text", text: JSON.stringify(DATA) }]);
  });

  it.each([
    ["array", [1, 2, 3]],
    ["number", 42],
    ["string", "Ada"],
  ])("returns a %s root as the revision allows", async (name, value) => {
    const r = await client.callTool(name, {});
    expect(r.isError ?? false).toBe(false);
    expect(r.structuredContent).toEqual(wrap(value));
    expect(r.content?.[0]).toEqual({ type: "text", text: JSON.stringify(value) });
  });

  it("lists output schemas the way the revision expects", async () => {
    const { tools } = await client.listTools();
    const schema = (name: string): unknown => tools.find((t) => t.name === name)?.outputSchema;
    expect(schema("object")).toEqual({ type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    if (era === "modern") expect(schema("array")).toEqual({ type: "array", items: { type: "integer" } });
    else
      expect(schema("array")).toMatchObject({
        type: "object",
        properties: { result: { type: "array", items: { type: "integer" } } },
      });
    expect(schema("text_only")).toBeUndefined();
  });

  it("returns text only when there is no output schema", async () => {
    const r = await client.callTool("text_only", {});
    expect(r.structuredContent).toBeUndefined();
    expect(r.content).toEqual([{ type: "text", text: "[1,2,3]" }]);
  });

  it("never attaches structured content to an error, even with an output schema", async () => {
    const r = await client.callTool("mismatch", {});
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    expect(r.content).toEqual([
      {
        type: "text",
        text: "Output validation error: Invalid structured content for tool mismatch: data must be integer",
      },
    ]);
  });

  it("keeps hostile keys as plain data and pollutes nothing across calls", async () => {
    const r = await client.callTool("hostile", {});
    expect(r.isError ?? false).toBe(false);
    expect(JSON.parse(r.content?.[0]?.text ?? "null")).toEqual([
      null,
      null,
      null,
      "x", // an own "toString" key is data like any other
      ["__proto__", "a", "constructor", "toString"],
      null,
      { ["__proto__"]: 1 },
    ]);
    const after = await client.callTool("after", {});
    expect(after.structuredContent).toEqual({ polluted: null, proto: null });
  });
});
