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
              { name: "X-Trace", in: "header", schema: { type: "string" } },
              { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
              { name: "Host", in: "header", required: true, schema: { type: "string" } },
              { name: "where", in: "query", schema: { type: "object", properties: { x: { type: "string" } } } },
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
      ids: { description: "Ticket ids. Several values separated by commas (a,b,c) (each integer).", type: "string" },
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
