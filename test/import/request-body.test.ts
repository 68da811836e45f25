/**
 * Request bodies (import/request-body.ts): the body a tool sends.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, api, ok200, problems } from "./helpers.ts";

describe("request bodies", () => {
  it("flattens a JSON object body into the tool's arguments, with its media type when it is not application/json", () => {
    const spec = specOf(
      imp(
        api({
          "/a": {
            patch: {
              operationId: "a",
              requestBody: {
                description: "The changes.",
                content: {
                  "application/merge-patch+json": {
                    schema: { type: "object", properties: { n: { type: "integer" } } },
                  },
                },
              },
              responses: ok200,
            },
          },
        }),
      ),
    );
    const tool = spec.tools[0]!;
    expect(tool["input"]).toEqual({
      type: "object",
      properties: { n: { type: "integer" } },
      additionalProperties: false,
    });
    expect(tool["http"]).toEqual({
      method: "PATCH",
      url: "https://api.example.com/v1/a",
      headers: { "Content-Type": "application/merge-patch+json" },
      body: { n: "{{input.n}}" },
      omitAbsent: true,
    });
    expect(spec["kervancExtensions"]).toEqual(["omit-absent"]);
  });

  it("keeps each property's schema, description, enum, default and required-ness; a parameter's name gets body_", () => {
    const result = imp(
      api({
        "/pets/{name}": {
          put: {
            operationId: "put",
            parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["name", "kind"],
                    properties: {
                      name: { type: "string", description: "The new name." },
                      kind: { type: "string", enum: ["cat", "dog"] },
                      "max-age": { type: "integer", default: 10 },
                      tags: { type: "array", items: { type: "string" } },
                    },
                  },
                },
              },
            },
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result).map((d) => d.code)).toEqual(["KV8001"]);
    const tool = specOf(result).tools[0]!;
    expect(tool["input"]).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        body_name: { type: "string", description: "The new name." },
        kind: { type: "string", enum: ["cat", "dog"] },
        max_age: { type: "integer", default: 10 },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["name", "body_name", "kind"],
      additionalProperties: false,
    });
    expect(tool["http"]["body"]).toEqual({
      name: "{{input.body_name}}",
      kind: "{{input.kind}}",
      "max-age": "{{input.max_age}}",
      tags: "{{input.tags}}",
    });
    expect(tool["http"]["omitAbsent"]).toBe(true);
    expect(result.text).toContain("# body_name is the body's \"name\": the name name is a parameter's");
  });

  it("a body whose properties are all required is flattened without the extension: plain Kervan", () => {
    const result = imp(
      api({
        "/a": {
          post: {
            operationId: "a",
            requestBody: {
              content: {
                "application/json": {
                  schema: { type: "object", required: ["a"], properties: { a: { type: "string" } } },
                },
              },
            },
            responses: ok200,
          },
        },
      }),
    );
    const tool = specOf(result).tools[0]!;
    expect(tool["http"]).toEqual({ method: "POST", url: "https://api.example.com/v1/a", body: { a: "{{input.a}}" } });
    expect(result.text).not.toContain("kervancExtensions");
  });

  it.each([
    ["an array at the root", { type: "array", items: { type: "string" } }],
    ["a scalar at the root", { type: "string" }],
    ["a combinator at the root", { allOf: [{ type: "object", properties: { a: { type: "string" } } }] }],
    ["open additional properties", { type: "object", properties: { a: {} }, additionalProperties: { type: "string" } }],
    ["a root constraint", { type: "object", properties: { a: {} }, minProperties: 1 }],
    ["a nullable body", { type: "object", nullable: true, properties: { a: { type: "string" } } }],
    [
      "more than 30 properties",
      { type: "object", properties: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`p${i}`, {}])) },
    ],
  ])("keeps the single body argument for %s", (_label, schema) => {
    const result = imp(
      api({
        "/a": {
          post: {
            operationId: "a",
            requestBody: { content: { "application/json": { schema } } },
            responses: ok200,
          },
        },
      }),
    );
    const tool = specOf(result).tools[0]!;
    expect(tool["http"]["body"]).toBe("{{input.body}}");
    expect(tool["http"]).not.toHaveProperty("omitAbsent");
    expect(tool["input"]["required"]).toEqual(["body"]);
    expect(Object.keys(tool["input"]["properties"])).toEqual(["body"]);
  });

  it("30 properties are still flattened", () => {
    const schema = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, {}])),
    };
    const result = imp(
      api({
        "/a": {
          post: { operationId: "a", requestBody: { content: { "application/json": { schema } } }, responses: ok200 },
        },
      }),
    );
    expect(Object.keys(specOf(result).tools[0]!["http"]["body"])).toHaveLength(30);
  });

  it("leaves out bodies a spec cannot send (and the operation when the body is required), and bodies on GET", () => {
    const result = imp(
      api({
        "/upload": {
          post: {
            operationId: "upload",
            requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } },
            responses: ok200,
          },
        },
        "/raw": {
          post: {
            operationId: "raw",
            requestBody: { content: { "application/octet-stream": { schema: { type: "string" } } } },
            responses: ok200,
          },
        },
        "/get": {
          get: {
            operationId: "get",
            requestBody: { content: { "application/json": { schema: { type: "object" } } } },
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result).map((d) => d.message)).toEqual([
      // A multipart body is sent with the multipart-body extension (test/import/multipart-body.test.ts); one that
      // documents no fields cannot be.
      "The operation upload is left out: its multipart body documents no fields.",
      "The request body is application/octet-stream; a spec sends JSON bodies only, so the body is left out.",
      "A GET request cannot have a body in a spec; the body is left out.",
    ]);
    expect(specOf(result).tools.map((t) => [t["name"], t["http"]["body"]])).toEqual([
      ["raw", undefined],
      ["get", undefined],
    ]);
    expect(result.text).not.toContain("kervancExtensions");
  });

  it("sends a form body with the kervanc form-body extension, declared in the spec, and says it is no longer portable", () => {
    const form = {
      type: "object",
      required: ["email"],
      properties: { email: { type: "string" }, metadata: { type: "object", additionalProperties: { type: "string" } } },
    };
    const result = imp(
      api({
        "/customers": {
          post: {
            operationId: "PostCustomers",
            requestBody: { content: { "application/x-www-form-urlencoded": { schema: form } } },
            responses: ok200,
          },
        },
      }),
    );
    const spec = specOf(result);
    expect(spec["kervancExtensions"]).toEqual(["form-body", "omit-absent"]);
    expect(spec.tools[0]!["http"]).toMatchObject({
      method: "POST",
      body: { email: "{{input.email}}", metadata: "{{input.metadata}}" },
      bodyEncoding: "form",
      omitAbsent: true,
    });
    expect(spec.tools[0]!["http"]["headers"]).toBeUndefined();
    expect(spec.tools[0]!["input"]).toEqual({
      type: "object",
      properties: form.properties,
      required: ["email"],
      additionalProperties: false,
    });
    expect(result.text).toContain(
      "# form-encoded bodies (bodyEncoding: form) are a kervanc extension; optional headers and body fields left out when not given (omitAbsent: true) are a kervanc extension: this spec no longer runs on Kervan.",
    );
    expect(result.diagnostics.filter((d) => d.code === "KV8001").map((d) => d.severity)).toEqual(["info", "info"]);
  });

  it("sends a form array the document encodes as deepObject under name[] (Stripe's expand[])", () => {
    const form = {
      type: "object",
      properties: {
        expand: { type: "array", items: { type: "string" } },
        tags: { type: "array", items: { type: "string" } },
        email: { type: "string" },
      },
    };
    const media = {
      schema: form,
      encoding: { expand: { style: "deepObject", explode: true }, email: { style: "deepObject" } },
    };
    const spec = specOf(
      imp(
        api({
          "/customers": {
            post: {
              operationId: "PostCustomers",
              requestBody: { content: { "application/x-www-form-urlencoded": media } },
              responses: ok200,
            },
          },
        }),
      ),
    );
    // Only the array takes the brackets; an array without the encoding repeats its key, as Twilio reads it.
    expect(spec.tools[0]!["http"]["body"]).toEqual({
      "expand[]": "{{input.expand}}",
      tags: "{{input.tags}}",
      email: "{{input.email}}",
    });
  });

  it("sends */* with a JSON schema as JSON (Kubernetes create and replace)", () => {
    const schema = {
      type: "object",
      properties: { metadata: { type: "object", properties: { name: { type: "string" } } } },
    };
    const result = imp(
      api({
        "/cm": {
          post: {
            operationId: "create",
            requestBody: { required: true, content: { "*/*": { schema } } },
            responses: ok200,
          },
        },
      }),
    );
    const tool = specOf(result).tools[0]!;
    expect(tool["http"]["body"]).toEqual({ metadata: "{{input.metadata}}" });
    expect(tool["http"]["headers"]).toBeUndefined();
    expect(tool["input"]["properties"]).toEqual(schema.properties);
    // Without a schema there is nothing to say it is JSON: the operation is left out, by name.
    const bare = imp(
      api({
        "/cm": {
          post: { operationId: "create", requestBody: { required: true, content: { "*/*": {} } }, responses: ok200 },
        },
        "/b": { get: { operationId: "b", responses: ok200 } },
      }),
    );
    expect(problems(bare).map((d) => d.message)).toEqual([
      "The request body is */*; a spec sends JSON bodies only, so the operation create is left out.",
    ]);
  });

  it("picks the JSON media type that fits the schema for PATCH: merge patch for an object, JSON Patch for a list", () => {
    const patch = (schema: unknown) =>
      specOf(
        imp(
          api({
            "/cm": {
              patch: {
                operationId: "patch",
                requestBody: {
                  required: true,
                  content: Object.fromEntries(
                    [
                      "application/json-patch+json",
                      "application/merge-patch+json",
                      "application/strategic-merge-patch+json",
                      "application/apply-patch+yaml",
                    ].map((t) => [t, { schema }]),
                  ),
                },
                responses: ok200,
              },
            },
          }),
        ),
      ).tools[0]!["http"]["headers"];
    expect(patch({ type: "object" })).toEqual({ "Content-Type": "application/merge-patch+json" });
    expect(patch({ type: "array", items: { type: "object" } })).toEqual({
      "Content-Type": "application/json-patch+json",
    });
  });
});

describe("required names the document does not declare", () => {
  it("keeps them required, as properties of any value (Asana's SectionRequest requires an undeclared project)", () => {
    // Found by the differential suite: the requirement was dropped, so PUT /sections sent a body without the
    // `project` the document requires.
    const body = (schema: object) => ({
      requestBody: { required: true, content: { "application/json": { schema } } },
      responses: ok200,
    });
    const section = { type: "object", properties: { name: { type: "string" } }, required: ["project", "name"] };
    const result = imp(
      api({
        "/a": { put: { operationId: "a", ...body({ type: "object", properties: { data: section } }) } },
        "/b": { put: { operationId: "b", ...body({ ...section, additionalProperties: false }) } },
      }),
    );
    const [a, b] = specOf(result).tools;
    const data = a!["input"]["properties"]["data"];
    expect(data["required"]).toEqual(["name", "project"]);
    expect(data["properties"]["project"]).toEqual({
      description: "Required by the API; its document gives no schema for it.",
    });
    // A closed object cannot hold the undeclared name: nothing is added.
    expect(Object.keys(b!["input"]["properties"])).toEqual(["name"]);
  });
});
