/**
 * analyze/rules/encodable-inputs.ts: KV3020, an input sent where its schema admits values the place cannot
 * encode (render.ts refuses them at run time). A warning in a spec Kervan can run, an error in one that declares
 * kervanc extensions.
 */
import { describe, expect, it } from "vitest";
import { findings, oneTool } from "./analyze-spec.ts";

const tool = (properties: string, http: string, top = ""): string =>
  oneTool(
    `    input: { type: object, properties: ${properties} }\n    http:\n${http}\n    output: { raw: true }\n`,
    top,
  );
const messages = (yaml: string): string[] =>
  findings(yaml, "KV3020").map((f) => `${f.severity} ${f.path} ${f.message.split(",")[0]}`);

describe("encodable-inputs", () => {
  it("accepts scalars everywhere, lists of scalars as a whole query value, anything as a whole body value", () => {
    const yaml = tool(
      `{ id: { type: integer }, q: { type: [string, "null"] }, tags: { type: array, items: { type: string } }, e: { enum: [a, 1, true] }, any: {}, obj: { type: object } }`,
      `      method: POST\n      url: https://api.example.com/items/{{input.id}}\n      query: { q: "{{input.q}}", tag: "{{input.tags}}", e: "x-{{input.e}}", list: ["{{input.tags}}"] }\n      headers: { X-Id: "{{input.id}}" }\n      body: { any: "{{input.any}}", obj: "{{input.obj}}", text: "id {{input.id}}" }`,
    );
    expect(findings(yaml, "KV3020")).toEqual([]);
  });

  it("reports each place that cannot encode what the schema admits, at the template", () => {
    const yaml = tool(
      `{ created: { anyOf: [{ type: object }, { type: integer }] }, ids: { type: array, items: { type: string } }, trace: { description: x }, rows: { type: array, items: { type: object } }, loose: { type: array } }`,
      `      method: POST\n      url: https://api.example.com/items/{{input.ids}}\n      query: { created: "{{input.created}}", rows: "{{input.rows}}", loose: "{{input.loose}}", mixed: "a {{input.ids}}" }\n      headers: { X-Trace: "{{input.trace}}" }\n      body: { text: "n {{input.created}}" }`,
    );
    expect(messages(yaml)).toEqual([
      "warning tools[0].http.url {{input.ids}} is sent as text here",
      "warning tools[0].http.query.created {{input.created}} is the whole value of a query parameter",
      "warning tools[0].http.query.rows {{input.rows}} is the whole value of a query parameter",
      "warning tools[0].http.query.loose {{input.loose}} is the whole value of a query parameter",
      "warning tools[0].http.query.mixed {{input.ids}} is sent as text here",
      'warning tools[0].http.headers["X-Trace"] {{input.trace}} is sent as text here',
      "warning tools[0].http.body.text {{input.created}} is sent as text here",
    ]);
    const [first] = findings(yaml, "KV3020");
    expect(first!.message).toContain("but its schema allows a list");
  });

  it("follows $ref, $anchor, allOf and enum; judges nothing below a level without properties", () => {
    const yaml = oneTool(
      `    input:\n      type: object\n      $defs: { n: { type: integer }, o: { $anchor: o, type: object } }\n      properties:\n        a: { $ref: "#/$defs/n" }\n        b: { $ref: "#o" }\n        c: { allOf: [{ type: [string, object] }, { type: string }] }\n        f: { type: object }\n    http:\n      url: https://api.example.com/{{input.a}}/{{input.b}}/{{input.c}}\n      query: { deep: "{{input.f.any.depth}}" }\n    output: { raw: true }\n`,
    );
    expect(messages(yaml)).toEqual(["warning tools[0].http.url {{input.b}} is sent as text here"]);
  });

  it("is an error in a spec that declares kervanc extensions (it does not run on Kervan anyway), but for an untyped schema", () => {
    const yaml = tool(
      `{ created: { type: object } }`,
      `      url: https://api.example.com/items\n      query: { created: "{{input.created}}" }\n      omitAbsent: true`,
      "kervancExtensions: [omit-absent]\n",
    );
    expect(findings(yaml, "KV3020").map((f) => f.severity)).toEqual(["error"]);
    // An untyped schema stays a warning there: `{}` is often meant for scalars, and such specs build today.
    expect(findings(yaml.replace("created: { type: object }", "created: {}"), "KV3020").map((f) => f.severity)).toEqual(
      ["warning"],
    );
  });

  it("places the diagnostic on the reference inside the string", () => {
    const yaml = tool(`{ o: { type: object } }`, `      url: "https://api.example.com/x/{{input.o}}"`);
    const [found] = findings(yaml, "KV3020");
    expect(found).toMatchObject({ line: 9, column: 39 });
  });
});
