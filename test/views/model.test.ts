/**
 * The view description a page draws from (plan/view-model.ts), and the views rule (analyze/rules/views.ts):
 * columns and card fields from the output schema, titles and descriptions, formats, `$ref`s, nesting and the
 * field cap; KV8002 without the extension, KV8030 for a schema the view cannot draw.
 */
import { describe, expect, it } from "vitest";
import { autoKind, viewModel, VIEW_LIMITS } from "../../packages/compiler/src/plan/view-model.ts";
import { htmlScriptJson } from "../../packages/compiler/src/emit/code/code.ts";
import { compileSpec } from "../../packages/compiler/src/compile.ts";

const ITEM = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name" },
    price: { type: "number", description: "Price in euros" },
    added: { type: "string", format: "date" },
    page: { type: ["string", "null"], format: "uri" },
    maker: { type: "object", properties: { country: { type: "string" } } },
  },
};

describe("viewModel", () => {
  it("makes a table's columns from the item properties, in order, with titles, hints and formats", () => {
    const model = viewModel("table", { type: "array", items: ITEM }, "Products");
    expect(model.kind).toBe("table");
    expect(model.title).toBe("Products");
    expect(model.fields.map((f) => [f.key, f.label, f.type, f.format ?? null, f.hint ?? null])).toEqual([
      ["name", "Name", "string", null, null],
      ["price", "price", "number", null, "Price in euros"],
      ["added", "added", "string", "date", null],
      ["page", "page", "string", "uri", null],
      ["maker", "maker", "object", null, null],
    ]);
    expect(model.fields[4]!.fields?.map((f) => f.key)).toEqual(["country"]);
  });

  it("follows same-document $refs and caps the fields", () => {
    const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { type: "integer" }]));
    const schema = { $defs: { item: { type: "object", properties } }, type: "array", items: { $ref: "#/$defs/item" } };
    expect(autoKind(schema)).toBe("table");
    expect(viewModel("table", schema, "t").fields).toHaveLength(VIEW_LIMITS.maxFields);
  });

  it("picks table, card or nothing for auto", () => {
    expect(autoKind({ type: "array", items: ITEM })).toBe("table");
    expect(autoKind(ITEM)).toBe("card");
    expect(autoKind({ type: "array", items: { type: "string" } })).toBeNull();
    expect(autoKind({ type: "object" })).toBeNull();
  });

  it("embeds as JSON that cannot end its script element", () => {
    const text = htmlScriptJson({ label: "</script><script>alert(1)</script><!-- & \u2028" });
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual({ label: "</script><script>alert(1)</script><!-- & \u2028" });
  });
});

function spec(output: string, extensions = "kervancExtensions: [views]\n"): string {
  return `specVersion: 1\nname: s\nversion: "1.0.0"\n${extensions}tools:\n  - name: t\n    description: t\n    http: { url: "https://api.example.com/x" }\n    output:\n${output}`;
}

function codes(yaml: string): string[] {
  const result = compileSpec("s.yaml", new TextEncoder().encode(yaml));
  return result.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`);
}

describe("the views rule", () => {
  it("accepts each view on a schema of its shape", () => {
    expect(
      codes(
        spec(
          `      select: "@"\n      schema: { type: array, items: { type: object, properties: { a: { type: string } } } }\n      view: table\n`,
        ),
      ),
    ).toEqual([]);
    expect(
      codes(
        spec(
          `      select: "@"\n      schema: { type: object, properties: { a: { type: string } } }\n      view: auto\n`,
        ),
      ),
    ).toEqual([]);
  });

  it("refuses a view without the extension declared", () => {
    const found = codes(
      spec(
        `      select: "@"\n      schema: { type: object, properties: { a: { type: string } } }\n      view: card\n`,
        "",
      ),
    );
    expect(found).toEqual([expect.stringMatching(/^KV8002 output.view is the kervanc extension views/)]);
  });

  it("refuses a table whose schema is not a list of objects, a card of a list, a view without schema", () => {
    expect(
      codes(
        spec(
          `      select: "@"\n      schema: { type: object, properties: { a: { type: string } } }\n      view: table\n`,
        ),
      ),
    ).toEqual([expect.stringMatching(/^KV8030 view: table needs/)]);
    expect(
      codes(
        spec(
          `      select: "@"\n      schema: { type: array, items: { type: object, properties: { a: { type: string } } } }\n      view: card\n`,
        ),
      ),
    ).toEqual([expect.stringMatching(/^KV8030 view: card needs/)]);
    expect(codes(spec(`      select: "@"\n      view: auto\n`))).toEqual([
      expect.stringMatching(/^KV8030 A view is drawn/),
    ]);
    expect(codes(spec(`      select: "@"\n      schema: { type: string }\n      view: auto\n`))).toEqual([
      expect.stringMatching(/^KV8030 view: auto found neither/),
    ]);
  });

  it("reports a view's broken output schema as the schema rules do, without a crash", () => {
    // A malformed %-escape in a $ref made the views rule throw (URIError) before the schema's own findings.
    const found = codes(spec(`      select: "@"\n      schema: { $ref: "#/%zz" }\n      view: card\n`));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.startsWith("KV5015"))).toBe(true);
    expect(viewModel("card", { $ref: "#/%zz" }, "t").fields).toEqual([]);
  });

  it("refuses a value that is not a view", () => {
    const found = codes(
      spec(
        `      select: "@"\n      schema: { type: object, properties: { a: { type: string } } }\n      view: grid\n`,
      ),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^KV2/);
  });
});
