/**
 * kervanc import and multipart bodies (import/multipart-body.ts): an upload operation imports with the kervanc
 * extension multipart-body, each binary property a file field with base64, filename and content-type inputs, each
 * scalar a text field; what a part cannot carry leaves the operation out, named. The operation below follows
 * Slack's files.upload (a file, a filename, channels and a comment as form fields).
 */
import { describe, expect, it } from "vitest";
import { api, imp, ok200, specOf } from "./helpers.ts";

const upload = (properties: Record<string, unknown>, required: string[] = []) =>
  api({
    "/files.upload": {
      post: {
        operationId: "files_upload",
        requestBody: {
          required: true,
          content: { "multipart/form-data": { schema: { type: "object", properties, required } } },
        },
        responses: ok200,
      },
    },
  });

describe("multipart request bodies", () => {
  it("import as multipart-body, with file and text fields", () => {
    const result = imp(
      upload(
        {
          file: { type: "string", format: "binary", description: "File contents." },
          filename: { type: "string" },
          channels: { type: "string", description: "Comma-separated channel ids." },
          initial_comment: { type: "string" },
        },
        ["file"],
      ),
    );
    const spec = specOf(result);
    // Optional fields are left out when absent (omit-absent), as a multipart body leaves out null ones.
    expect(spec["kervancExtensions"]).toEqual(["multipart-body", "omit-absent"]);
    const [tool] = spec.tools;
    expect(tool!["http"]["bodyEncoding"]).toBe("multipart");
    expect(tool!["http"]["omitAbsent"]).toBe(true);
    expect(tool!["http"]["body"]).toEqual({
      file: {
        content: "{{input.file_base64}}",
        encoding: "base64",
        filename: "{{input.file_filename}}",
        contentType: "{{input.file_content_type}}",
      },
      filename: "{{input.filename}}",
      channels: "{{input.channels}}",
      initial_comment: "{{input.initial_comment}}",
    });
    expect(tool!["input"]["required"]).toEqual(["file_base64", "file_filename"]);
    expect(tool!["input"]["properties"]["file_base64"]).toMatchObject({ type: "string", contentEncoding: "base64" });
  });

  it("need no omitAbsent when every field is required", () => {
    const spec = specOf(
      imp(upload({ file: { type: "string", format: "binary" }, title: { type: "string" } }, ["file", "title"])),
    );
    expect(spec["kervancExtensions"]).toEqual(["multipart-body"]);
    expect(spec.tools[0]!["http"]).not.toHaveProperty("omitAbsent");
  });

  it("send an object field as a JSON part", () => {
    const spec = specOf(
      imp(
        upload(
          {
            attributes: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
            file: { type: "string", format: "binary" },
          },
          ["attributes", "file"],
        ),
      ),
    );
    const tool = spec.tools[0]!;
    expect(tool["http"]["body"]["attributes"]).toEqual({ json: "{{input.attributes}}" });
    expect(tool["input"]["properties"]["attributes"]).toMatchObject({ type: "object", required: ["name"] });
    expect(tool["input"]["required"]).toContain("attributes");
  });

  it("leave out an operation whose fields a part cannot carry, saying which", () => {
    const result = imp(upload({ files: { type: "array", items: { type: "string", format: "binary" } } }), {
      skipInvalid: true,
    });
    expect(result.diagnostics.map((d) => d.message).join("\n")).toContain(
      'is left out: the field "files" is a list of files, which a spec cannot send',
    );
  });
});
