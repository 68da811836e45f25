/**
 * The differential suite's own parts (differential.e2e.test.ts): that the request checker finds each kind of
 * request a document does not allow, that the result checker finds lost identifiers and payload, and that the
 * generator's values are valid.
 */
import { describe, expect, it } from "vitest";
import { checkRequest, decodeForm, type SentRequest } from "./check-request.ts";
import { checkResult } from "./check-result.ts";
import { Document } from "./document.ts";
import { exampleOf, fromPattern } from "./values.ts";

const doc = new Document({
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {
    "/items/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
      post: {
        parameters: [
          { name: "expand", in: "query", style: "deepObject", schema: { type: "array", items: { type: "string" } } },
          { name: "ids", in: "query", explode: false, schema: { type: "array", items: { type: "integer" } } },
          {
            name: "filter",
            in: "query",
            style: "deepObject",
            schema: { type: "object", properties: { s: { type: "string", enum: ["open"] } } },
          },
          { name: "X-Trace", in: "header", required: true, schema: { type: "string" } },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: { $ref: "#/components/schemas/Item" } },
            "application/x-www-form-urlencoded": { schema: { $ref: "#/components/schemas/Item" } },
          },
        },
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Item: {
        type: "object",
        required: ["name"],
        properties: {
          id: { type: "integer", readOnly: true },
          name: { type: "string", nullable: true },
          tags: { type: "array", items: { type: "string" } },
          meta: { type: "object", additionalProperties: { type: "string" } },
        },
      },
    },
  },
});
const op = doc.operations[0]!;
const none = { headers: new Set<string>(), query: new Set<string>() };

function request(over: Partial<SentRequest> & { json?: unknown }): SentRequest {
  const body = over.json !== undefined ? Buffer.from(JSON.stringify(over.json)) : (over.body ?? Buffer.alloc(0));
  return {
    method: over.method ?? "POST",
    path: over.path ?? "/items/7",
    query: over.query ?? "",
    headers: {
      ...(over.headers ?? { "x-trace": "t" }),
      ...(over.json !== undefined ? { "content-type": "application/json" } : {}),
    },
    body,
  };
}

describe("the request checker", () => {
  it("accepts a request the document allows, in each documented style", async () => {
    const ok = request({ query: "expand[]=a&expand[]=b&ids=1,2&filter[s]=open", json: { name: null, tags: ["x"] } });
    expect(await checkRequest(doc, op, ok, { id: 7 }, none)).toEqual([]);
    const form = request({
      headers: { "x-trace": "t", "content-type": "application/x-www-form-urlencoded" },
      body: Buffer.from("name=n&tags[]=a&meta[k]=v"),
    });
    expect(await checkRequest(doc, op, form, {}, none)).toEqual([]);
  });

  it("finds each kind of request the document does not allow", async () => {
    const problems = async (r: SentRequest, args: Record<string, unknown> = {}) => checkRequest(doc, op, r, args, none);
    expect(await problems(request({ method: "PUT", json: { name: "n" } }))).toEqual(["method PUT, documented POST"]);
    expect(await problems(request({ path: "/items/x", json: { name: "n" } }))).toEqual([
      expect.stringContaining("path parameter id"),
    ]);
    expect(await problems(request({ json: { name: "n" } }), { id: 8 })).toEqual([
      'path parameter id is "7", the argument 8',
    ]);
    expect(await problems(request({ query: "expand=a", json: { name: "n" } }))).toEqual([
      "query expand is a deepObject array, sent as expand= rather than expand[]=",
      "query expand is not documented",
    ]);
    expect(await problems(request({ query: "ids=1&ids=2", json: { name: "n" } }))).toEqual([
      "query ids (form, explode false) is repeated rather than delimited",
    ]);
    expect(await problems(request({ query: "other=1", json: { name: "n" } }))).toEqual([
      "query other is not documented",
    ]);
    expect(await problems(request({ query: "filter[s]=closed", json: { name: "n" } }))).toEqual([
      expect.stringContaining("query filter"),
    ]);
    expect(await problems(request({ headers: {}, json: { name: "n" } }))).toEqual([
      "the required header X-Trace is missing",
    ]);
    expect(await problems(request({ headers: { "x-trace": "t", "x-other": "1" }, json: { name: "n" } }))).toEqual([
      "header x-other is not documented",
    ]);
    expect(await problems(request({ body: Buffer.from("{}") }))).toEqual(["a body is sent without a Content-Type"]);
    expect(await problems(request({ json: { tags: "x" } }))).toEqual([expect.stringContaining("is not valid")]);
    expect(await problems(request({}))).toEqual(["the required body is missing"]);
    expect(await problems(request({ json: { name: "n" } }), { id: 7, name: "n", tags: ["x"] })).toEqual([
      "the body field tags is given but not sent",
    ]);
    expect(
      await problems(request({ headers: { "x-trace": "t", "content-type": "text/plain" }, body: Buffer.from("n") })),
    ).toEqual([expect.stringContaining("Content-Type text/plain is not one")]);
    expect(
      await problems(request({ headers: { "x-trace": "t", accept: "text/html" }, json: { name: "n" } })),
    ).toContain("Accept text/html is not the documented application/json");
  });

  it("reads spaceDelimited and pipeDelimited arrays, and form objects spread into the query", async () => {
    const styles = new Document({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/s": {
          get: {
            parameters: [
              {
                name: "a",
                in: "query",
                style: "spaceDelimited",
                explode: false,
                schema: { type: "array", items: { type: "integer" } },
              },
              {
                name: "b",
                in: "query",
                style: "pipeDelimited",
                explode: false,
                schema: { type: "array", items: { type: "string" } },
              },
              {
                name: "sp",
                in: "query",
                schema: { type: "object", properties: { q: { type: "string" }, n: { type: "integer" } } },
              },
            ],
            responses: { "204": { description: "none" } },
          },
        },
      },
    });
    const get = (query: string) =>
      checkRequest(
        styles,
        styles.operations[0]!,
        { method: "GET", path: "/s", query, headers: {}, body: Buffer.alloc(0) },
        {},
        none,
      );
    expect(await get("a=1%202&b=x|y&q=z&n=3")).toEqual([]);
    expect(await get("a=1+2")).toEqual([]);
    expect(await get("a=1&a=2")).toEqual(["query a (spaceDelimited, explode false) is repeated rather than delimited"]);
    expect(await get("a=1,2")).toEqual([expect.stringContaining("query a")]);
    expect(await get("n=x")).toEqual([expect.stringContaining("query sp")]);
    const given = await checkRequest(
      styles,
      styles.operations[0]!,
      { method: "GET", path: "/s", query: "", headers: {}, body: Buffer.alloc(0) },
      { b: "x|y" },
      none,
    );
    expect(given).toEqual(["the query parameter b is given but not sent"]);
  });

  it("reads a combinator's plain branch sent plainly, and tells an ambiguous oneOf from a wrong value", async () => {
    const combined = new Document({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: {
        "/p": {
          post: {
            parameters: [
              {
                name: "created",
                in: "query",
                style: "deepObject",
                schema: { anyOf: [{ type: "object", properties: { gt: { type: "integer" } } }, { type: "integer" }] },
              },
            ],
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    oneOf: [
                      { type: "object", properties: { type: { type: "string" } }, required: ["type"] },
                      {
                        type: "object",
                        properties: { type: { type: "string" }, name: { type: "string" } },
                        required: ["type"],
                      },
                    ],
                  },
                },
              },
            },
            responses: { "204": { description: "none" } },
          },
        },
      },
    });
    const post = (query: string, body: unknown) =>
      checkRequest(
        combined,
        combined.operations[0]!,
        {
          method: "POST",
          path: "/p",
          query,
          headers: { "content-type": "application/json" },
          body: Buffer.from(JSON.stringify(body)),
        },
        {},
        none,
      );
    expect(await post("created=5", { type: "a", name: "b" })).toEqual([
      "document defect: the body matches several branches of a oneOf, which no value can avoid",
    ]);
    expect(await post("created[gt]=5", {})).toEqual([expect.stringContaining("the body {} is not valid")]);
    expect(await post("created=x", { type: "a" })).toEqual([
      expect.stringContaining("query created"),
      "document defect: the body matches several branches of a oneOf, which no value can avoid",
    ]);
  });

  it("decodes bracketed form keys", () => {
    expect(decodeForm("a[b][c]=1&a[d][]=2&a[d][]=3&e=x+y")).toEqual({ a: { b: { c: "1" }, d: ["2", "3"] }, e: "x y" });
  });
});

describe("the result checker", () => {
  const answer = { id: 3, name: "n-1", items: [{ key: "k-1" }, { key: "k-2" }], meta: { key_a: "v" }, message: "hi" };
  it("accepts a result that keeps the identifiers and payload", () => {
    expect(checkResult(answer, { structuredContent: answer })).toEqual([]);
  });
  it("names what a result loses", () => {
    expect(checkResult(answer, { structuredContent: { id: 3, items: [{ key: "k-1" }], meta: {} } })).toEqual([
      "loses name, items[1].key, meta (a map key), message",
    ]);
    expect(checkResult(answer, { isError: true, content: [{ type: "text", text: "boom" }] })).toEqual([
      "an error: boom",
    ]);
  });
  it("expects no hypermedia list (links, _links), which the import leaves out by design", () => {
    const task = { id: "t-1", links: [{ description: "d-1", link: "l-1" }], _links: [{ href: "h-1" }], tags: ["x-1"] };
    expect(checkResult(task, { structuredContent: { id: "t-1", tags: ["x-1"] } })).toEqual([]);
    expect(checkResult(task, { structuredContent: { id: "t-1" } })).toEqual(["loses tags[0]"]);
  });
});

describe("the generator", () => {
  it("makes values each schema accepts, optional properties included", () => {
    const value = exampleOf({ $ref: "#/components/schemas/Item" }, { resolve: doc.resolve, mode: "request" }) as Record<
      string,
      unknown
    >;
    expect(Object.keys(value)).toEqual(["name", "tags", "meta"]);
    expect(doc.validator({ $ref: "#/components/schemas/Item" }, "request")(value)).toBe(true);
  });
  it("writes a string a simple pattern matches", () => {
    for (const p of ["^AC[0-9a-fA-F]{32}$", "^(SM|MM)[0-9a-f]{32}$", "^\\d{3}-\\w+$", "^[A-Z]{2}(?:,[A-Z]{2})*$"])
      expect(new RegExp(p).test(fromPattern(p)!)).toBe(true);
  });
});
