/**
 * Operations (import/operations.ts): the operations listed and the selection --include, --exclude and --read-only make.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, codes, api, ok200, type ImportOptions } from "./helpers.ts";

describe("selection", () => {
  const doc = api({
    "/pets": { get: { operationId: "listPets", tags: ["pets"], responses: ok200 }, post: { operationId: "addPet", tags: ["pets"], responses: ok200 } },
    "/orders": { get: { tags: ["store"], responses: ok200 }, delete: { operationId: "clearOrders", tags: ["store", "admin"], responses: ok200 } },
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
    expect(imp(doc, { include: ["addPet"], readOnly: true }).diagnostics.map((d) => d.message)).toEqual(["No operation is left to import after --include, --exclude and --read-only."]);
  });

  it("refuses more operations than a spec holds", () => {
    const paths = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`/r${i}`, { get: { operationId: `r${i}`, responses: ok200 } }]));
    expect(imp(api(paths)).diagnostics.map((d) => d.message)).toEqual(["201 operations are selected, but a spec holds at most 200 tools; choose with --include, --exclude or --read-only."]);
  });
});

describe("methods", () => {
  it("leaves out HEAD, OPTIONS and TRACE operations with a warning", () => {
    const result = imp(api({ "/a": { head: { operationId: "h", responses: ok200 }, get: { operationId: "g", responses: ok200 } } }));
    expect(codes(result)).toEqual(["warning KV7010"]);
    expect(specOf(result).tools.map((t) => t["name"])).toEqual(["g"]);
  });
});
