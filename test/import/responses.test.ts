/**
 * Responses (import/responses.ts): the output select and schema proposed from the success response.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, text, type ImportResult, problems } from "./helpers.ts";

describe("output proposals", () => {
  const proposal = (responses: unknown): { output: unknown; result: ImportResult } => {
    const result = imp(api({ "/a": { get: { operationId: "a", responses } } }));
    return { output: specOf(result).tools[0]!["output"], result };
  };
  const json = (schema: unknown, code = "200") => ({ [code]: { description: "x", content: { "application/json": { schema } } } });

  it("keeps scalars, arrays of scalars and one level of nested scalars, and writes a schema that allows what a select can give", () => {
    const { output } = proposal(
      json({
        type: "object",
        required: ["id"],
        properties: {
          id: { type: "integer" },
          "display-name": { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          owner: { type: "object", properties: { login: { type: "string" }, address: { type: "object" } } },
          items: { type: "array", items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer" }, meta: { type: "object" } } } },
          secret: { type: "string", writeOnly: true },
          meta: { type: "object", additionalProperties: true },
          __proto__: { type: "string" },
        },
      }),
    );
    expect(output).toEqual({
      select: '{id: id, "display-name": "display-name", tags: tags, owner: owner.{login: login}, items: items[*].{sku: sku, qty: qty}}',
      schema: {
        type: "object",
        properties: {
          id: { type: "integer" },
          "display-name": { type: ["string", "null"] },
          tags: { type: ["array", "null"], items: { type: "string" } },
          owner: { type: ["object", "null"], properties: { login: { type: ["string", "null"] } }, required: ["login"] },
          items: { type: ["array", "null"], items: { type: "object", properties: { sku: { type: ["string", "null"] }, qty: { type: ["integer", "null"] } }, required: ["sku", "qty"] } },
        },
        required: ["id", "display-name", "tags", "owner", "items"],
      },
    });
  });

  it("wraps a list answer in {items: ...} (structured content is an object), and keeps at most 12 fields", () => {
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: "string" }]));
    const { output, result } = proposal(json({ type: "array", items: { type: "object", properties } }));
    expect((output as { select: string }).select).toBe(`{items: [*].{${Array.from({ length: 12 }, (_, i) => `f${i}: f${i}`).join(", ")}}}`);
    expect(result.text).toContain("# proposal: review this select and schema; they keep 12 of the 20 fields of each item of the 200 response");
  });

  it("falls back to the whole answer, or raw text, and leaves out binary answers", () => {
    expect(proposal({ "200": { description: "x", content: { "application/json": {} } } }).output).toEqual({ select: "@" });
    expect(proposal({ "200": { description: "x", content: { "text/csv": { schema: { type: "string" } } } } }).output).toEqual({ raw: true });
    expect(proposal({ "404": { description: "x" } }).output).toEqual({ select: "@" });
    const noBody = proposal({ "204": { description: "Deleted." } });
    expect(codes(noBody.result)).toEqual([]);
    expect(noBody.output).toEqual({ select: "@" });
    expect(noBody.result.text).toContain("# proposal: the 204 response has no body; a call that succeeds says so in a short text");
    const binary = imp(api({ "/img": { get: { operationId: "img", responses: { "200": { description: "x", content: { "image/png": {} } } } } }, "/b": { get: { operationId: "b", responses: ok200 } } }));
    expect(problems(binary).map((d) => d.message)).toEqual(["The operation answers image/png, which a tool cannot return (it returns JSON or text); the operation is left out."]);
    expect(specOf(binary).tools.map((t) => t["name"])).toEqual(["b"]);
  });

  it("gives no output schema to a tool whose success may be empty: an empty answer has no structured content", () => {
    const both = proposal({ ...json({ type: "object", properties: { id: { type: "string" } } }), "204": { description: "Nothing changed." } });
    expect(both.output).toEqual({ select: "{id: id}" });
    expect(both.result.text).toContain("no output schema, since the 204 response has no body");
    expect(proposal(json({ type: "object", properties: { id: { type: "string" } } })).output).toHaveProperty("schema");
  });

  it("merges allOf parts and follows references in responses", () => {
    const result = imp({
      ...api({ "/a": { get: { operationId: "a", responses: json({ allOf: [{ $ref: "#/components/schemas/Base" }, { type: "object", required: ["extra"], properties: { extra: { type: "boolean" } } }] }) } } }),
      components: { schemas: { Base: { type: "object", properties: { id: { type: "string" } } } } },
    });
    expect(specOf(result).tools[0]!["output"]["select"]).toBe("{id: id, extra: extra}");
  });
});
