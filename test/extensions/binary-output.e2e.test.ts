/**
 * The kervanc binary-output extension (docs/extensions/binary-output.md), end to end: a generated server process,
 * both SDK clients over stdio (2026-07-28 and 2025-11-25), and an API over https on 127.0.0.1 that answers PNG,
 * PDF, WAV and octet-stream bodies, an HTML page labelled image/png, a body over the tool's limit, a file that
 * holds the API key, and JSON. The clients read image, audio and embedded-resource content, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Era, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const KEY = "binary-api-key-canary-77ab";
/** A 1x1 transparent PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n", "latin1");
const WAV = Buffer.concat([Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ", "latin1"), Buffer.alloc(28, 1)]);
const BYTES = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 37) % 256));

let api: Upstream;
let root: string;
let serverPath: string;

const tool = (name: string, output: string, extra = "") => `
  - name: ${name}
    description: ${name}
    http:
      url: "API/${name}"
      headers: { X-Api-Key: "{{secrets.API_KEY}}" }${extra}
    output: ${output}`;

const SPEC = `specVersion: 1
kervancExtensions: [binary-output]
name: files
version: "1.0.0"
secrets: [API_KEY]
tools:${tool("image", "{ binary: {} }")}${tool("document", "{ binary: {} }")}${tool("sound", "{ binary: {} }")}${tool("download", "{ binary: {} }")}${tool("lying", "{ binary: {} }")}${tool("big", "{ binary: { maxBytes: 1000 } }")}${tool("leaky", "{ binary: {} }")}${tool("either", '{ select: "name", binary: {} }')}${tool("text_answer", "{ binary: {} }")}
`;

beforeAll(async () => {
  api = await startUpstream(
    (req, res) => {
      const send = (type: string, body: Buffer) =>
        void res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body);
      switch (req.path) {
        case "/image":
          return send("image/png", PNG);
        case "/document":
          return send("application/pdf", PDF);
        case "/sound":
          return send("audio/wav", WAV);
        case "/download":
          return send("application/octet-stream", BYTES);
        case "/lying":
          return send("image/png", Buffer.from("<html><script>alert(1)</script></html>"));
        case "/big":
          return send("application/octet-stream", Buffer.alloc(1001, 7));
        case "/leaky":
          return send(
            "application/octet-stream",
            Buffer.concat([BYTES, Buffer.from(String(req.headers["x-api-key"]))]),
          );
        case "/either":
        case "/text_answer":
          return json(res, 200, { name: "a JSON answer" });
        default:
          return json(res, 404, {});
      }
    },
    { tls: true },
  );
  ({ root, serverPath } = await buildOneSpec("binary-output", "files.yaml", SPEC.replaceAll("API/", `${api.origin}/`)));
}, 60_000);

afterAll(async () => {
  await api?.close();
  if (root) await removeDir(root);
});

type Block = {
  type: string;
  data?: string;
  mimeType?: string;
  text?: string;
  resource?: { uri: string; mimeType: string; blob: string };
};

for (const era of ["modern", "legacy"] as const satisfies readonly Era[]) {
  describe(`binary answers, ${era} client`, () => {
    let client: TestClient;
    const first = async (name: string): Promise<{ block: Block; isError: boolean }> => {
      const r = (await client.callTool(name, {})) as { content: Block[]; isError?: boolean };
      return { block: r.content[0]!, isError: r.isError === true };
    };

    beforeAll(async () => {
      client = await connect(era, serverPath, {
        serverArgs: ["--allow-private-network"],
        env: { NODE_EXTRA_CA_CERTS: TEST_CA, API_KEY: KEY },
      });
    }, 30_000);
    afterAll(() => client?.close());

    it("returns an image as image content, an audio file as audio content", async () => {
      const image = await first("image");
      expect(image.block).toEqual({ type: "image", data: PNG.toString("base64"), mimeType: "image/png" });
      const sound = await first("sound");
      expect(sound.block).toEqual({ type: "audio", data: WAV.toString("base64"), mimeType: "audio/wav" });
    });

    it("returns other files as an embedded resource, byte for byte", async () => {
      const pdf = await first("document");
      expect(pdf.block.type).toBe("resource");
      expect(pdf.block.resource).toEqual({
        uri: `${api.origin}/document`,
        mimeType: "application/pdf",
        blob: PDF.toString("base64"),
      });
      const download = await first("download");
      expect(Buffer.from(download.block.resource!.blob, "base64").equals(BYTES)).toBe(true);
    });

    it("refuses a page labelled as an image, a file over the limit, and a file holding a secret", async () => {
      const lying = await first("lying");
      expect(lying.isError).toBe(true);
      expect(lying.block.text).toBe(
        `The answer from ${new URL(api.origin).host} is labelled as an image, but its bytes are not an image.`,
      );
      const big = await first("big");
      expect(big.block.text).toBe(
        `The answer from ${new URL(api.origin).host} has 1001 bytes, more than this tool's limit of 1000.`,
      );
      const leaky = await first("leaky");
      expect(leaky.isError).toBe(true);
      expect(leaky.block.text).toContain("holds one of this server's secrets; it is not returned");
    });

    it("shapes a JSON answer with select when the tool has one, and refuses it when binary is all it returns", async () => {
      expect((await first("either")).block).toEqual({ type: "text", text: '"a JSON answer"' });
      const text = await first("text_answer");
      expect(text.isError).toBe(true);
      expect(text.block.text).toBe(
        'Upstream returned content type "application/json"; this tool returns binary answers only.',
      );
    });
  });
}
