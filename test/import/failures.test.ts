/**
 * kervanc import's proposals for an operation's failures (import/failures.ts): a documented 429 or 503 gets a
 * commented-out `retry`, a documented 4xx JSON body with `errors` or `message` a commented-out `error`; both stay
 * comments, so the imported spec is plain Kervan and builds as before.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { importOpenApi } from "../../packages/compiler/src/import/openapi.ts";

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const doc = JSON.stringify({
  openapi: "3.1.0",
  info: { title: "Contacts", version: "1.0" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/contacts": {
      get: {
        operationId: "listContacts",
        responses: { "200": json({ type: "array", items: { type: "object" } }), "429": { description: "slow down" } },
      },
      post: {
        operationId: "createContact",
        requestBody: json({ type: "object", properties: { email: { type: "string" } }, required: ["email"] }),
        responses: {
          "201": json({ type: "object", properties: { id: { type: "string" } } }),
          "422": json({ type: "object", properties: { errors: { type: "array", items: { type: "object" } } } }),
          "503": { description: "maintenance" },
        },
      },
    },
    "/plain": { get: { operationId: "plain", responses: { "200": json({ type: "object" }) } } },
  },
});

describe("failure proposals", () => {
  const result = importOpenApi("api.json", new TextEncoder().encode(doc), "spec.yaml");
  const text = result.text!;

  it("propose retry for 429/503 and error detail for a documented errors list, as comments only", () => {
    expect(text).toContain("# retry: { attempts: 3 }");
    expect(text).toContain("# retry: { attempts: 3, methods: [POST] }  # POST is not idempotent");
    expect(text).toContain('# error: { select: "errors", maxChars: 600 }');
    expect(text).not.toMatch(/^\s*retry:/m);
    expect(text).not.toMatch(/^kervancExtensions:/m);
  });

  it("propose nothing for an operation that documents no failure", () => {
    const plainAt = text.indexOf("- name: plain");
    expect(text.slice(plainAt)).not.toContain("proposal (kervanc extension");
  });

  it("leave a spec that builds as plain Kervan", () => {
    const built = compileSpec("spec.yaml", new TextEncoder().encode(text));
    expect(built.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(built.diagnostics.map((d) => d.code)).not.toContain("KV8001");
  });
});
