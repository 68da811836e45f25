/**
 * Imported tools that send what the document says, or are left out with a word (issue 36), in process: a
 * `?query` in a path key is kept in the URL, an operation that is a `$ref` to another file is refused rather than
 * imported hollow, an operation that documents only redirects is left out, and `Accept`/`Content-Type` are never
 * model inputs (the document's one value is sent as written).
 */
import { describe, expect, it } from "vitest";
import { importOpenApi } from "../../packages/compiler/src/import/openapi.ts";

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const run = (paths: Record<string, unknown>) =>
  importOpenApi(
    "api.json",
    new TextEncoder().encode(
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "T", version: "1" },
        servers: [{ url: "https://api.example.com" }],
        paths,
      }),
    ),
    "spec.yaml",
  );

describe("kervanc import keeps what the document says", () => {
  it("keeps a path key's ?query in the URL, and leaves out one that is not plain text", () => {
    const r = run({
      "/things?beta=true": { get: { operationId: "beta", responses: ok } },
      "/odd?x={y}": { get: { operationId: "odd", responses: ok } },
    });
    expect(r.text).toContain("url: https://api.example.com/things?beta=true");
    expect(r.text).not.toContain("name: odd");
    expect(r.diagnostics.map((d) => d.message).join("\n")).toContain('The path "/odd?x={y}" carries a query');
  });

  it("refuses an operation that is a $ref to another file", () => {
    const r = run({ "/ext": { get: { $ref: "resources/list.yml" } } });
    expect(r.ok).toBe(false);
    expect(r.diagnostics.find((d) => d.code === "KV7004")).toMatchObject({ path: 'paths["/ext"].get.$ref' });
  });

  it("follows an operation that is a $ref within the document", () => {
    const r = importOpenApi(
      "api.json",
      new TextEncoder().encode(
        JSON.stringify({
          openapi: "3.1.0",
          info: { title: "T", version: "1" },
          servers: [{ url: "https://api.example.com" }],
          paths: { "/a": { get: { $ref: "#/x-operations/listA" } } },
          "x-operations": { listA: { operationId: "listA", responses: ok } },
        }),
      ),
      "spec.yaml",
    );
    expect(r.ok).toBe(true);
    expect(r.text).toContain("name: listA");
  });

  it("leaves out an operation that documents only redirects", () => {
    const r = run({
      "/redir": { get: { operationId: "redir", responses: { "302": { description: "moved" } } } },
      "/fine": { get: { operationId: "fine", responses: ok } },
    });
    expect(r.text).not.toContain("name: redir");
    expect(r.diagnostics.find((d) => d.message.includes("only redirects"))).toMatchObject({ severity: "warning" });
  });

  it("never makes Accept or Content-Type a model input, and sends the document's one value", () => {
    const header = (name: string, schema: unknown) => ({ name, in: "header", required: true, schema });
    const r = run({
      "/gh": {
        get: {
          operationId: "gh",
          parameters: [
            header("Accept", { type: "string", default: "application/vnd.github+json" }),
            header("Content-Type", { type: "string" }),
          ],
          responses: ok,
        },
      },
    });
    expect(r.text).toContain("headers: { Accept: application/vnd.github+json }");
    expect(r.text).not.toMatch(/input\.(accept|Accept|content_type|Content)/);
  });
});
