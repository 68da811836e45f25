/**
 * The kervanc form-body extension to the spec format (docs/extensions/form-body.md): explicit in the file,
 * reported by build as no longer portable to Kervan (KV8001, info), refused under --strict-kervan, an error when
 * used without being declared (KV8002), and sent form-encoded by a generated server to a real local upstream.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { connect, type TestClient } from "../helpers/clients.ts";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const spec = (origin: string, declared: boolean, encoding = "form"): string => `specVersion: 1
${declared ? "kervancExtensions: [form-body]\n" : ""}name: forms
version: "1.0"
tools:
  - name: create_customer
    description: Create a customer.
    input:
      type: object
      properties:
        email: { type: string }
        metadata: { type: object, properties: { plan: { type: string } } }
        expand: { type: array, items: { type: string } }
      required: [email]
      additionalProperties: false
    http:
      method: POST
      url: ${origin}/v1/customers
      allowInsecureHttp: true
      body: { email: "{{input.email}}", metadata: "{{input.metadata}}", expand: "{{input.expand}}", source: kervanc }
      bodyEncoding: ${encoding}
    output: { select: "{id: id, email: email}" }
`;

const codes = (text: string): string[] =>
  compileSpec("forms.yaml", new TextEncoder().encode(text)).diagnostics.map((d) => `${d.severity} ${d.code}`);

describe("declaring and using the extension", () => {
  it("builds a spec that declares and uses it, with one informational note that it is no longer portable to Kervan", () => {
    const compiled = compileSpec("forms.yaml", new TextEncoder().encode(spec("http://127.0.0.1:9", true)));
    expect(compiled.diagnostics.map((d) => [d.severity, d.code, d.path, d.line])).toEqual([
      ["info", "KV8001", "kervancExtensions", 2],
    ]);
    expect(compiled.planned!.tools[0]!.plan.request.bodyEncoding).toBe("form");
  });

  it("refuses bodyEncoding: form without the declaration, so no spec leaves the Kervan format by accident", () => {
    expect(codes(spec("http://127.0.0.1:9", false))).toEqual(["error KV8002"]);
  });

  it("leaves a spec without the extension as it was: no note, a JSON body, no bodyEncoding in the plan", () => {
    const text = spec("http://127.0.0.1:9", false).replace("      bodyEncoding: form\n", "");
    const compiled = compileSpec("forms.yaml", new TextEncoder().encode(text));
    expect(compiled.diagnostics).toEqual([]);
    expect(compiled.planned!.tools[0]!.plan.request).not.toHaveProperty("bodyEncoding");
  });
});

describe("a generated server with a form body, against a local upstream", () => {
  let upstream: Upstream;
  let dir: string;
  let client: TestClient;
  let build: { code: number; stdout: string; stderr: string };
  let strict: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      if (req.headers["content-type"] !== "application/x-www-form-urlencoded") return json(res, 415, {});
      const form = new URLSearchParams(req.body);
      json(res, 200, { id: "cus_1", email: form.get("email"), object: "customer" });
    });
    dir = await tempDir("form-body");
    await writeFile(join(dir, "forms.yaml"), spec(upstream.origin, true));
    [build, strict] = await Promise.all([
      kervanc(["build", join(dir, "forms.yaml"), "-o", join(dir, "out")]),
      kervanc(["build", join(dir, "forms.yaml"), "-o", join(dir, "strict-out"), "--strict-kervan"]),
    ]);
    client = await connect("modern", join(dir, "out", "forms", "server.mjs"), {
      serverArgs: ["--allow-private-network"],
    });
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await upstream?.close();
    if (dir) await removeDir(dir);
  });

  it("builds, saying the spec is no longer portable; --strict-kervan refuses it and writes nothing", () => {
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain("info KV8001: kervancExtensions: This spec uses the kervanc extension form-body");
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain("error KV8001");
    expect(strict.stderr).toContain("Found 1 error; nothing was written.");
  });

  it("sends the body form-encoded, with nested keys and repeated lists, and leaves out what was omitted", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool("create_customer", {
      email: "ada@example.com",
      metadata: { plan: "pro&x=1" },
      expand: ["sources", "tax"],
    });
    expect(result.content).toEqual([{ type: "text", text: '{"id":"cus_1","email":"ada@example.com"}' }]);
    const request = upstream.requests[before]!;
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect([...new URLSearchParams(request.body)]).toEqual([
      ["email", "ada@example.com"],
      ["metadata[plan]", "pro&x=1"],
      ["expand", "sources"],
      ["expand", "tax"],
      ["source", "kervanc"],
    ]);
    await client.callTool("create_customer", { email: "bo@example.com" });
    expect(upstream.requests.at(-1)!.body).toBe("email=bo%40example.com&source=kervanc");
  });
});
