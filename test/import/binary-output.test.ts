/**
 * kervanc import --binary-output: an operation that answers only binary types (an image, a PDF, octet-stream)
 * imports with the kervanc extension binary-output; without the flag it is left out, with a warning naming the flag.
 */
import { describe, expect, it } from "vitest";
import { api, codes, imp, specOf } from "./helpers.ts";

const binary = (type: string) => ({
  "200": { description: "a file", content: { [type]: { schema: { type: "string", format: "binary" } } } },
});

const doc = api({
  "/charts/{id}.png": {
    get: {
      operationId: "getChart",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: binary("image/png"),
    },
  },
  "/reports/{id}": {
    get: {
      operationId: "getReport",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      responses: binary("application/pdf"),
    },
  },
});

describe("kervanc import --binary-output", () => {
  it("imports file answers as binary output, declaring the extension", () => {
    const result = imp(doc, { binaryOutput: true });
    const spec = specOf(result);
    expect(spec["kervancExtensions"]).toEqual(["binary-output"]);
    expect(spec.tools.map((t) => [t["name"], t["output"]])).toEqual([
      ["getChart", { binary: {} }],
      ["getReport", { binary: {} }],
    ]);
    expect(result.text).toContain("returned as image, audio or file content (kervanc extension binary-output)");
  });

  it("without the flag, leaves them out and says the flag exists", () => {
    const result = imp(doc, { skipInvalid: true });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.message).join("\n")).toContain("kervanc import --binary-output returns it");
    expect(codes(result)).toContain("warning KV7010");
  });
});
