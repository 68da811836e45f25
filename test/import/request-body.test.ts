/**
 * Request bodies (import/request-body.ts): the body a tool sends.
 */
import { describe, expect, it } from "vitest";
import { imp, specOf, api, ok200, problems } from "./helpers.ts";

describe("request bodies", () => {
  it("sends a JSON body as one required property, with its media type when it is not application/json", () => {
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
      properties: { body: { description: "The changes.", type: "object", properties: { n: { type: "integer" } } } },
      required: ["body"],
      additionalProperties: false,
    });
    expect(tool["http"]).toEqual({
      method: "PATCH",
      url: "https://api.example.com/v1/a",
      headers: { "Content-Type": "application/merge-patch+json" },
      body: "{{input.body}}",
    });
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
    expect(spec["kervancExtensions"]).toEqual(["form-body"]);
    expect(spec.tools[0]!["http"]).toMatchObject({ method: "POST", body: "{{input.body}}", bodyEncoding: "form" });
    expect(spec.tools[0]!["http"]["headers"]).toBeUndefined();
    expect(spec.tools[0]!["input"]["properties"]["body"]).toEqual(form);
    expect(result.text).toContain(
      "# form-encoded bodies (bodyEncoding: form) are a kervanc extension: this spec no longer runs on Kervan.",
    );
    expect(result.diagnostics.filter((d) => d.code === "KV8001").map((d) => d.severity)).toEqual(["info"]);
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
    expect(tool["http"]["body"]).toBe("{{input.body}}");
    expect(tool["http"]["headers"]).toBeUndefined();
    expect(tool["input"]["properties"]["body"]).toEqual(schema);
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
