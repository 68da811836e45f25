/**
 * The kervanc multipart-body extension (docs/extensions/multipart-body.md), end to end: a generated server process,
 * the SDK client over stdio, and an API over https on 127.0.0.1 that parses every upload with busboy (a real
 * multipart parser, not ours) and answers what it found. Text and file parts, bytes intact, hostile filenames,
 * a content type that is not one, invalid base64, a file over the limit (nothing sent),
 * and the API key echoed back redacted.
 */
import busboy from "busboy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const KEY = "upload-api-key-canary-31f0";

interface Parsed {
  fields: [string, string][];
  /** Each field's Content-Type as busboy read it (text/plain when the part has none). */
  fieldTypes: Record<string, string>;
  files: { name: string; filename: string; mimeType: string; base64: string }[];
  contentType: string;
}

let api: Upstream;
let root: string;
let client: TestClient;
/** Each upload as busboy parsed it. */
const uploads: Parsed[] = [];

const SPEC = `specVersion: 1
kervancExtensions: [multipart-body]
name: uploads
version: "1.0.0"
secrets: [API_KEY]
tools:
  - name: upload
    description: Upload a file with a description.
    input:
      type: object
      properties:
        description: { type: string }
        content_base64: { type: string }
        filename: { type: string }
        content_type: { type: string }
        tags: { type: array, items: { type: string } }
        meta: { type: object }
      required: [content_base64]
    http:
      method: POST
      url: "API/upload"
      headers: { X-Api-Key: "{{secrets.API_KEY}}" }
      bodyEncoding: multipart
      maxUploadBytes: 4096
      body:
        description: "{{input.description}}"
        tags: "{{input.tags}}"
        meta: { json: "{{input.meta}}" }
        file:
          content: "{{input.content_base64}}"
          encoding: base64
          filename: "{{input.filename}}"
          contentType: "{{input.content_type}}"
    output: { select: "@" }
`;

beforeAll(async () => {
  api = await startUpstream(
    async (req, res) => {
      // The recorded request holds the body as text; busboy gets the bytes as they came (latin1 keeps each byte).
      const parsed: Parsed = {
        fields: [],
        fieldTypes: {},
        files: [],
        contentType: String(req.headers["content-type"]),
      };
      await new Promise<void>((resolve, reject) => {
        const parser = busboy({ headers: req.headers as Record<string, string>, defParamCharset: "utf8" });
        parser.on("field", (name, value, info) => {
          parsed.fields.push([name, value]);
          parsed.fieldTypes[name] = info.mimeType;
        });
        parser.on("file", (name, stream, info) => {
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () =>
            parsed.files.push({
              name,
              filename: info.filename ?? "",
              mimeType: info.mimeType,
              base64: Buffer.concat(chunks).toString("base64"),
            }),
          );
        });
        parser.on("close", resolve);
        parser.on("error", reject);
        parser.end(req.rawBody);
      });
      uploads.push(parsed);
      json(res, 200, { received: parsed.files.length, key: req.headers["x-api-key"] });
    },
    { tls: true },
  );
  ({ root } = await buildOneSpec("multipart", "uploads.yaml", SPEC.replaceAll("API/", `${api.origin}/`)));
  client = await connect("modern", `${root}/out/uploads/server.mjs`, {
    serverArgs: ["--allow-private-network"],
    env: { NODE_EXTRA_CA_CERTS: TEST_CA, API_KEY: KEY },
  });
}, 60_000);

afterAll(async () => {
  await client?.close();
  await api?.close();
  if (root) await removeDir(root);
});

const text = (r: { content?: { text?: string }[] }): string => r.content?.[0]?.text ?? "";
const BYTES = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 53 + 7) % 256));

describe("multipart uploads", () => {
  it("sends a { json } field as an application/json part (Box's upload attributes), and none when absent", async () => {
    const meta = { name: "report.pdf", parent: { id: "0" }, note: 'line\r\n--"quoted"' };
    const r = await client.callTool("upload", { content_base64: BYTES.toString("base64"), meta });
    expect(r.isError ?? false, text(r)).toBe(false);
    const upload = uploads.at(-1)!;
    expect(upload.fields.filter(([name]) => name === "meta").map(([, value]) => JSON.parse(value))).toEqual([meta]);
    expect(upload.fieldTypes["meta"]).toBe("application/json");
    await client.callTool("upload", { content_base64: BYTES.toString("base64") });
    expect(uploads.at(-1)!.fields.map(([name]) => name)).not.toContain("meta");
  });

  it("sends text and file parts that a real parser reads back, bytes intact", async () => {
    const r = await client.callTool("upload", {
      description: "quarterly report",
      tags: ["a", "b"],
      content_base64: BYTES.toString("base64"),
      filename: "report.bin",
      content_type: "application/pdf",
    });
    expect(r.isError ?? false).toBe(false);
    // The API echoed the key: the model sees it redacted.
    expect(JSON.parse(text(r))).toEqual({ received: 1, key: "[redacted]" });
    const upload = uploads.at(-1)!;
    expect(upload.contentType).toMatch(/^multipart\/form-data; boundary=----kervanc[0-9a-f]{36}$/);
    expect(upload.fields).toEqual([
      ["description", "quarterly report"],
      ["tags", "a"],
      ["tags", "b"],
    ]);
    expect(upload.files).toEqual([
      { name: "file", filename: "report.bin", mimeType: "application/pdf", base64: BYTES.toString("base64") },
    ]);
  });

  it("keeps a hostile filename to its last segment, with quotes and line breaks encoded", async () => {
    for (const [filename, expected] of [
      ["../../etc/passwd", "passwd"],
      ['evil"; name="other.txt', "evil%22; name=%22other.txt"],
      [
        "a\r\nContent-Disposition: attachment\r\n\r\n<x>.txt",
        "a%0D%0AContent-Disposition: attachment%0D%0A%0D%0A<x>.txt",
      ],
      ["rapport-été-📄.pdf", "rapport-été-📄.pdf"],
    ] as const) {
      const r = await client.callTool("upload", { content_base64: "aGVsbG8=", filename });
      expect(r.isError ?? false, text(r)).toBe(false);
      const upload = uploads.at(-1)!;
      expect(upload.files.map((f) => [f.name, f.filename])).toEqual([["file", expected]]);
      expect(upload.fields).toEqual([]);
    }
  });

  it("refuses invalid base64, a content type that is not one, and a file over the limit, sending nothing", async () => {
    const before = api.requests.length;
    for (const [args, message] of [
      [{ content_base64: "not base64!" }, 'The content of file field "file" is not valid base64'],
      [{ content_base64: "aGVsbG8=", content_type: "text/html\r\nX: y" }, "must be a media type such as image/png"],
      [
        { content_base64: Buffer.alloc(5000).toString("base64") },
        "more than 4096 bytes, this tool's limit; nothing was sent",
      ],
    ] as const) {
      const r = await client.callTool("upload", args);
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(message);
    }
    expect(api.requests.length).toBe(before);
  });
});
