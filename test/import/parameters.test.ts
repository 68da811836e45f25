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
              { name: "filter", in: "query", style: "deepObject", schema: { type: "object", properties: { x: { type: "string" } } } },
              { name: "X-Trace", in: "header", schema: { type: "string" } },
              { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
              { name: "Host", in: "header", required: true, schema: { type: "string" } },
              { name: "ids", in: "query", explode: false, schema: { type: "array", items: { type: "integer" } } },
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
    const tool = specOf(result).tools[0]!;
    expect(Object.keys(tool["input"]["properties"])).toEqual(["ids"]);
    expect(tool["http"]["headers"]).toBeUndefined();
  });

  it("turns path templates into input references and percent-encodes literal braces", () => {
    const spec = specOf(imp(api({ "/a/{x}/b{y}c/{{z}}": { get: { operationId: "t", responses: ok200 } } })));
    expect(spec.tools[0]!["http"]["url"]).toBe("https://api.example.com/v1/a/{{input.x}}/b{{input.y}}c/%7B{{input.z}}%7D");
    expect(spec.tools[0]!["input"]["required"]).toEqual(["x", "y", "z"]);
  });

  it("refuses, as kervanc build would, a path whose '..' removes a template (KV7012 at the operation)", () => {
    const result = imp(api({ "/files/{name}/../raw": { get: { operationId: "raw", responses: ok200 } } }));
    expect(result.ok).toBe(false);
    expect(problems(result).map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7012",
        'paths["/files/{name}/../raw"].get',
        'kervanc build would refuse the tool made from this operation: KV3017 tools[0].http.url: The URL\'s path drops {{input.name}}: a ".." segment after it removes it. Write the path without "..".',
      ],
    ]);
  });
});
