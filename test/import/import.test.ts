/**
 * `kervanc import` in process: the fixture documents give their golden specs and diagnostics, every spec the
 * import writes is one the compiler accepts, and the rules of the conversion (names, parameters, bodies,
 * security, servers, schemas, output proposals, selection, budgets) hold one by one.
 *
 * Goldens live in fixtures/openapi/expected/. After an intended change, regenerate them with:
 *   npx vitest run test/import -u
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { compileSpec } from "../../packages/compiler/src/build.ts";
import { formatDiagnostic, type Diagnostic } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { importOpenApi, type ImportOptions, type ImportResult } from "../../packages/compiler/src/import/openapi.ts";
import { REPO } from "../helpers/kervanc.ts";

const GOOD = ["petstore.yaml", "tickets.json", "notes.yaml"];
const HOSTILE = readdirSync(join(REPO, "fixtures/openapi/hostile")).sort();

function importFixture(path: string, options: ImportOptions = {}): ImportResult {
  return importOpenApi(path, readFileSync(join(REPO, path)), "spec.yaml", options);
}

function text(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.map((d) => `${formatDiagnostic(d)}\n`).join("");
}

/** Imports a document given as a value (written as YAML) or as text. */
function imp(doc: unknown, options: ImportOptions = {}): ImportResult {
  const source = typeof doc === "string" ? doc : stringify(doc);
  return importOpenApi("api.yaml", new TextEncoder().encode(source), "spec.yaml", options);
}

/** The plain value of the spec an import wrote (throws when there is none, showing the diagnostics). */
function specOf(result: ImportResult): { tools: Record<string, any>[]; secrets?: { name: string; hosts: string[] }[]; [k: string]: unknown } {
  if (!result.ok || result.text === null) throw new Error(`the import failed:\n${text(result.diagnostics)}`);
  const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text));
  if (compiled.loaded === null) throw new Error("the written spec does not load");
  return compiled.loaded.value as never;
}

function codes(result: ImportResult): string[] {
  return result.diagnostics.map((d) => `${d.severity} ${d.code}`);
}

/** A minimal OpenAPI 3.1 document with the given paths (and more top-level keys). */
function api(paths: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { openapi: "3.1.0", info: { title: "Test API", version: "1.0" }, servers: [{ url: "https://api.example.com/v1" }], paths, ...extra };
}

const ok200 = { "200": { description: "OK", content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" } } } } } } };

describe("fixture documents", () => {
  it.each(GOOD)("%s imports to its golden spec, which kervanc builds without a problem", async (name) => {
    const result = importFixture(`fixtures/openapi/${name}`);
    expect(result.ok, text(result.diagnostics)).toBe(true);
    await expect(result.text).toMatchFileSnapshot(join(REPO, "fixtures/openapi/expected", name.replace(/\.(json|yaml)$/, ".yaml")));
    await expect(text(result.diagnostics)).toMatchFileSnapshot(join(REPO, "fixtures/openapi/expected", `${name.replace(/\.(json|yaml)$/, "")}.diagnostics.txt`));
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    expect(compiled.diagnostics).toEqual([]);
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
    await expect(text(result.diagnostics)).toMatchFileSnapshot(join(REPO, "fixtures/openapi/expected/hostile", `${name.replace(/\.(json|yaml)$/, "")}.diagnostics.txt`));
  });

  it("imports the recursive document's other operation on its own: a cycle in a response only ends the proposal", () => {
    const result = importFixture("fixtures/openapi/hostile/cycle.yaml", { include: ["getNode"] });
    const spec = specOf(result);
    expect(spec.tools.map((t) => t["name"])).toEqual(["getNode"]);
    expect(spec.tools[0]!["output"]["select"]).toBe("{name: name, children: children[*].{name: name}}");
  });

  it("imports the plain-http document with secrets once --server-url gives https", () => {
    const spec = specOf(importFixture("fixtures/openapi/hostile/http-secrets.yaml", { serverUrl: "https://legacy.example.com/api" }));
    expect(spec.secrets).toEqual([{ name: "KEY", hosts: ["legacy.example.com:443"] }]);
    expect(spec.tools[0]!["http"]).toEqual({ method: "GET", url: "https://legacy.example.com/api/report", query: { apikey: "{{secrets.KEY}}" } });
  });
});

describe("reading hostile bytes", () => {
  const bytes = (b: Uint8Array): ImportResult => importOpenApi("api.yaml", b, "spec.yaml");

  it("refuses a document over 32 MiB before parsing it", () => {
    const result = bytes(new Uint8Array(32 * 1024 * 1024 + 1).fill(0x20));
    expect(codes(result)).toEqual(["error KV7001"]);
    expect(result.diagnostics[0]!.message).toBe("The OpenAPI document is larger than 33554432 bytes (it has 33554433).");
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
    expect(json('{\n  "openapi": "3.1.0",\n  "info": {},\n  "openapi": "3.0.0"\n}').diagnostics.map((d) => [d.code, d.line, d.column, d.message])).toEqual([
      ["KV7002", 4, 3, 'The key "openapi" appears twice in the same mapping.'],
    ]);
    expect(json('{\n  "openapi": "3.1.0",\n  "info": { "title": "x" ]\n}').diagnostics.map((d) => [d.code, d.line])).toEqual([["KV7002", 3]]);
    const placed = json('{"openapi":"3.1.0","info":{"title":"J","version":"1"},"servers":[{"url":"/rel"}],\n "paths":{"/a":{"get":{"operationId":"a","responses":{}}}}}');
    expect(placed.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([["KV7008", 1, 73]]);
  });

  it("refuses an alias inside its own anchor and non-core tags", () => {
    expect(imp("openapi: 3.1.0\na: &x [ *x ]\n").diagnostics.map((d) => d.message)).toEqual([
      "The alias *x is inside the node it refers to, which would make the document infinitely deep.",
    ]);
    expect(imp("openapi: 3.1.0\na: !!js/function 'x'\n").diagnostics[0]!.code).toBe("KV7002");
  });

  it("says what is wrong with documents that are not OpenAPI 3.0 or 3.1", () => {
    expect(imp("- a\n- b\n").diagnostics[0]!.message).toBe("The document is not an OpenAPI document: its top level is not a mapping.");
    expect(imp({ info: { title: "x" } }).diagnostics[0]!.message).toBe('The document has no "openapi" version string (such as "3.1.0"); is it an OpenAPI document?');
    expect(imp({ openapi: "3.2.0", info: {}, paths: {} }).diagnostics[0]!.message).toBe("OpenAPI 3.2.0 is not supported; kervanc import reads OpenAPI 3.0 and 3.1.");
    expect(imp({ openapi: "3.1.0", info: {}, paths: {} }).diagnostics.map((d) => d.message)).toEqual(["The document has no operations to import."]);
    expect(imp({ openapi: "3.1.0", info: {}, paths: [] }).diagnostics.map((d) => d.message)).toEqual(["paths must be a mapping from paths to path items."]);
  });

  it("keeps document keys as data: __proto__ is a property like any other", () => {
    const doc = `openapi: 3.1.0
info: { title: P, version: "1" }
servers: [{ url: "https://p.example.com" }]
paths:
  /p:
    post:
      operationId: p
      requestBody:
        required: true
        content: { application/json: { schema: { type: object, properties: { __proto__: { type: string }, constructor: { type: integer } } } } }
      responses: { "200": { description: OK } }
`;
    const spec = specOf(imp(doc));
    const body = spec.tools[0]!["input"]["properties"]["body"];
    expect(Object.keys(body.properties)).toEqual(["__proto__", "constructor"]);
    expect(Object.getPrototypeOf(body.properties)).toBe(Object.prototype);
  });
});

describe("names", () => {
  it("makes operationIds valid, at most 64 characters and unique; falls back to method and path", () => {
    const op = (operationId?: string) => ({ get: { ...(operationId !== undefined ? { operationId } : {}), responses: ok200 } });
    const spec = specOf(
      imp(
        api({
          "/a": op("list pets/all"),
          "/b": op("list_pets_all"),
          "/c": op("x".repeat(80)),
          "/d": op("X".repeat(80)),
          "/users/{userId}/repos": { get: { parameters: [{ name: "userId", in: "path", required: true, schema: { type: "string" } }], responses: ok200 } },
        }),
      ),
    );
    expect(spec.tools.map((t) => t["name"])).toEqual(["list_pets_all", "list_pets_all_2", "x".repeat(64), `${"X".repeat(62)}_2`, "get_users_userId_repos"]);
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
          { "/a": { get: { operationId: "a", security: [{ "bearerAuth": [], "x-api-key": [] }], responses: ok200 } } },
          {
            info: { title: "Ünïcode   API: v2!", version: "2" },
            components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" }, "x-api-key": { type: "apiKey", in: "header", name: "X-Api-Key" } } },
          },
        ),
      ),
    );
    expect(spec["name"]).toBe("unicode-api-v2");
    expect(spec.secrets?.map((s) => s.name)).toEqual(["BEARER_AUTH", "X_API_KEY"]);
  });
});

describe("parameters and bodies", () => {
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
    expect(result.diagnostics.map((d) => [d.code, d.path])).toEqual([
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

  it("sends a JSON body as one required property, with its media type when it is not application/json", () => {
    const spec = specOf(
      imp(
        api({
          "/a": {
            patch: {
              operationId: "a",
              requestBody: { description: "The changes.", content: { "application/merge-patch+json": { schema: { type: "object", properties: { n: { type: "integer" } } } } } },
              responses: ok200,
            },
          },
        }),
      ),
    );
    const tool = spec.tools[0]!;
    expect(tool["input"]).toEqual({
      type: "object",
      properties: { body: { description: "The changes.", type: "object", properties: { n: { type: "integer" } } } },
      required: ["body"],
      additionalProperties: false,
    });
    expect(tool["http"]).toEqual({ method: "PATCH", url: "https://api.example.com/v1/a", headers: { "Content-Type": "application/merge-patch+json" }, body: "{{input.body}}" });
  });

  it("leaves out non-JSON bodies (and the operation when the body is required), and bodies on GET", () => {
    const result = imp(
      api({
        "/upload": { post: { operationId: "upload", requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } }, responses: ok200 } },
        "/form": { post: { operationId: "form", requestBody: { content: { "application/x-www-form-urlencoded": { schema: { type: "object" } } } }, responses: ok200 } },
        "/get": { get: { operationId: "get", requestBody: { content: { "application/json": { schema: { type: "object" } } } }, responses: ok200 } },
      }),
    );
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      "The request body is multipart/form-data; a spec sends JSON bodies only, so the operation is left out.",
      "The request body is application/x-www-form-urlencoded; a spec sends JSON bodies only, so the body is left out.",
      "A GET request cannot have a body in a spec; the body is left out.",
    ]);
    expect(specOf(result).tools.map((t) => [t["name"], t["http"]["body"]])).toEqual([
      ["form", undefined],
      ["get", undefined],
    ]);
  });

  it("leaves out HEAD, OPTIONS and TRACE operations with a warning", () => {
    const result = imp(api({ "/a": { head: { operationId: "h", responses: ok200 }, get: { operationId: "g", responses: ok200 } } }));
    expect(codes(result)).toEqual(["warning KV7010"]);
    expect(specOf(result).tools.map((t) => t["name"])).toEqual(["g"]);
  });

  it("turns path templates into input references and percent-encodes literal braces", () => {
    const spec = specOf(imp(api({ "/a/{x}/b{y}c/{{z}}": { get: { operationId: "t", responses: ok200 } } })));
    expect(spec.tools[0]!["http"]["url"]).toBe("https://api.example.com/v1/a/{{input.x}}/b{{input.y}}c/%7B{{input.z}}%7D");
    expect(spec.tools[0]!["input"]["required"]).toEqual(["x", "y", "z"]);
  });

  it("refuses, as kervanc build would, a path whose '..' removes a template (KV7012 at the operation)", () => {
    const result = imp(api({ "/files/{name}/../raw": { get: { operationId: "raw", responses: ok200 } } }));
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7012",
        'paths["/files/{name}/../raw"].get',
        'kervanc build would refuse the tool made from this operation: KV3017 tools[0].http.url: The URL\'s path drops {{input.name}}: a ".." segment after it removes it. Write the path without "..".',
      ],
    ]);
  });
});

describe("schemas", () => {
  const bodySchema = (schema: unknown, version = "3.0.3", components: unknown = {}): Record<string, unknown> => {
    const result = imp({ ...api({ "/a": { post: { operationId: "a", requestBody: { required: true, content: { "application/json": { schema } } }, responses: ok200 } } }), openapi: version, components });
    return specOf(result).tools[0]!["input"]["properties"]["body"];
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

  it("warns when it drops a pattern that Unicode regular expressions refuse", () => {
    const result = imp({
      ...api({ "/a": { get: { operationId: "a", parameters: [{ name: "q", in: "query", schema: { type: "string", pattern: "^[\\w-.]+$" } }], responses: ok200 } } }),
      openapi: "3.0.3",
    });
    expect(result.diagnostics.map((d) => [d.code, d.path])).toEqual([["KV7010", 'paths["/a"].get.parameters[0].schema.pattern']]);
    expect(result.diagnostics[0]!.message).toMatch(/^The pattern is left out: it is not a valid regular expression in Unicode mode \(/);
  });

  it("inlines local references and leaves out readOnly properties (and their required entries) from requests", () => {
    const components = {
      schemas: {
        Base: { type: "object", required: ["id", "name"], properties: { id: { type: "integer", readOnly: true }, name: { $ref: "#/components/schemas/Name" } } },
        Name: { type: "string", minLength: 1, description: "A name." },
      },
    };
    expect(bodySchema({ $ref: "#/components/schemas/Base" }, "3.0.3", components)).toEqual({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", minLength: 1, description: "A name." } },
    });
  });

  it("applies a 3.1 $ref's siblings, and ignores them in 3.0 as 3.0 says", () => {
    const components = { schemas: { Name: { type: "string", description: "A name." } } };
    const sibling = { $ref: "#/components/schemas/Name", description: "The pet's name.", maxLength: 20 };
    expect(bodySchema(sibling, "3.1.0", components)).toEqual({ description: "The pet's name.", type: "string", maxLength: 20, allOf: [{ type: "string", description: "A name." }] });
    expect(bodySchema(sibling, "3.0.3", components)).toEqual({ type: "string", description: "A name." });
    expect(bodySchema({ $ref: "#/components/schemas/Name", description: "Only a description." }, "3.1.0", components)).toEqual({ type: "string", description: "Only a description." });
  });

  it("names the cycle when a reference loops through other schemas", () => {
    const components = {
      schemas: {
        A: { type: "object", properties: { b: { $ref: "#/components/schemas/B" } } },
        B: { type: "object", properties: { a: { $ref: "#/components/schemas/A" } } },
      },
    };
    const result = imp({ ...api({ "/a": { post: { operationId: "a", requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/A" } } } }, responses: ok200 } } }), components });
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      [
        "KV7006",
        "components.schemas.B.properties.a.$ref",
        "The schema is recursive: #/components/schemas/A refers to itself (through #/components/schemas/B). A tool's input schema is inlined and cannot be recursive; leave the operation out (--exclude a) or cut the cycle in the document.",
      ],
    ]);
  });

  it("refuses reference chains that never reach a value, and pointers with bad escapes", () => {
    const loop = imp({ ...api({ "/a": { get: { operationId: "a", parameters: [{ $ref: "#/components/parameters/P" }], responses: ok200 } } }), components: { parameters: { P: { $ref: "#/components/parameters/P" } } } });
    expect(loop.diagnostics.map((d) => d.message)).toEqual(["This $ref is part of a chain of references that never reaches a value."]);
    const bad = imp(api({ "/a": { get: { operationId: "a", parameters: [{ $ref: "#/components/%ZZ" }], responses: ok200 } } }));
    expect(bad.diagnostics.map((d) => d.code)).toEqual(["KV7005"]);
  });

  it("shares nothing between tools' schemas in the written text (no YAML aliases)", () => {
    const result = importFixture("fixtures/openapi/petstore.yaml");
    expect(result.text).not.toMatch(/[&*][A-Za-z0-9]+\s/);
  });
});

describe("security", () => {
  const schemes = {
    header: { type: "apiKey", in: "header", name: "X-Key" },
    query: { type: "apiKey", in: "query", name: "key" },
    cookie: { type: "apiKey", in: "cookie", name: "sid" },
    bearer: { type: "http", scheme: "Bearer" },
    basic: { type: "http", scheme: "basic" },
    oauth: { type: "oauth2", flows: {} },
    oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example.com" },
  };
  const withSecurity = (operations: Record<string, unknown[] | undefined>, global?: unknown[]): ImportResult =>
    imp(
      api(
        Object.fromEntries(Object.entries(operations).map(([id, security]) => [`/${id}`, { get: { operationId: id, ...(security !== undefined ? { security } : {}), responses: ok200 } }])),
        { components: { securitySchemes: schemes }, ...(global !== undefined ? { security: global } : {}) },
      ),
    );

  it("puts API keys and bearer tokens where the scheme says, as host-bound secrets", () => {
    const spec = specOf(withSecurity({ h: [{ header: [] }], q: [{ query: [] }], c: [{ cookie: [], header: [] }], b: [{ bearer: [] }] }));
    expect(spec.tools.map((t) => [t["http"]["query"], t["http"]["headers"]])).toEqual([
      [undefined, { "X-Key": "{{secrets.HEADER}}" }],
      [{ key: "{{secrets.QUERY}}" }, undefined],
      [undefined, { "X-Key": "{{secrets.HEADER}}", Cookie: "sid={{secrets.COOKIE}}" }],
      [undefined, { Authorization: "Bearer {{secrets.BEARER}}" }],
    ]);
    expect(spec.secrets).toEqual(["BEARER", "COOKIE", "HEADER", "QUERY"].map((name) => ({ name, hosts: ["api.example.com:443"] })));
  });

  it("imports operations without the schemes it cannot express, with one warning per scheme", () => {
    const result = withSecurity({ a: [{ basic: [] }], b: [{ oauth: [] }], c: [{ oauth: [] }], d: [{ oidc: [] }] });
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      ["KV7009", "components.securitySchemes.basic", 'The security scheme "basic" (http basic) is not supported; a is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.'],
      ["KV7009", "components.securitySchemes.oauth", 'The security scheme "oauth" (oauth2) is not supported; 2 operations (b, c) are imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.'],
      ["KV7009", "components.securitySchemes.oidc", 'The security scheme "oidc" (openIdConnect) is not supported; d is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.'],
    ]);
    expect(specOf(result).secrets).toBeUndefined();
  });

  it("prefers an alternative it can express; treats {} as optional; honours an operation's own security: []", () => {
    const result = withSecurity({ a: [{ oauth: [] }, { bearer: [] }], b: [{}, { oauth: [] }], c: [], d: undefined }, [{ query: [] }]);
    expect(codes(result)).toEqual([]);
    expect(specOf(result).tools.map((t) => [t["name"], t["http"]["query"] ?? t["http"]["headers"] ?? null])).toEqual([
      ["a", { Authorization: "Bearer {{secrets.BEARER}}" }],
      ["b", null],
      ["c", null],
      ["d", { key: "{{secrets.QUERY}}" }],
    ]);
  });

  it("does not ask the model for a credential the scheme already sends", () => {
    const result = imp(
      api(
        { "/a": { get: { operationId: "a", security: [{ query: [] }], parameters: [{ name: "key", in: "query", required: true, schema: { type: "string" } }], responses: ok200 } } },
        { components: { securitySchemes: schemes } },
      ),
    );
    expect(specOf(result).tools[0]!["input"]["properties"]).toEqual({});
  });
});

describe("servers", () => {
  const single = (servers: unknown, options: ImportOptions = {}, security = false): ImportResult =>
    imp(
      api(
        { "/a": { get: { operationId: "a", ...(security ? { security: [{ k: [] }] } : {}), responses: ok200 } } },
        { servers, components: { securitySchemes: { k: { type: "apiKey", in: "header", name: "K" } } } },
      ),
      options,
    );

  it("substitutes server variables with their defaults and joins base paths", () => {
    const spec = specOf(single([{ url: "https://{env}.example.com:{port}/base/", variables: { env: { default: "prod" }, port: { default: "8443" } } }]));
    expect(spec.tools[0]!["http"]["url"]).toBe("https://prod.example.com:8443/base/a");
  });

  it("refuses relative, missing and odd server URLs, and takes --server-url instead", () => {
    const message = (r: ImportResult): string[] => r.diagnostics.map((d) => d.message);
    expect(message(single([{ url: "/api/v3" }]))).toEqual(['The server URL "/api/v3" is relative; give the API\'s absolute URL with --server-url.']);
    expect(message(single(undefined))).toEqual(['The document names no server (no "servers" list); give the API\'s URL with --server-url.']);
    expect(message(single([{ url: "ftp://x.example.com" }]))).toEqual(['The server URL "ftp://x.example.com" is not an http or https URL.']);
    expect(message(single([{ url: "https://u:p@x.example.com" }]))).toEqual(['The server URL "https://u:p@x.example.com" contains credentials; declare a security scheme instead.']);
    expect(message(single([{ url: "https://{region}.example.com" }]))).toEqual(['The server URL "https://{region}.example.com" uses the variable {region}, which has no default value.']);
    expect(message(single([{ url: "/api" }], { serverUrl: "https://x.example.com/api?v=1" }))).toEqual(['--server-url "https://x.example.com/api?v=1" has a query or a #fragment; give the base URL only.']);
    expect(specOf(single([{ url: "/api/v3" }], { serverUrl: "https://localhost:8443/api/v3" })).tools[0]!["http"]["url"]).toBe("https://localhost:8443/api/v3/a");
  });

  it("allows plain http without secrets (with a warning), and refuses it with secrets", () => {
    const plain = single([{ url: "http://x.example.com" }]);
    expect(codes(plain)).toEqual(["warning KV7013"]);
    expect(specOf(plain).tools[0]!["http"]["allowInsecureHttp"]).toBe(true);
    const secret = single([{ url: "http://x.example.com" }], {}, true);
    expect(secret.ok).toBe(false);
    expect(codes(secret)).toEqual(["error KV7008"]);
  });

  it("binds secrets to the host and port of the server they are sent to", () => {
    expect(specOf(single([{ url: "https://x.example.com" }], { serverUrl: "https://localhost:4443" }, true)).secrets).toEqual([{ name: "K", hosts: ["localhost:4443"] }]);
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
            parameters: [{ name: "q", in: "query", description: "Query\u0007", schema: { type: "string", description: "ignored\u2066" } }],
            responses: ok200,
          },
        },
      }),
    );
    expect(result.diagnostics.map((d) => [d.code, d.path, d.message])).toEqual([
      ["KV7014", 'paths["/a"].get.summary', "The summary has 1 invisible or control character (U+202E), which the spec format refuses; it was removed."],
      ["KV7014", 'paths["/a"].get.description', "The description has 2 invisible or control characters (U+200B first), which the spec format refuses; they were removed."],
      ["KV7014", 'paths["/a"].get.parameters[0].description', "The description has 1 invisible or control character (U+0007), which the spec format refuses; it was removed."],
      ["KV7014", 'paths["/a"].get.parameters[0].schema.description', "The description has 1 invisible or control character (U+2066), which the spec format refuses; it was removed."],
    ]);
    const tool = specOf(result).tools[0]!;
    expect([tool["title"], tool["description"], tool["input"]["properties"]["q"]["description"]]).toEqual(["Get it", "Line one\nLine two with a hidden tag", "Query"]);
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

describe("output proposals", () => {
  const proposal = (responses: unknown): { output: unknown; result: ImportResult } => {
    const result = imp(api({ "/a": { get: { operationId: "a", responses } } }));
    return { output: specOf(result).tools[0]!["output"], result };
  };
  const json = (schema: unknown, code = "200") => ({ [code]: { description: "x", content: { "application/json": { schema } } } });

  it("keeps scalars, arrays of scalars and one level of nested scalars, and writes a schema that allows what a select can give", () => {
    const { output } = proposal(
      json({
        type: "object",
        required: ["id"],
        properties: {
          id: { type: "integer" },
          "display-name": { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          owner: { type: "object", properties: { login: { type: "string" }, address: { type: "object" } } },
          items: { type: "array", items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "integer" }, meta: { type: "object" } } } },
          secret: { type: "string", writeOnly: true },
          meta: { type: "object", additionalProperties: true },
          __proto__: { type: "string" },
        },
      }),
    );
    expect(output).toEqual({
      select: '{id: id, "display-name": "display-name", tags: tags, owner: owner.{login: login}, items: items[*].{sku: sku, qty: qty}}',
      schema: {
        type: "object",
        properties: {
          id: { type: "integer" },
          "display-name": { type: ["string", "null"] },
          tags: { type: ["array", "null"], items: { type: "string" } },
          owner: { type: ["object", "null"], properties: { login: { type: ["string", "null"] } }, required: ["login"] },
          items: { type: ["array", "null"], items: { type: "object", properties: { sku: { type: ["string", "null"] }, qty: { type: ["integer", "null"] } }, required: ["sku", "qty"] } },
        },
        required: ["id", "display-name", "tags", "owner", "items"],
      },
    });
  });

  it("wraps a list answer in {items: ...} (structured content is an object), and keeps at most 12 fields", () => {
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: "string" }]));
    const { output, result } = proposal(json({ type: "array", items: { type: "object", properties } }));
    expect((output as { select: string }).select).toBe(`{items: [*].{${Array.from({ length: 12 }, (_, i) => `f${i}: f${i}`).join(", ")}}}`);
    expect(result.text).toContain("# proposal: review this select and schema; they keep 12 of the 20 fields of each item of the 200 response");
  });

  it("falls back to the whole answer, or raw text, and leaves out binary answers", () => {
    expect(proposal({ "200": { description: "x", content: { "application/json": {} } } }).output).toEqual({ select: "@" });
    expect(proposal({ "200": { description: "x", content: { "text/csv": { schema: { type: "string" } } } } }).output).toEqual({ raw: true });
    expect(proposal({ "404": { description: "x" } }).output).toEqual({ select: "@" });
    const noBody = proposal({ "204": { description: "Deleted." } });
    expect(codes(noBody.result)).toEqual(["warning KV7010"]);
    const binary = imp(api({ "/img": { get: { operationId: "img", responses: { "200": { description: "x", content: { "image/png": {} } } } } }, "/b": { get: { operationId: "b", responses: ok200 } } }));
    expect(binary.diagnostics.map((d) => d.message)).toEqual(["The operation answers image/png, which a tool cannot return (it returns JSON or text); the operation is left out."]);
    expect(specOf(binary).tools.map((t) => t["name"])).toEqual(["b"]);
  });

  it("merges allOf parts and follows references in responses", () => {
    const result = imp({
      ...api({ "/a": { get: { operationId: "a", responses: json({ allOf: [{ $ref: "#/components/schemas/Base" }, { type: "object", required: ["extra"], properties: { extra: { type: "boolean" } } }] }) } } }),
      components: { schemas: { Base: { type: "object", properties: { id: { type: "string" } } } } },
    });
    expect(specOf(result).tools[0]!["output"]["select"]).toBe("{id: id, extra: extra}");
  });
});

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

describe("the tools/list budget", () => {
  it("measures the listing the server will publish, and warns above the budget (KV9006)", () => {
    const result = importFixture("fixtures/openapi/petstore.yaml", { toolsBudget: 100 });
    const compiled = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    const listing = JSON.stringify({ tools: compiled.planned!.tools.map((t) => t.plan.listing) });
    expect(result.size).toEqual({ tools: 9, characters: listing.length, tokens: Math.ceil(listing.length / 4) });
    const warning = result.diagnostics.find((d) => d.code === "KV9006");
    expect(warning).toMatchObject({ severity: "warning", file: "spec.yaml", path: "tools" });
    expect(warning!.message).toBe(`The tools/list of this server has ${listing.length} characters (about ${Math.ceil(listing.length / 4)} tokens), more than the budget of 100 tokens. Leave out tools, or shorten descriptions and schemas.`);
    expect(importFixture("fixtures/openapi/petstore.yaml").diagnostics.some((d) => d.code === "KV9006")).toBe(false);
  });
});
