/**
 * File uploads and image answers from a real API description (fixtures/openapi/real/box-files.json, cut from Box's,
 * Apache-2.0), end to end: `kervanc import --binary-output`, `kervanc build`, the server as a process and the SDK
 * client, against a local https upstream that parses the upload with busboy (a real multipart parser) and answers
 * images as Box documents them. Issue 40: files in, images out.
 */
import busboy from "busboy";
import { readFile } from "node:fs/promises";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { type CliResult, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, type RecordedRequest, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";
import { call, importAndBuild } from "./imported-servers.ts";

const TOKEN = "box-access-token-7c1e";
/** A JPEG's first bytes (SOI, APP0 "JFIF") and some more: what Box's avatar endpoint answers. */
const JPEG = Buffer.from([
  0xff,
  0xd8,
  0xff,
  0xe0,
  0x00,
  0x10,
  0x4a,
  0x46,
  0x49,
  0x46,
  0x00,
  0x01,
  ...Array(64).fill(7),
]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array(40).fill(3)]);
const FILE = Buffer.from(Array.from({ length: 700 }, (_, i) => (i * 31 + 11) % 256));

interface Part {
  readonly name: string;
  readonly type: string;
  readonly filename?: string;
  readonly bytes: Buffer;
}

let root: string;
let box: Upstream;
let imported: CliResult;
let built: CliResult;
let client: TestClient;
/** The parts of each upload, in the order they came. */
const uploads: Part[][] = [];

function parts(headers: IncomingHttpHeaders, body: Buffer): Promise<Part[]> {
  return new Promise((resolve, reject) => {
    const found: Part[] = [];
    const parser = busboy({ headers: headers as Record<string, string>, defParamCharset: "utf8" });
    parser.on("field", (name, value, info) => found.push({ name, type: info.mimeType, bytes: Buffer.from(value) }));
    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () =>
        found.push({ name, type: info.mimeType, filename: info.filename, bytes: Buffer.concat(chunks) }),
      );
    });
    parser.on("close", () => resolve(found));
    parser.on("error", reject);
    parser.end(body);
  });
}

async function boxHandler(req: RecordedRequest, res: ServerResponse): Promise<void> {
  if (req.headers["authorization"] !== `Bearer ${TOKEN}`) return json(res, 401, { type: "error", status: 401 });
  if (req.method === "POST" && req.path === "/files/content") {
    const found = await parts(req.headers, req.rawBody);
    uploads.push(found);
    // Box refuses attributes after the file (metadata_after_file_contents).
    if (found[0]?.name !== "attributes")
      return json(res, 400, { type: "error", status: 400, code: "metadata_after_file_contents" });
    const attributes = JSON.parse(found[0].bytes.toString("utf8")) as { name: string };
    return json(res, 201, {
      total_count: 1,
      entries: [{ id: "12345", type: "file", name: attributes.name, size: found[1]?.bytes.length ?? 0 }],
    });
  }
  if (req.method === "GET" && req.path === "/users/33/avatar") {
    return void res.writeHead(200, { "content-type": "image/jpeg" }).end(JPEG);
  }
  if (req.method === "GET" && req.path === "/files/12345/thumbnail.png") {
    return void res.writeHead(200, { "content-type": "image/png" }).end(PNG);
  }
  json(res, 404, { type: "error", status: 404 });
}

beforeAll(async () => {
  box = await startUpstream((req, res) => void boxHandler(req, res), { tls: true, hostname: "localhost" });
  root = await tempDir("import-box");
  let imports: Record<string, CliResult>;
  ({ imports, built } = await importAndBuild(root, [
    { name: "box", document: "fixtures/openapi/real/box-files.json", serverUrl: box.origin, args: ["--binary-output"] },
  ]));
  imported = imports["box"]!;
  client = await connect("modern", join(root, "out", "box", "server.mjs"), {
    serverArgs: ["--allow-private-network"],
    env: { NODE_EXTRA_CA_CERTS: TEST_CA, OAUTH2_SECURITY: TOKEN },
  });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await box?.close();
  if (root) await removeDir(root);
});

describe("Box: uploads and images, imported and built", () => {
  it("imports all three operations (the upload with multipart-body, the images with binary-output) and builds", async () => {
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout + imported.stderr).toContain("Imported 3 of 3 operations");
    expect(built.code, built.stderr).toBe(0);
    const spec = await readFile(join(root, "specs", "box.yaml"), "utf8");
    expect(spec).toMatch(/kervancExtensions: \[ [a-z, -]*binary-output[a-z, -]*multipart-body/);
    expect(spec).toContain('attributes: { json: "{{input.attributes}}" }');
  });

  it("uploads a file: the attributes as a JSON part first, then the file's bytes intact", async () => {
    const { result, request } = await call(client, box, "post_files_content", {
      attributes: { name: "report.pdf", parent: { id: "0" } },
      file_base64: FILE.toString("base64"),
      file_filename: "../../report.pdf",
      file_content_type: "application/pdf",
    });
    expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
    expect(request.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const [attributes, file] = uploads.at(-1)!;
    expect(attributes?.type).toBe("application/json");
    expect(JSON.parse(attributes!.bytes.toString("utf8"))).toEqual({ name: "report.pdf", parent: { id: "0" } });
    expect(file).toMatchObject({ name: "file", type: "application/pdf", filename: "report.pdf" });
    expect(file!.bytes.equals(FILE)).toBe(true);
    expect(result.structuredContent).toMatchObject({ entries: [{ id: "12345", name: "report.pdf" }] });
    // The token went to the API, never to the model.
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it("leaves an optional part out when the argument is absent, and refuses a body without its required attributes", async () => {
    const refused = await client.callTool("post_files_content", { file_base64: FILE.toString("base64") });
    expect(refused.isError).toBe(true);
    const before = uploads.length;
    const { result } = await call(client, box, "post_files_content", {
      attributes: { name: "a.txt", parent: { id: "0" } },
      file_base64: Buffer.from("hello").toString("base64"),
      file_filename: "a.txt",
    });
    expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
    expect(uploads.length).toBe(before + 1);
    // No content type given: the file part says application/octet-stream, as the extension documents.
    expect(uploads.at(-1)![1]).toMatchObject({ name: "file", type: "application/octet-stream" });
  });

  it("returns a user's avatar as image content, and a file's thumbnail by its extension", async () => {
    const avatar = await call(client, box, "get_users_id_avatar", { user_id: "33" });
    expect(avatar.result.content).toEqual([{ type: "image", data: JPEG.toString("base64"), mimeType: "image/jpeg" }]);
    const thumbnail = await call(client, box, "get_files_id_thumbnail_id", { file_id: "12345", extension: "png" });
    expect(thumbnail.request.path).toBe("/files/12345/thumbnail.png");
    expect(thumbnail.result.content).toEqual([{ type: "image", data: PNG.toString("base64"), mimeType: "image/png" }]);
  });
});
