/**
 * Parameters (import/parameters.ts): path, query and header parameters placed in the request, and what is left out.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, api, ok200, problems } from "./helpers.ts";

describe("parameters", () => {
  it("leaves out what a spec cannot send, with a warning at the parameter", () => {
    const result = imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            parameters: [
              { name: "session", in: "cookie", schema: { type: "string" } },
              {
                name: "filter",
                in: "query",
                style: "deepObject",
                schema: { type: "object", additionalProperties: { type: "string" } },
              },
              { name: "X-Trace", in: "header", schema: { type: "object" } },
              { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
              { name: "Host", in: "header", required: true, schema: { type: "string" } },
              { name: "where", in: "query", schema: { type: "object", properties: { x: { type: "object" } } } },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result).map((d) => [d.code, d.path])).toEqual([
      ["KV7010", 'paths["/a"].get.parameters[0]'],
      ["KV7010", 'paths["/a"].get.parameters[1]'],
      ["KV7010", 'paths["/a"].get.parameters[2]'],
      ["KV7010", 'paths["/a"].get.parameters[3]'],
      ["KV7010", 'paths["/a"].get.parameters[4]'],
      ["KV7010", 'paths["/a"].get.parameters[5]'],
    ]);
    expect(problems(result)[1]!.message).toBe(
      'The query parameter "filter" (style: deepObject) is not an object of plain named values, which a spec can only send as filter[name]=value; it is left out.',
    );
    const tool = specOf(result).tools[0]!;
    expect(tool["input"]["properties"]).toEqual({});
    expect(tool["http"]["headers"]).toBeUndefined();
  });

  it("sends an optional header from an optional input, left out when absent (omit-absent)", () => {
    const result = imp(
      api({
        "/a/{id}": {
          get: {
            operationId: "a",
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "string" } },
              { name: "X-Request-Id", in: "header", description: "Echoed back.", schema: { type: "string" } },
              { name: "If-None-Match", in: "header", schema: { type: "string" } },
              { name: "X-Version", in: "header", required: true, schema: { type: "integer" } },
              { name: "id", in: "header", schema: { type: "string" } },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result).map((d) => d.code)).toEqual(["KV8001"]);
    const spec = specOf(result);
    expect(spec["kervancExtensions"]).toEqual(["omit-absent"]);
    const tool = spec.tools[0]!;
    expect(tool["input"]).toEqual({
      type: "object",
      properties: {
        id: { type: "string" },
        x_request_id: { description: "Echoed back.", type: "string" },
        if_none_match: { type: "string" },
        x_version: { type: "integer" },
        id_header: { type: "string" },
      },
      required: ["id", "x_version"],
      additionalProperties: false,
    });
    expect(tool["http"]["headers"]).toEqual({
      "X-Request-Id": "{{input.x_request_id}}",
      "If-None-Match": "{{input.if_none_match}}",
      "X-Version": "{{input.x_version}}",
      id: "{{input.id_header}}",
    });
    expect(tool["http"]["omitAbsent"]).toBe(true);
  });

  it("required headers only: no omitAbsent, plain Kervan", () => {
    const result = imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            parameters: [{ name: "X-Version", in: "header", required: true, schema: { type: "integer" } }],
            responses: ok200,
          },
        },
      }),
    );
    expect(result.text).not.toContain("kervancExtensions");
    expect(specOf(result).tools[0]!["http"]).not.toHaveProperty("omitAbsent");
  });

  it("sets Accept from the documented response media type and Content-Type from the body, never as inputs", () => {
    const header = (name: string, required = false) => ({ name, in: "header", required, schema: { type: "string" } });
    const result = imp(
      api({
        "/report": {
          get: {
            operationId: "report",
            parameters: [header("Accept", true), header("Content-Type")],
            responses: { "200": { description: "ok", content: { "text/csv": { schema: { type: "string" } } } } },
          },
        },
        "/items": {
          post: {
            operationId: "items",
            parameters: [header("accept"), header("Content-Type", true)],
            requestBody: {
              required: true,
              content: { "application/vnd.api+json": { schema: { type: "array", items: { type: "string" } } } },
            },
            responses: {
              "200": { description: "ok", content: { "application/vnd.api+json": { schema: { type: "object" } } } },
            },
          },
        },
        "/any": {
          get: {
            operationId: "any",
            parameters: [header("Accept")],
            responses: { "200": { description: "ok", content: { "*/*": { schema: { type: "object" } } } } },
          },
        },
      }),
    );
    const [report, items, any] = specOf(result).tools;
    expect(report!["http"]["headers"]).toEqual({ Accept: "text/csv" });
    expect(items!["http"]["headers"]).toEqual({
      Accept: "application/vnd.api+json",
      "Content-Type": "application/vnd.api+json",
    });
    // A wildcard is the runtime's to choose (by the tool's output).
    expect(any!["http"]).not.toHaveProperty("headers");
    for (const tool of [report, items, any]) {
      expect(Object.keys(tool!["input"]["properties"])).not.toContainEqual(expect.stringMatching(/accept|content/i));
      expect(tool!["http"]).not.toHaveProperty("omitAbsent");
    }
    expect(result.text).not.toContain("kervancExtensions");
  });

  it("never writes a document's media type into a header as a template (it would send inputs and secrets)", () => {
    const result = imp(
      api({
        "/report/{id}": {
          get: {
            operationId: "report",
            parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
            responses: {
              "200": {
                description: "ok",
                content: { "text/x-{{input.id}}-{{secrets.K}}": { schema: { type: "string" } } },
              },
            },
          },
        },
      }),
    );
    const [report] = specOf(result).tools;
    const headers = (report!["http"]["headers"] ?? {}) as Record<string, string>;
    for (const value of Object.values(headers)) expect(value).not.toContain("{");
    expect(headers).not.toHaveProperty("Accept");
    expect(result.text).not.toMatch(/headers:.*\{\{/);
  });

  it("sends a deepObject query parameter as the document says: one name[key] entry per property", () => {
    const result = imp(
      api({
        "/t": {
          get: {
            operationId: "t",
            parameters: [
              {
                name: "filter",
                in: "query",
                style: "deepObject",
                explode: true,
                schema: { type: "object", properties: { status: { type: "string" }, priority: { type: "integer" } } },
              },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result)).toEqual([]);
    const tool = specOf(result).tools[0]!;
    expect(tool["http"]["query"]).toEqual({
      "filter[status]": "{{input.filter.status}}",
      "filter[priority]": "{{input.filter.priority}}",
    });
    expect(tool["input"]["properties"]["filter"]).toEqual({
      type: "object",
      properties: { status: { type: "string" }, priority: { type: "integer" } },
    });
  });

  it("offers a delimited array (explode: false) as the text the document asks for, never as repeated values", () => {
    const result = imp(
      api({
        "/t": {
          get: {
            operationId: "t",
            parameters: [
              {
                name: "ids",
                in: "query",
                explode: false,
                description: "Ticket ids.",
                schema: { type: "array", items: { type: "integer" } },
              },
              {
                name: "tags",
                in: "query",
                style: "pipeDelimited",
                explode: false,
                schema: { type: "array", items: { type: "string" } },
              },
              { name: "repeat", in: "query", schema: { type: "array", items: { type: "string" } } },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result)).toEqual([]);
    const tool = specOf(result).tools[0]!;
    expect(tool["input"]["properties"]).toEqual({
      ids: {
        description: "Ticket ids. Several values separated by commas (a,b,c) (each integer).",
        type: "string",
        pattern: "^(?:(?:-?[0-9]+)(?:,(?:-?[0-9]+))*)?$",
      },
      tags: { description: "Several values separated by | (a|b|c) (each string).", type: "string" },
      repeat: { type: "array", items: { type: "string" } },
    });
    expect(tool["http"]["query"]).toEqual({ ids: "{{input.ids}}", tags: "{{input.tags}}", repeat: "{{input.repeat}}" });
  });

  it("turns path templates into input references and percent-encodes literal braces", () => {
    const spec = specOf(imp(api({ "/a/{x}/b{y}c/{{z}}": { get: { operationId: "t", responses: ok200 } } })));
    expect(spec.tools[0]!["http"]["url"]).toBe(
      "https://api.example.com/v1/a/{{input.x}}/b{{input.y}}c/%7B{{input.z}}%7D",
    );
    expect(spec.tools[0]!["input"]["required"]).toEqual(["x", "y", "z"]);
  });

  it("leaves out a path whose '..' would remove a template, before kervanc build would refuse it", () => {
    const result = imp(api({ "/files/{name}/../raw": { get: { operationId: "raw", responses: ok200 } } }));
    expect(result.ok).toBe(false);
    expect(problems(result).map((d) => [d.code, d.path, d.message])).toEqual([
      ["KV7011", "paths", "None of the selected operations can be imported (see the warnings above)."],
      [
        "KV7010",
        'paths["/files/{name}/../raw"]',
        'The path "/files/{name}/../raw" has a "." or ".." segment, which a URL resolves away (the tool would call another path, perhaps outside the server\'s base path); the operation is left out.',
      ],
    ]);
  });
  it("reads an unknown style as no delimiter, even one named like an Object member (__proto__, constructor)", () => {
    for (const style of ["__proto__", "constructor", "toString", "matrix"]) {
      const result = imp(
        api({
          "/a": {
            get: {
              operationId: "a",
              parameters: [
                { name: "q", in: "query", style, explode: false, schema: { type: "array", items: { type: "string" } } },
              ],
              responses: ok200,
            },
          },
        }),
      );
      // Sent as repeated parameters from a list, as for any style a spec has no delimiter for.
      expect(specOf(result).tools[0]!["input"]["properties"]["q"], style).toEqual({
        type: "array",
        items: { type: "string" },
      });
    }
  });
});

describe("object and array styles in the query (issue 36, item 4)", () => {
  const tool = (parameters: unknown[]): Record<string, any> =>
    specOf(imp(api({ "/s": { get: { operationId: "s", parameters, responses: ok200 } } }))).tools[0]!;

  it("keeps the items' constraint on a delimited array's text (Xero's IDs: comma-separated uuids)", () => {
    // Found by the differential suite: the text input took any value, so a call could send IDs=abc, which the
    // document (items of format uuid) does not allow.
    const param = (name: string, items: object, style = "form") => ({
      name,
      in: "query",
      style,
      explode: false,
      schema: { type: "array", items },
    });
    const result = imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            parameters: [
              param("IDs", { type: "string", format: "uuid" }),
              param("n", { type: "integer" }, "pipeDelimited"),
              param("state", { type: "string", enum: ["open", "closed"] }, "spaceDelimited"),
              param("q", { type: "string" }),
            ],
            responses: ok200,
          },
        },
      }),
    );
    const props = specOf(result).tools[0]!["input"]["properties"];
    const uuid = new RegExp(props["IDs"].pattern as string, "u");
    expect(uuid.test("00000000-0000-4000-8000-000000000001,00000000-0000-4000-8000-000000000002")).toBe(true);
    expect(uuid.test("abc")).toBe(false);
    expect(new RegExp(props["n"].pattern as string, "u").test("1|-2|3")).toBe(true);
    expect(new RegExp(props["n"].pattern as string, "u").test("1,2")).toBe(false);
    expect(new RegExp(props["state"].pattern as string, "u").test("open closed")).toBe(true);
    expect(props["q"]).not.toHaveProperty("pattern");
  });

  it("asks for a documented text answer other than text/plain (DigitalOcean's text/csv invoice)", () => {
    // Found by the differential suite: the request sent the runtime's Accept for text (text/plain,
    // application/json), which does not cover the only type the operation documents.
    const answer = (type: string) => ({
      "200": { description: "OK", content: { [type]: { schema: { type: "string" } } } },
    });
    const result = imp(
      api({
        "/csv": { get: { operationId: "csv", responses: answer("text/csv") } },
        "/plain": { get: { operationId: "plain", responses: answer("text/plain") } },
      }),
    );
    const [csv, plain] = specOf(result).tools;
    expect(csv!["http"]["headers"]).toEqual({ Accept: "text/csv" });
    expect(plain!["http"]["headers"]).toBeUndefined();
  });

  it("sends a deepObject array as name[] (Stripe's expand[]=a&expand[]=b)", () => {
    const t = tool([
      {
        name: "expand",
        in: "query",
        style: "deepObject",
        explode: true,
        schema: { type: "array", items: { type: "string" } },
      },
    ]);
    expect(t["http"]["query"]).toEqual({ "expand[]": "{{input.expand}}" });
    expect(t["input"]["properties"]["expand"]).toMatchObject({ type: "array", items: { type: "string" } });
  });

  it("spreads an exploded form object into one parameter per property, required when the object is (Typesense)", () => {
    const t = tool([
      {
        name: "searchParameters",
        in: "query",
        required: true,
        schema: {
          type: "object",
          properties: { q: { type: "string" }, query_by: { type: "string" }, per_page: { type: "integer" } },
          required: ["q", "query_by"],
        },
      },
    ]);
    expect(t["http"]["query"]).toEqual({
      q: "{{input.searchParameters.q}}",
      query_by: "{{input.searchParameters.query_by}}",
      per_page: "{{input.searchParameters.per_page}}",
    });
    expect(t["input"]["required"]).toContain("searchParameters");
    expect(t["input"]["properties"]["searchParameters"]["required"]).toEqual(["q", "query_by"]);
  });

  it("leaves out an exploded object whose property a query cannot carry, saying so", () => {
    const result = imp(
      api({
        "/s": {
          get: {
            operationId: "s",
            parameters: [
              { name: "filter", in: "query", schema: { type: "object", properties: { range: { type: "object" } } } },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(specOf(result).tools[0]!["http"]).not.toHaveProperty("query");
    expect(
      problems(result)
        .map((d) => d.message)
        .join("\n"),
    ).toMatch(/filter/);
  });
});
