/**
 * Operations (import/operations.ts): the operations listed and the selection --include, --exclude and --read-only make.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, type ImportOptions, problems } from "./helpers.ts";

describe("selection", () => {
  const doc = api({
    "/pets": {
      get: { operationId: "listPets", tags: ["pets"], responses: ok200 },
      post: { operationId: "addPet", tags: ["pets"], responses: ok200 },
    },
    "/orders": {
      get: { tags: ["store"], responses: ok200 },
      delete: { operationId: "clearOrders", tags: ["store", "admin"], responses: ok200 },
    },
  });
  const names = (options: ImportOptions): string[] => specOf(imp(doc, options)).tools.map((t) => t["name"]);

  it("includes and excludes by tag, operationId or route, and keeps only GETs with --read-only", () => {
    expect(names({})).toEqual(["listPets", "addPet", "get_orders", "clearOrders"]);
    expect(names({ include: ["pets"] })).toEqual(["listPets", "addPet"]);
    expect(names({ include: ["pets", "clearOrders"] })).toEqual(["listPets", "addPet", "clearOrders"]);
    expect(names({ include: ["GET /orders"] })).toEqual(["get_orders"]);
    expect(names({ exclude: ["admin", "addPet"] })).toEqual(["listPets", "get_orders"]);
    expect(names({ readOnly: true })).toEqual(["listPets", "get_orders"]);
  });

  it("refuses selectors that match nothing, and selections that leave nothing", () => {
    expect(imp(doc, { include: ["pet"], exclude: ["nope"] }).diagnostics.map((d) => d.message)).toEqual([
      '--exclude "nope" matches no tag, operationId or route ("GET /path") of an operation.',
      '--include "pet" matches no tag, operationId or route ("GET /path") of an operation.',
    ]);
    expect(imp(doc, { include: ["addPet"], readOnly: true }).diagnostics.map((d) => d.message)).toEqual([
      "No operation is left to import after --include, --exclude and --read-only.",
    ]);
  });

  it("refuses more operations than a spec holds, listing the tags with their counts and the selectors to use", () => {
    const tag = (i: number): string[] => (i < 120 ? ["repos"] : i < 200 ? ["issues"] : i < 205 ? ["git data"] : []);
    const paths = Object.fromEntries(
      Array.from({ length: 206 }, (_, i) => [
        `/r${i}`,
        { [i % 2 === 0 ? "get" : "post"]: { operationId: `r${i}`, tags: tag(i), responses: ok200 } },
      ]),
    );
    const result = imp(api(paths));
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      '206 operations are selected, but a spec holds at most 200 tools. Operations by tag: repos 120, issues 80, git data 5, (untagged) 1. Choose with --include <tag|/path prefix|operationId|"METHOD /path"> (for example --include repos), --exclude, or --read-only (103 GET operations); import one document several times to cover more.',
    ]);
    // The selectors the message names work.
    expect(specOf(imp(api(paths), { include: ["issues"] })).tools).toHaveLength(80);
  });

  it("counts operations by path prefix when most have no tag (Stripe), and selects by path prefix", () => {
    const route = (i: number): string =>
      i < 150
        ? `/v1/customers/{id}/items${i}`
        : i < 190
          ? `/v1/charges/x${i}`
          : `/v1/invoices${i % 2 === 0 ? `/x${i}` : `/{id}/lines${i}`}`;
    const paths: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i < 210; i++)
      paths[route(i)] = {
        ...(paths[route(i)] ?? {}),
        [i % 2 === 0 ? "get" : "post"]: { operationId: `op${i}`, responses: ok200 },
      };
    const result = imp(api(paths));
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      '210 operations are selected, but a spec holds at most 200 tools. Operations by path: /v1/customers 150, /v1/charges 40, /v1/invoices 20. Choose with --include <tag|/path prefix|operationId|"METHOD /path"> (for example --include /v1/customers), --exclude, or --read-only (105 GET operations); import one document several times to cover more.',
    ]);
    expect(specOf(imp(api(paths), { include: ["/v1/charges", "/v1/invoices"] })).tools).toHaveLength(60);
    // A prefix matches whole segments only.
    expect(imp(api(paths), { include: ["/v1/charge"] }).diagnostics.map((d) => d.code)).toEqual(["KV7011"]);
  });
});

describe("skipping what cannot be imported (--skip-invalid)", () => {
  const doc = api(
    {
      "/good": { get: { operationId: "good", responses: ok200 } },
      "/tree": {
        post: {
          operationId: "tree",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } },
          },
          responses: ok200,
        },
      },
      "/files/{name}/../raw": { get: { operationId: "raw", responses: ok200 } },
      "/secured": { get: { operationId: "secured", security: [{ undeclared: [] }], responses: ok200 } },
    },
    {
      components: {
        schemas: {
          Node: {
            type: "object",
            properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
          },
        },
      },
    },
  );

  it("fails on the first operation that cannot be imported, without the option", () => {
    const result = imp(doc);
    expect(result.ok).toBe(false);
    // The "../raw" path is left out with a warning either way (route-paths.test.ts).
    expect(codes(result).sort()).toEqual(["error KV7003", "error KV7006", "warning KV7010"]);
  });

  it("imports the rest with one warning per skipped operation, naming it", () => {
    const result = imp(doc, { skipInvalid: true });
    expect(result.ok).toBe(true);
    expect(specOf(result).tools.map((t) => t["name"])).toEqual(["good"]);
    const skipped = problems(result).filter((d) => d.message.startsWith("Skipped "));
    expect(
      skipped
        .map((d) => [d.severity, d.code, d.message.split(" (--skip-invalid)")[0]])
        .sort((a, b) => (String(a) < String(b) ? -1 : 1)),
    ).toEqual([
      ["warning", "KV7003", "Skipped GET /secured (secured)"],
      ["warning", "KV7006", "Skipped POST /tree (tree)"],
    ]);
    // Before the importer left out paths with ".." segments itself, this one was the tool kervanc build refused
    // (KV7012); it is now a warning of its own.
    expect(codes(result)).toContain("warning KV7010");
    expect(result.diagnostics.every((d) => d.severity === "warning")).toBe(true);
  });
});

describe("a spec over the size a spec may have", () => {
  // 120 operations whose inputs have 30 described properties each: about 1.2 MB of spec.
  const properties = Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [
      `p${i}`,
      { type: "string", description: `${"Words about this field. ".repeat(12)}${i}` },
    ]),
  );
  const paths = Object.fromEntries(
    Array.from({ length: 120 }, (_, i) => [
      `/r${i}`,
      {
        post: {
          operationId: `r${i}`,
          requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties } } } },
          responses: ok200,
        },
      },
    ]),
  );

  it("refuses with the size and how to choose, without --skip-invalid", () => {
    const result = imp(api(paths));
    expect(result.ok).toBe(false);
    expect(problems(result).map((d) => d.message)).toEqual([
      expect.stringMatching(
        /^The spec for these 120 operations would be \d+ bytes, more than the 1048576 a spec may have; choose fewer with --include, --exclude or --read-only \(or --skip-invalid keeps the first ones that fit\)\.$/,
      ),
    ]);
  });

  it("keeps the first operations that fit under --skip-invalid, and says how many it left out", () => {
    const result = imp(api(paths), { skipInvalid: true });
    expect(result.ok).toBe(true);
    const kept = specOf(result).tools.length;
    expect(kept).toBeGreaterThan(50);
    expect(kept).toBeLessThan(120);
    expect(new TextEncoder().encode(result.text!).byteLength).toBeLessThanOrEqual(1_048_576);
    // (and the tools/list budget warning, KV9006, which such a server deserves, and the note that the optional
    // body properties use the kervanc extension omit-absent, KV8001)
    expect(
      problems(result)
        .filter((d) => d.code !== "KV9006" && d.code !== "KV8001")
        .map((d) => [d.severity, d.message.replace(/\d+ bytes/, "N bytes")]),
    ).toEqual([
      [
        "warning",
        `Skipped ${120 - kept} operations (--skip-invalid): the spec for all 120 would be N bytes, more than the 1048576 a spec may have; the first ${kept} are kept. The first skipped is r${kept}.`,
      ],
    ]);
  });
});

describe("paths with a #fragment", () => {
  it("sends the path without its fragment, and names the tools apart", () => {
    const spec = specOf(
      imp(
        api({
          "/files/{file_id}#get_shared_link": {
            get: {
              parameters: [{ name: "file_id", in: "path", required: true, schema: { type: "string" } }],
              responses: ok200,
            },
          },
          "/files/{file_id}": {
            get: {
              parameters: [{ name: "file_id", in: "path", required: true, schema: { type: "string" } }],
              responses: ok200,
            },
          },
          "/files/{file_id}#add_shared_link": {
            put: {
              operationId: "add_shared_link",
              parameters: [{ name: "file_id", in: "path", required: true, schema: { type: "string" } }],
              responses: ok200,
            },
          },
        }),
      ),
    );
    expect(spec.tools.map((t) => [t["name"], t["http"]["method"], t["http"]["url"]])).toEqual([
      ["get_files_file_id_get_shared_link", "GET", "https://api.example.com/v1/files/{{input.file_id}}"],
      ["get_files_file_id", "GET", "https://api.example.com/v1/files/{{input.file_id}}"],
      ["add_shared_link", "PUT", "https://api.example.com/v1/files/{{input.file_id}}"],
    ]);
  });
});

describe("methods", () => {
  it("leaves out HEAD, OPTIONS and TRACE operations with a warning", () => {
    const result = imp(
      api({ "/a": { head: { operationId: "h", responses: ok200 }, get: { operationId: "g", responses: ok200 } } }),
    );
    expect(codes(result)).toEqual(["warning KV7010"]);
    expect(specOf(result).tools.map((t) => t["name"])).toEqual(["g"]);
  });
});
