/**
 * `kervanc import` in process, as a whole: the fixture documents give their golden specs and diagnostics, every
 * spec the import writes is one the compiler accepts, and the rules that belong to no one OpenAPI object (reading,
 * names, schemas, visible text, budgets) hold one by one. Each part of the importer has its own file:
 * operations, servers, security, parameters, request-body and responses (.test.ts).
 *
 * Goldens live in fixtures/openapi/expected/. After an intended change, regenerate them (and every other golden)
 * with `npm run accept`, and review the diff.
 */
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { build } from "../../packages/compiler/src/build.ts";
import { importOpenApi } from "../../packages/compiler/src/import/openapi.ts";
import { REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { api, bodyOf, codes, importFixture, type ImportResult, imp, ok200, specOf, text, problems } from "./helpers.ts";

const GOOD = ["petstore.yaml", "tickets.json", "notes.yaml"];
const HOSTILE = readdirSync(join(REPO, "fixtures/openapi/hostile")).sort();

describe("fixture documents", () => {
  it.each(GOOD)("%s imports to its golden spec, which kervanc builds without a problem", async (name) => {
    const result = importFixture(`fixtures/openapi/${name}`);
    expect(result.ok, text(result.diagnostics)).toBe(true);
    const stale =
      "The imported spec or its diagnostics differ from the golden: if the change is intended, run npm run accept";
    await expect(result.text, stale).toMatchFileSnapshot(
      join(REPO, "fixtures/openapi/expected", name.replace(/\.(json|yaml)$/, ".yaml")),
    );
    await expect(text(result.diagnostics), stale).toMatchFileSnapshot(
      join(REPO, "fixtures/openapi/expected", `${name.replace(/\.(json|yaml)$/, "")}.diagnostics.txt`),
    );
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    // Only the note that an extension it declares (omit-absent, for optional body fields) is not portable.
    expect(compiled.diagnostics.filter((d) => !(d.code === "KV8001" && d.severity === "info"))).toEqual([]);
    expect(compiled.planned?.tools.length).toBe(result.tools.length);
  });

  it.each(GOOD)("%s imports to the same bytes every time", (name) => {
    expect(importFixture(`fixtures/openapi/${name}`).text).toBe(importFixture(`fixtures/openapi/${name}`).text);
  });

  it.each(HOSTILE)("hostile/%s is refused with positioned errors, and nothing to write", async (name) => {
    const path = `fixtures/openapi/hostile/${name}`;
    const result = importFixture(path);
    expect(result.ok).toBe(false);
    expect(result.text).toBeNull();
    expect(result.diagnostics.some((d) => d.severity === "error")).toBe(true);
    const lines = readFileSync(join(REPO, path), "utf8").split("\n");
    for (const d of result.diagnostics) {
      expect(d.file).toBe(path);
      expect(d.line).toBeGreaterThanOrEqual(1);
      expect(d.line).toBeLessThanOrEqual(lines.length);
      expect(d.column).toBeGreaterThanOrEqual(1);
      expect(d.column).toBeLessThanOrEqual(lines[d.line - 1]!.length + 1);
    }
    await expect(
      text(result.diagnostics),
      "The diagnostics differ from the golden: if the change is intended, run npm run accept",
    ).toMatchFileSnapshot(
      join(REPO, "fixtures/openapi/expected/hostile", `${name.replace(/\.(json|yaml)$/, "")}.diagnostics.txt`),
    );
  });

  it("imports the recursive document's other operation on its own: a cycle in a response only ends the proposal", () => {
    const result = importFixture("fixtures/openapi/hostile/cycle.yaml", { include: ["getNode"] });
    const spec = specOf(result);
    expect(spec.tools.map((t) => t["name"])).toEqual(["getNode"]);
    // The cycle is read as far as a proposal reads objects (three deep), then ends.
    expect(spec.tools[0]!["output"]["select"]).toBe(
      "{name: name, children: children[*].{name: name, children: children[*].{name: name, children: children[*].{name: name}}}}",
    );
  });

  it("imports the plain-http document with secrets once --server-url gives https", () => {
    const spec = specOf(
      importFixture("fixtures/openapi/hostile/http-secrets.yaml", { serverUrl: "https://legacy.example.com/api" }),
    );
    expect(spec.secrets).toEqual([{ name: "KEY", hosts: ["legacy.example.com:443"] }]);
    expect(spec.tools[0]!["http"]).toEqual({
      method: "GET",
      url: "https://legacy.example.com/api/report",
      query: { apikey: "{{secrets.KEY}}" },
    });
  });
});

describe("reading hostile bytes", () => {
  const bytes = (b: Uint8Array): ImportResult => importOpenApi("api.yaml", b, "spec.yaml");

  it("refuses a document over 32 MiB before parsing it", () => {
    const result = bytes(new Uint8Array(32 * 1024 * 1024 + 1).fill(0x20));
    expect(codes(result)).toEqual(["error KV7001"]);
    expect(result.diagnostics[0]!.message).toBe(
      "The OpenAPI document is larger than 33554432 bytes (it has 33554433).",
    );
  });

  it("hands back the text it decoded, for code frames (the command does not decode the bytes again)", () => {
    const yaml = "openapi: 3.1.0\ninfo: [\n";
    expect(bytes(new TextEncoder().encode(yaml)).documentText).toBe(yaml);
    const json = '{"openapi": "3.1.0", "openapi": "3.0.0"}';
    expect(bytes(new TextEncoder().encode(`\ufeff${json}`)).documentText).toBe(json);
    const ok = importFixture("fixtures/openapi/notes.yaml");
    expect(ok.ok).toBe(true);
    expect(ok.documentText).toBe(readFileSync(join(REPO, "fixtures/openapi/notes.yaml"), "utf8"));
    expect(bytes(new Uint8Array([0x6f, 0x3a, 0x20, 0xff])).documentText).toBeUndefined();
  });

  it("refuses text that is not UTF-8, control characters and empty files, with positions", () => {
    expect(codes(bytes(new Uint8Array([0x6f, 0x3a, 0x20, 0xff])))).toEqual(["error KV7001"]);
    const control = bytes(new TextEncoder().encode("openapi: 3.1.0\ninfo:\u0007 x\n"));
    expect(control.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["KV7002", 2, 6]]);
    expect(codes(bytes(new TextEncoder().encode("  \n")))).toEqual(["error KV7002"]);
  });

  it("refuses nesting too deep to read, without a crash", () => {
    const deep = `openapi: 3.1.0\nx: ${"[".repeat(20000)}${"]".repeat(20000)}\n`;
    const result = imp(deep);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.every((d) => d.code === "KV7002" || d.code === "KV7003")).toBe(true);
  });

  it("reads JSON fast, and still refuses repeated keys and places syntax errors", () => {
    const json = (text: string): ImportResult => importOpenApi("api.json", new TextEncoder().encode(text), "spec.yaml");
    expect(
      json('{\n  "openapi": "3.1.0",\n  "info": {},\n  "openapi": "3.0.0"\n}').diagnostics.map((d) => [
        d.code,
        d.line,
        d.column,
        d.message,
      ]),
    ).toEqual([["KV7002", 4, 3, 'The key "openapi" appears twice in the same mapping.']]);
    expect(
      json('{\n  "openapi": "3.1.0",\n  "info": { "title": "x" ]\n}').diagnostics.map((d) => [d.code, d.line]),
    ).toEqual([["KV7002", 3]]);
    const placed = json(
      '{"openapi":"3.1.0","info":{"title":"J","version":"1"},"servers":[{"url":"/rel"}],\n "paths":{"/a":{"get":{"operationId":"a","responses":{}}}}}',
    );
    expect(placed.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["KV7008", 1, 73]]);
  });

  it("refuses an alias inside its own anchor and non-core tags", () => {
    expect(imp("openapi: 3.1.0\na: &x [ *x ]\n").diagnostics.map((d) => d.message)).toEqual([
      "The alias *x is inside the node it refers to, which would make the document infinitely deep.",
    ]);
    expect(imp("openapi: 3.1.0\na: !!js/function 'x'\n").diagnostics[0]!.code).toBe("KV7002");
  });

  /** `l0` (ten empty lists) and `levels` more levels of ten aliases each to the level before. */
  const laughs = (levels: number): string[] => [
    "  l0: &a0 [[],[],[],[],[],[],[],[],[],[]]",
    ...Array.from({ length: levels }, (_, i) => `  l${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(",")}]`),
  ];
  const operation = (schema: string): string =>
    `servers: [{ url: "https://api.example.com" }]\npaths: { /a: { post: { operationId: a, requestBody: { content: { application/json: { schema: ${schema} } } }, responses: { '200': { description: OK } } } } }\n`;
  const EXPANDS =
    "The document's YAML aliases expand to more than 33554432 values and characters of text in all; an OpenAPI document shares schemas with $ref, not aliases.";
  const VALUES =
    "The input schema of a, with its $refs inlined, has const, default and enum values of more than 65536 bytes of JSON (the spec's limit). Leave the operation out (--exclude a) or simplify its schemas.";

  it("refuses YAML aliases that expand past the cap at the alias that passes it, used or not", () => {
    // 10^8 empty lists from eight levels: an alias is charged its anchor's expanded size, empty lists included.
    const doc = ["openapi: 3.1.0", "x-defs:", ...laughs(7), ""].join("\n");
    const result = imp(doc + operation("{ type: object }"));
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.line, d.column, d.message])).toEqual([["KV7002", 10, 16, EXPANDS]]);
    // A long text counts by its characters: 33 uses of a million characters pass the cap with 33 aliases.
    const text = `openapi: 3.1.0\nx-t: &t "${"x".repeat(1_000_000)}"\nx-u: [${Array(40).fill("*t").join(", ")}]\n`;
    expect(imp(text).diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([["KV7002", 3, EXPANDS]]);
  });

  it("budgets the const, default and enum values it copies, shared by aliases or repeated by $refs", () => {
    // 10^6 empty lists (3.5 MB as JSON) under the reading cap: copying the value would write all of them out.
    const head = ["openapi: 3.1.0", "x-defs:", ...laughs(5)].join("\n") + "\n";
    for (const keyword of ["const: *a5", "default: *a5", "enum: [*a5]"]) {
      const result = imp(head + operation(`{ type: object, properties: { x: { ${keyword} } } }`));
      expect(
        result.diagnostics.map((d) => [d.code, d.message]),
        keyword,
      ).toEqual([["KV7007", VALUES]]);
    }
    // Each within the budget, but inlined through $refs four times.
    const big = `"${"x".repeat(20_000)}"`;
    const refs = imp(
      "openapi: 3.1.0\n" +
        operation(
          "{ type: object, properties: { a: { $ref: '#/components/schemas/Big' }, b: { $ref: '#/components/schemas/Big' }, c: { $ref: '#/components/schemas/Big' }, d: { $ref: '#/components/schemas/Big' } } }",
        ) +
        `components: { schemas: { Big: { type: string, const: ${big} } } }\n`,
    );
    expect(problems(refs).map((d) => [d.code, d.message])).toEqual([["KV7007", VALUES]]);
  });

  it("says what is wrong with documents that are not OpenAPI 3.0 or 3.1", () => {
    expect(imp("- a\n- b\n").diagnostics[0]!.message).toBe(
      "The document is not an OpenAPI document: its top level is not a mapping.",
    );
    expect(imp({ info: { title: "x" } }).diagnostics[0]!.message).toBe(
      'The document has no "openapi" version string (such as "3.1.0"); is it an OpenAPI document?',
    );
    expect(imp({ openapi: "3.2.0", info: {}, paths: {} }).diagnostics[0]!.message).toBe(
      "OpenAPI 3.2.0 is not supported; kervanc import reads OpenAPI 3.0 and 3.1.",
    );
    expect(imp({ openapi: "3.1.0", info: {}, paths: {} }).diagnostics.map((d) => d.message)).toEqual([
      "The document has no operations to import.",
    ]);
    expect(imp({ openapi: "3.1.0", info: {}, paths: [] }).diagnostics.map((d) => d.message)).toEqual([
      "paths must be a mapping from paths to path items.",
    ]);
  });

  it("reads names under properties as names: $id, $ref and $schema properties are left out of inputs and outputs, not refused", () => {
    const props = {
      type: "object",
      properties: {
        $id: { type: "string" },
        $ref: { type: "string" },
        $schema: { type: "string" },
        name: { type: "string" },
      },
      required: ["$ref", "name"],
    };
    const result = imp(
      api({
        "/p": {
          post: {
            operationId: "p",
            requestBody: { required: true, content: { "application/json": { schema: props } } },
            responses: { "200": { description: "OK", content: { "application/json": { schema: props } } } },
          },
        },
      }),
    );
    const tool = specOf(result).tools[0]!;
    expect(bodyOf(tool)).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
    });
    expect(tool["output"]["select"]).toBe("{name: name}");
    expect(problems(result).map((d) => [d.code, d.path.replace(/^.*\.properties\./, "")])).toEqual([
      ["KV7010", "$id"],
      ["KV7010", "$ref"],
      ["KV7010", "$schema"],
    ]);
  });

  const bodyWith = (properties: string): string => `openapi: 3.1.0
info: { title: P, version: "1" }
servers: [{ url: "https://p.example.com" }]
paths:
  /p:
    post:
      operationId: p
      requestBody:
        required: true
        content: { application/json: { schema: { type: object, properties: { ${properties} } } } }
      responses: { "200": { description: OK } }
`;

  it("keeps document keys as data: constructor and toString are properties like any other", () => {
    const spec = specOf(imp(bodyWith("constructor: { type: integer }, toString: { type: string }")));
    const body = bodyOf(spec.tools[0]!);
    expect(Object.keys(body.properties)).toEqual(["constructor", "toString"]);
    expect(spec.tools[0]!["http"]["body"]).toEqual({
      constructor: "{{input.constructor}}",
      toString: "{{input.toString}}",
    });
    expect(Object.getPrototypeOf(body.properties)).toBe(Object.prototype);
  });

  it("refuses __proto__ as a property name (KV5017: Ajv would never check it), touching no prototype", () => {
    expect(() => specOf(imp(bodyWith("__proto__: { type: string }, constructor: { type: integer }")))).toThrow(
      /KV5017 tools\[0\]\.input\.properties\.body\.properties\.__proto__/,
    );
    expect(Object.prototype).not.toHaveProperty("type");
  });
});

describe("names", () => {
  it("makes operationIds valid, at most 64 characters and unique; falls back to method and path", () => {
    const op = (operationId?: string) => ({
      get: { ...(operationId !== undefined ? { operationId } : {}), responses: ok200 },
    });
    const spec = specOf(
      imp(
        api({
          "/a": op("list pets/all"),
          "/b": op("list_pets_all"),
          "/c": op("x".repeat(80)),
          "/d": op("X".repeat(80)),
          "/users/{userId}/repos": {
            get: {
              parameters: [{ name: "userId", in: "path", required: true, schema: { type: "string" } }],
              responses: ok200,
            },
          },
        }),
      ),
    );
    const names = spec.tools.map((t) => t["name"] as string);
    expect(names).toEqual([
      "list_pets_all",
      "list_pets_all_2",
      expect.stringMatching(/^x{57}_[0-9a-f]{6}$/),
      expect.stringMatching(/^X{57}_[0-9a-f]{6}$/),
      "get_users_userId_repos",
    ]);
    // Two long names that differ only in case still differ where clients fold case: their hashes differ.
    expect(names[2]!.toLowerCase()).not.toBe(names[3]!.toLowerCase());
  });

  it("renames parameters that templates cannot reference, and keeps the API's names on the wire", () => {
    const spec = specOf(
      imp(
        api({
          "/items/{item-id}": {
            get: {
              operationId: "get",
              parameters: [
                { name: "item-id", in: "path", required: true, schema: { type: "string" } },
                { name: "page[size]", in: "query", schema: { type: "integer" } },
                { name: "X-Request-Id", in: "header", required: true, schema: { type: "string" } },
                { name: "2fa", in: "query", schema: { type: "string" } },
              ],
              responses: ok200,
            },
          },
        }),
      ),
    );
    const tool = spec.tools[0]!;
    expect(Object.keys(tool["input"]["properties"])).toEqual(["item_id", "page_size", "_2fa", "x_request_id"]);
    expect(tool["http"]).toMatchObject({
      url: "https://api.example.com/v1/items/{{input.item_id}}",
      query: { "page[size]": "{{input.page_size}}", "2fa": "{{input._2fa}}" },
      headers: { "X-Request-Id": "{{input.x_request_id}}" },
    });
  });

  it("resolves collisions between path, query, header and body names in that order", () => {
    const spec = specOf(
      imp(
        api({
          "/w/{id}": {
            post: {
              operationId: "collide",
              parameters: [
                { name: "id", in: "path", required: true, schema: { type: "string" } },
                { name: "id", in: "query", schema: { type: "string" } },
                { name: "ID", in: "header", required: true, schema: { type: "string" } },
                { name: "id", in: "header", required: true, schema: { type: "string" } },
                { name: "body", in: "query", schema: { type: "boolean" } },
              ],
              requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
              responses: ok200,
            },
          },
        }),
      ),
    );
    const tool = spec.tools[0]!;
    // Headers are case-insensitive: the second "id" header replaces "ID" as the operation's own parameter would.
    expect(Object.keys(tool["input"]["properties"])).toEqual(["id", "id_query", "body", "id_header", "request_body"]);
    expect(tool["http"]).toMatchObject({
      url: "https://api.example.com/v1/w/{{input.id}}",
      query: { id: "{{input.id_query}}", body: "{{input.body}}" },
      headers: { id: "{{input.id_header}}" },
      body: "{{input.request_body}}",
    });
    expect(tool["input"]["required"]).toEqual(["id", "id_header", "request_body"]);
  });

  it("names the server from the title and secrets from the scheme names", () => {
    const spec = specOf(
      imp(
        api(
          { "/a": { get: { operationId: "a", security: [{ bearerAuth: [], "x-api-key": [] }], responses: ok200 } } },
          {
            info: { title: "Ünïcode   API: v2!", version: "2" },
            components: {
              securitySchemes: {
                bearerAuth: { type: "http", scheme: "bearer" },
                "x-api-key": { type: "apiKey", in: "header", name: "X-Api-Key" },
              },
            },
          },
        ),
      ),
    );
    expect(spec["name"]).toBe("unicode-api-v2");
    expect(spec.secrets?.map((s) => s.name)).toEqual(["BEARER_AUTH", "X_API_KEY"]);
  });
});

describe("schemas", () => {
  const bodySchema = (schema: unknown, version = "3.0.3", components: unknown = {}): Record<string, unknown> => {
    const result = imp({
      ...api({
        "/a": {
          post: {
            operationId: "a",
            requestBody: { required: true, content: { "application/json": { schema } } },
            responses: ok200,
          },
        },
      }),
      openapi: version,
      components,
    });
    return bodyOf(specOf(result).tools[0]!);
  };

  it("converts OpenAPI 3.0 nullable, boolean exclusive bounds and drops annotations Ajv's strict mode does not know", () => {
    expect(
      bodySchema({
        type: "object",
        discriminator: { propertyName: "kind" },
        xml: { name: "x" },
        "x-internal": true,
        externalDocs: { url: "https://x" },
        example: { a: 1 },
        properties: {
          a: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false, example: 3 },
          b: { type: "string", nullable: true, enum: ["x", "y"] },
          c: { type: "string", format: "phone" },
          d: { type: "string", format: "date-time", pattern: "^[\\w-.]+$" },
          e: { type: "array", items: [{ type: "string" }, { type: "integer" }] },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        a: { type: "integer", maximum: 10, exclusiveMinimum: 0 },
        b: { type: ["string", "null"], enum: ["x", "y", null] },
        c: { type: "string" },
        d: { type: "string", format: "date-time" },
        e: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], minItems: 0 },
      },
    });
  });

  it("drops keywords that do not apply to their schema's type, with one summary note for the whole document", () => {
    const scalar = { type: "string", uniqueItems: true, minimum: 1, maxLength: 5 };
    const op = (id: string) => ({
      post: {
        operationId: id,
        parameters: [
          {
            name: "q",
            in: "query",
            schema: { type: "array", items: { type: "string" }, uniqueItems: true, maxLength: 3 },
          },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: { a: scalar, b: scalar, n: { type: "integer", minItems: 1, maximum: 9 } },
              },
            },
          },
        },
        responses: ok200,
      },
    });
    const result = imp(api({ "/a": op("a"), "/b": op("b") }));
    const body = bodyOf(specOf(result).tools[0]!);
    expect(body.properties).toMatchObject({
      a: { type: "string", maxLength: 5 },
      b: { type: "string", maxLength: 5 },
      n: { type: "integer", maximum: 9 },
    });
    expect(specOf(result).tools[0]!["input"]["properties"]["q"]).toEqual({
      type: "array",
      items: { type: "string" },
      uniqueItems: true,
    });
    expect(
      problems(result)
        .filter((d) => d.code !== "KV8001")
        .map((d) => [d.code, d.line, d.message]),
    ).toEqual([
      [
        "KV7010",
        1,
        "12 schema keywords that do not apply to their schema's type (minimum 4, uniqueItems 4, maxLength 2, minItems 2) were left out of the input schemas: they check nothing.",
      ],
    ]);
  });

  it("warns when it drops a pattern that Unicode regular expressions refuse", () => {
    const result = imp({
      ...api({
        "/a": {
          get: {
            operationId: "a",
            parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^[\\w-.]+$" } }],
            responses: ok200,
          },
        },
      }),
      openapi: "3.0.3",
    });
    expect(problems(result).map((d) => [d.code, d.path])).toEqual([
      ["KV7010", 'paths["/a"].get.parameters[0].schema.pattern'],
    ]);
    expect(problems(result)[0]!.message).toMatch(
      /^The pattern is left out: it is not a valid regular expression in Unicode mode \(/,
    );
  });

  it("inlines local references and leaves out readOnly properties (and their required entries) from requests", () => {
    const components = {
      schemas: {
        Base: {
          type: "object",
          required: ["id", "name"],
          properties: { id: { type: "integer", readOnly: true }, name: { $ref: "#/components/schemas/Name" } },
        },
        Name: { type: "string", minLength: 1, description: "A name." },
      },
    };
    expect(bodySchema({ $ref: "#/components/schemas/Base" }, "3.0.3", components)).toEqual({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", minLength: 1, description: "A name." } },
    });
  });

  it("applies a 3.1 $ref's siblings, and in 3.0 keeps only the title and description, which validate nothing", () => {
    const components = { schemas: { Name: { type: "string", description: "A name." } } };
    const sibling = { $ref: "#/components/schemas/Name", description: "The pet's name.", maxLength: 20 };
    expect(bodySchema(sibling, "3.1.0", components)).toEqual({
      description: "The pet's name.",
      type: "string",
      maxLength: 20,
      allOf: [{ type: "string", description: "A name." }],
    });
    expect(bodySchema(sibling, "3.0.3", components)).toEqual({ type: "string", description: "The pet's name." });
    expect(
      bodySchema({ $ref: "#/components/schemas/Name", description: "Only a description." }, "3.1.0", components),
    ).toEqual({ type: "string", description: "Only a description." });
  });

  it("names the cycle when a reference loops through other schemas", () => {
    const components = {
      schemas: {
        A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" } } },
        B: { type: "object", properties: { a: { $ref: "#/components/schemas/A" } } },
      },
    };
    const result = imp({
      ...api({
        "/a": {
          post: {
            operationId: "a",
            requestBody: {
              required: true,
              content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } },
            },
            responses: ok200,
          },
        },
      }),
      components,
    });
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7006",
        "components.schemas.B.properties.a.$ref",
        "The schema is recursive: #/components/schemas/A refers to itself (through #/components/schemas/B). A tool's input schema is inlined and cannot be recursive; leave the operation out (--exclude a) or cut the cycle in the document.",
      ],
    ]);
  });

  it("refuses reference chains that never reach a value, and pointers with bad escapes", () => {
    const loop = imp({
      ...api({
        "/a": { get: { operationId: "a", parameters: [{ $ref: "#/components/parameters/P" }], responses: ok200 } },
      }),
      components: { parameters: { P: { $ref: "#/components/parameters/P" } } },
    });
    expect(loop.diagnostics.map((d) => d.message)).toEqual([
      "This $ref is part of a chain of references that never reaches a value.",
    ]);
    const bad = imp(
      api({ "/a": { get: { operationId: "a", parameters: [{ $ref: "#/components/%ZZ" }], responses: ok200 } } }),
    );
    expect(bad.diagnostics.map((d) => d.code)).toEqual(["KV7005"]);
    // In a response schema too (the select proposal named the schema before following it, and crashed).
    const badResponse = imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            responses: {
              "200": {
                description: "ok",
                content: { "application/json": { schema: { $ref: "#/components/schemas/a%ZZ" } } },
              },
            },
          },
        },
      }),
    );
    expect(badResponse.diagnostics.map((d) => d.code)).toContain("KV7005");
  });

  it("shares nothing between tools' schemas in the written text (no YAML aliases)", () => {
    const result = importFixture("fixtures/openapi/petstore.yaml");
    expect(result.text).not.toMatch(/[&*][A-Za-z0-9]+\s/);
  });
});

describe("visible text", () => {
  it("removes hidden characters from descriptions and titles, and says so where they were", () => {
    const result = imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            summary: "Get\u202e it",
            description: "Line one\r\nLine two\u200b with a hidden\u{E0041} tag",
            parameters: [
              {
                name: "q",
                in: "query",
                description: "Query\u0007",
                schema: { type: "string", description: "ignored\u2066" },
              },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result).map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7014",
        'paths["/a"].get.summary',
        "The summary has 1 invisible or control character (U+202E), which the spec format refuses; it was removed.",
      ],
      [
        "KV7014",
        'paths["/a"].get.description',
        "The description has 2 invisible or control characters (U+200B first), which the spec format refuses; they were removed.",
      ],
      [
        "KV7014",
        'paths["/a"].get.parameters[0].description',
        "The description has 1 invisible or control character (U+0007), which the spec format refuses; it was removed.",
      ],
      [
        "KV7014",
        'paths["/a"].get.parameters[0].schema.description',
        "The description has 1 invisible or control character (U+2066), which the spec format refuses; it was removed.",
      ],
    ]);
    const tool = specOf(result).tools[0]!;
    expect([tool["title"], tool["description"], tool["input"]["properties"]["q"]["description"]]).toEqual([
      "Get it",
      "Line one\nLine two with a hidden tag",
      "Query",
    ]);
  });

  it("shortens long descriptions and notes it in the spec", () => {
    const long = `${"A sentence of documentation. ".repeat(60)}`;
    const result = imp(api({ "/a": { get: { operationId: "a", description: long, responses: ok200 } } }));
    const tool = specOf(result).tools[0]!;
    expect(tool["description"].length).toBeLessThanOrEqual(1000);
    expect(tool["description"]).toMatch(/documentation\.…$/);
    expect(result.text).toContain(`# description shortened from ${long.trim().length} characters`);
  });
});

describe("the tools/list budget", () => {
  it("measures the listing the server will publish, and warns above the budget (KV9006)", () => {
    const result = importFixture("fixtures/openapi/petstore.yaml", { toolsBudget: 100 });
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    const listing = JSON.stringify({ tools: compiled.planned!.tools.map((t) => t.plan.listing) });
    expect(result.size).toEqual({ tools: 9, characters: listing.length, tokens: Math.ceil(listing.length / 4) });
    const warning = result.diagnostics.find((d) => d.code === "KV9006");
    expect(warning).toMatchObject({ severity: "warning", file: "spec.yaml", path: "tools" });
    expect(warning!.message).toBe(
      `The tools/list of this server has ${listing.length} characters (about ${Math.ceil(listing.length / 4)} tokens), more than the budget of 100 tokens. Leave out tools, or shorten descriptions and schemas.`,
    );
    expect(importFixture("fixtures/openapi/petstore.yaml").diagnostics.some((d) => d.code === "KV9006")).toBe(false);
  });

  it("is the same KV9006 that kervanc build reports for the written spec (one place makes it)", async () => {
    const result = importFixture("fixtures/openapi/petstore.yaml", { toolsBudget: 100 });
    const dir = await tempDir("budget");
    try {
      const spec = join(dir, "spec.yaml");
      await writeFile(spec, result.text!);
      const built = await build({ inputs: [spec], outDir: join(dir, "out"), toolsBudget: 100 });
      const fromBuild = built.diagnostics.find((d) => d.code === "KV9006");
      expect(fromBuild).toBeDefined();
      // Build places it with its range, like every placed diagnostic; the import's was made by hand without one.
      expect(fromBuild!.endColumn).toBeDefined();
      expect(result.diagnostics.find((d) => d.code === "KV9006")).toEqual({ ...fromBuild, file: "spec.yaml" });
    } finally {
      await removeDir(dir);
    }
  });
});
