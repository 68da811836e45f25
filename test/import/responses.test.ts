/**
 * Responses (import/responses.ts): the output select and schema proposed from the success response.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, type ImportResult, problems } from "./helpers.ts";

describe("output proposals", () => {
  const proposal = (responses: unknown): { output: unknown; result: ImportResult } => {
    const result = imp(api({ "/a": { get: { operationId: "a", responses } } }));
    return { output: specOf(result).tools[0]!["output"], result };
  };
  const json = (schema: unknown, code = "200") => ({
    [code]: { description: "x", content: { "application/json": { schema } } },
  });

  it("requires an identity field only where the document does (petstore's tags[].id is optional)", () => {
    const { output } = proposal(
      json({
        type: "object",
        required: ["id"],
        properties: {
          id: { type: "integer" },
          tags: {
            type: "array",
            items: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } } },
          },
        },
      }),
    );
    const schema = (output as { schema: any }).schema;
    expect(schema.required).toEqual(["id"]);
    expect(schema.properties.id.type).toBe("integer");
    expect(schema.properties.tags.items).not.toHaveProperty("required");
    expect(schema.properties.tags.items.properties.id.type).toEqual(["integer", "null"]);
  });

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
          items: {
            type: "array",
            items: {
              type: "object",
              properties: { sku: { type: "string" }, qty: { type: "integer" }, meta: { type: "object" } },
            },
          },
          secret: { type: "string", writeOnly: true },
          meta: { type: "object", additionalProperties: true },
          __proto__: { type: "string" },
        },
      }),
    );
    // A record (it has an id): its declared map is payload, kept whole and first; then identity (id), context
    // (tags, owner), then the rest, its list included; a bare `{type: object}` without a content name is left out.
    expect(output).toEqual({
      select:
        '{meta: meta, id: id, tags: tags, owner: owner.{login: login}, "display-name": "display-name", items: items[*].{sku: sku, qty: qty}}',
      schema: {
        type: "object",
        properties: {
          items: {
            type: ["array", "null"],
            items: {
              type: "object",
              properties: { sku: { type: ["string", "null"] }, qty: { type: ["integer", "null"] } },
            },
          },
          meta: { type: ["object", "null"] },
          id: { type: "integer" },
          tags: { type: ["array", "null"], items: { type: "string" } },
          owner: { type: ["object", "null"], properties: { login: { type: ["string", "null"] } } },
          "display-name": { type: ["string", "null"] },
        },
        required: ["id"],
      },
    });
  });

  it("ranks fields for a model: content and identity first, hypermedia, node ids and etags last", () => {
    const names = [
      "url",
      "repository_url",
      "node_id",
      "etag",
      "_links",
      "labels_url",
      "id",
      "number",
      "title",
      "user",
      "labels",
      "state",
      "comments",
      "created_at",
      "body",
      "author_association",
    ];
    const properties = Object.fromEntries(
      names.map((n) => [
        n,
        n === "user"
          ? { type: "object", properties: { login: { type: "string" } } }
          : { type: n === "id" || n === "number" || n === "comments" ? "integer" : "string" },
      ]),
    );
    const { output, result } = proposal(json({ type: "object", properties }));
    const keys = (output as { select: string }).select
      .match(/(?<=(?:\{|, ))[a-z_]+(?=:)/g)!
      .filter((k) => names.includes(k));
    expect(keys).toEqual([
      "title",
      "labels",
      "state",
      "body",
      "id",
      "number",
      "created_at",
      "user",
      "comments",
      "author_association",
      "url",
      "repository_url",
    ]);
    expect(result.text).toContain("they keep 12 of the 16 fields");
  });

  it("makes output schemas tolerant: only identity fields are required and non-null", () => {
    const { output } = proposal(
      json({
        type: "object",
        required: ["id", "title", "count"],
        properties: { id: { type: "integer" }, title: { type: "string" }, count: { type: "integer" } },
      }),
    );
    expect((output as { schema: unknown }).schema).toEqual({
      type: "object",
      properties: {
        id: { type: "integer" },
        title: { type: ["string", "null"] },
        count: { type: ["integer", "null"] },
      },
      required: ["id"],
    });
  });

  it("fits a list answer within maxOutputChars at the document's default page size, and says how it estimated", () => {
    const item = {
      type: "object",
      properties: Object.fromEntries(
        [
          "id",
          "title",
          "body",
          "state",
          "created_at",
          "html_url",
          "comments_url",
          "events_url",
          "labels_url",
          "node_id",
        ].map((n) => [
          n,
          { type: n === "id" ? "integer" : "string", ...(n.endsWith("_at") ? { format: "date-time" } : {}) },
        ]),
      ),
    };
    const list = (size: number | undefined) =>
      imp(
        api({
          "/issues": {
            get: {
              operationId: "list",
              parameters: [
                {
                  name: "per_page",
                  in: "query",
                  schema: { type: "integer", ...(size !== undefined ? { default: size } : {}) },
                },
              ],
              responses: json({ type: "array", items: item }),
            },
          },
        }),
      );
    const small = specOf(list(30)).tools[0]!["output"]["select"] as string;
    // Hypermedia and node ids never make it into list items.
    expect(small).toBe(
      "{items: [*].{title: title, body: body, state: state, html_url: html_url, id: id, created_at: created_at}}",
    );
    // At 100 items a page the same fields would not fit in 20,000 characters: the fields stay (identifiers and
    // content are not traded for a page size), and the page-size input's default is lowered to what fits.
    const big = list(100);
    const bigTool = specOf(big).tools[0]!;
    expect(bigTool["output"]["select"]).toBe(small);
    const lowered = bigTool["input"]["properties"]["per_page"]["default"] as number;
    expect(lowered).toBeGreaterThan(1);
    expect(lowered).toBeLessThan(100);
    expect(big.text).toMatch(
      new RegExp(
        `# proposal: .*; about \\d+ characters an item, \\d+ for 100 items \\(the default of per_page\\), estimated from the schema \\(strings by maxLength or format, 300 for body/text/description, 24 otherwise; numbers 10\\), more than maxOutputChars 20000: per_page defaults to ${lowered} here instead`,
      ),
    );
    const middle = list(40);
    expect(middle.text).toMatch(
      /fitted to maxOutputChars 20000: about \d+ characters an item, \d+ for 40 items \(the default of per_page\)/,
    );
    // No documented default: nothing to fit to, nothing trimmed.
    expect(specOf(list(undefined)).tools[0]!["output"]["select"]).toBe(small);
  });

  it("wraps a list answer in {items: ...} (structured content is an object), and keeps at most 12 fields", () => {
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: "string" }]));
    const { output, result } = proposal(json({ type: "array", items: { type: "object", properties } }));
    expect((output as { select: string }).select).toBe(
      `{items: [*].{${Array.from({ length: 12 }, (_, i) => `f${i}: f${i}`).join(", ")}}}`,
    );
    expect(result.text).toContain(
      "# proposal: review this select and schema; they keep 12 of the 20 fields of each item of the 200 response",
    );
  });

  it("falls back to the whole answer, or raw text, and leaves out binary answers", () => {
    expect(proposal({ "200": { description: "x", content: { "application/json": {} } } }).output).toEqual({
      select: "@",
    });
    expect(
      proposal({ "200": { description: "x", content: { "text/csv": { schema: { type: "string" } } } } }).output,
    ).toEqual({ raw: true });
    expect(proposal({ "404": { description: "x" } }).output).toEqual({ select: "@" });
    const noBody = proposal({ "204": { description: "Deleted." } });
    expect(codes(noBody.result)).toEqual([]);
    expect(noBody.output).toEqual({ select: "@" });
    expect(noBody.result.text).toContain(
      "# proposal: the 204 response has no body; a call that succeeds says so in a short text",
    );
    const binary = imp(
      api({
        "/img": {
          get: { operationId: "img", responses: { "200": { description: "x", content: { "image/png": {} } } } },
        },
        "/b": { get: { operationId: "b", responses: ok200 } },
      }),
    );
    expect(problems(binary).map((d) => d.message)).toEqual([
      "The operation answers image/png, which a Kervan tool cannot return (it returns JSON or text); the operation is left out (kervanc import --binary-output returns it as image, audio or file content).",
    ]);
    expect(specOf(binary).tools.map((t) => t["name"])).toEqual(["b"]);
  });

  it("gives no output schema to a tool whose success may be empty: an empty answer has no structured content", () => {
    const both = proposal({
      ...json({ type: "object", properties: { id: { type: "string" } } }),
      "204": { description: "Nothing changed." },
    });
    expect(both.output).toEqual({ select: "{id: id}" });
    expect(both.result.text).toContain("no output schema, since the 204 response has no body");
    expect(proposal(json({ type: "object", properties: { id: { type: "string" } } })).output).toHaveProperty("schema");
  });

  it("reads a 204 or 205 as a success without a body, whatever content the document gives it (Gitea's 205)", () => {
    const only205 = proposal(
      json({ type: "array", items: { type: "object", properties: { id: { type: "integer" } } } }, "205"),
    );
    expect(only205.output).toEqual({ select: "@" });
    expect(only205.result.text).toContain("the 205 response has no body");
    const with204 = proposal({
      ...json({ type: "object", properties: { id: { type: "string" } } }),
      ...json({ type: "object", properties: { id: { type: "string" } } }, "204"),
    });
    expect(with204.output).toEqual({ select: "{id: id}" });
  });

  it("merges allOf parts and follows references in responses", () => {
    const result = imp({
      ...api({
        "/a": {
          get: {
            operationId: "a",
            responses: json({
              allOf: [
                { $ref: "#/components/schemas/Base" },
                { type: "object", required: ["extra"], properties: { extra: { type: "boolean" } } },
              ],
            }),
          },
        },
      }),
      components: { schemas: { Base: { type: "object", properties: { id: { type: "string" } } } } },
    });
    expect(specOf(result).tools[0]!["output"]["select"]).toBe("{id: id, extra: extra}");
  });

  it("reads an allOf of one scalar and annotations as that scalar (Box's sequence_id), not as an empty object", () => {
    const { output } = proposal(
      json({
        type: "object",
        properties: {
          id: { type: "string" },
          sequence_id: { allOf: [{ type: "string", description: "An event id." }, { nullable: false }] },
          tags: { allOf: [{ type: "array", items: { type: "string" } }, { description: "x" }] },
        },
      }),
    );
    expect((output as { select: string }).select).toBe("{id: id, sequence_id: sequence_id, tags: tags}");
    expect((output as { schema: any }).schema.properties.sequence_id.type).toEqual(["string", "null"]);
  });

  it("keeps whole a value ranked within the cap whose shape the document does not say (Discourse's items: {})", () => {
    const { output } = proposal(
      json({
        type: "object",
        properties: {
          id: { type: "integer" },
          labels: {
            type: "array",
            items: { oneOf: [{ type: "string" }, { type: "object", properties: { name: { type: "string" } } }] },
          },
          groups: { type: "array", items: {} },
          extra: {},
        },
      }),
    );
    // `labels`, a list of plain values and objects, is not kept whole (it would bring the objects' hypermedia): as a
    // list of a record answer it is kept, picked item by item (payload-select.test.ts).
    expect((output as { select: string }).select).toBe(
      "{labels: labels[*].[type(@) == 'object' && {name: name} || @][], id: id, groups: groups, extra: extra}",
    );
  });

  it("reads items without a type as a list, and a variant that only says nullable as null (Slack's channel_actions_ts)", () => {
    const { output } = proposal(
      json({
        type: "object",
        properties: {
          has_more: { type: "boolean" },
          channel_actions_ts: { items: { anyOf: [{ type: "integer" }, { nullable: true }] } },
        },
      }),
    );
    expect((output as { select: string }).select).toBe("{has_more: has_more, channel_actions_ts: channel_actions_ts}");
    expect((output as { schema: any }).schema.properties.channel_actions_ts).toEqual({
      type: ["array", "null"],
      items: { type: ["integer", "null"] },
    });
  });
});
