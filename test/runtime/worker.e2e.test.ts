/**
 * The fetch-handler entry in process: what workerd, Deno and Bun run, driven here with web-standard Requests
 * through the fetch transport against a local upstream. The platforms themselves are covered by the runtime
 * suites that run the bundled worker.mjs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetchHandler } from "../../packages/runtime/src/entry/fetch-main.ts";
import { compileInProcess } from "../helpers/inprocess.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";
import { failedStart } from "../helpers/worker.ts";

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream((req, res) =>
    json(res, 200, { auth: req.headers["x-key"] ?? null, n: Number(new URLSearchParams(req.query).get("n")) }),
  );
});
afterAll(async () => {
  await upstream.close();
});

function spec(origin: string): string {
  return `
specVersion: 1
name: worker
version: "1.0.0"
secrets: [API_KEY]
tools:
  - name: echo
    description: echo
    input: { type: object, properties: { n: { type: integer } }, required: [n] }
    http: { url: "${origin}/e", allowInsecureHttp: true, query: { n: "{{input.n}}" } }
    output: { select: "@", schema: { type: object } }
`;
}

const headers = (method: string, name?: string): Record<string, string> => ({
  // A constructed Request has no Host header; the platforms' incoming requests do.
  host: "localhost",
  ...modernHeadersFor(method, name),
});

async function rpc(
  worker: ReturnType<typeof createFetchHandler>,
  method: string,
  params: Record<string, unknown>,
  env: unknown,
  name?: string,
): Promise<{ status: number; body: any }> {
  const response = await worker.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: headers(method, name),
      body: JSON.stringify(modernMessage(1, method, params)),
    }),
    env,
  );
  const text = await response.text();
  const data = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "null");
  return { status: response.status, body: JSON.parse(data) };
}

describe("the fetch-handler entry", () => {
  it("serves discover, list and call", async () => {
    const worker = createFetchHandler(compileInProcess(spec(upstream.origin)));
    const env = { KERVANC_ALLOW_PRIVATE_NETWORK: "1" };
    const discover = await rpc(worker, "server/discover", {}, env);
    expect(discover.status).toBe(200);
    expect(discover.body.result._meta["io.modelcontextprotocol/serverInfo"]).toEqual({
      name: "worker",
      version: "1.0.0",
    });
    const list = await rpc(worker, "tools/list", {}, env);
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    const call = await rpc(worker, "tools/call", { name: "echo", arguments: { n: 7 } }, env, "echo");
    expect(call.body.result.structuredContent).toEqual({ auth: null, n: 7 });
    const invalid = await rpc(worker, "tools/call", { name: "echo", arguments: {} }, env, "echo");
    expect(invalid.body.result.isError).toBe(true);
  });

  it("refuses loopback without the test flag, and foreign Host headers", async () => {
    const worker = createFetchHandler(compileInProcess(spec(upstream.origin)));
    const before = upstream.requests.length;
    const call = await rpc(worker, "tools/call", { name: "echo", arguments: { n: 1 } }, {}, "echo");
    expect(call.body.result).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: `Request to 127.0.0.1:${upstream.port} was blocked: it resolves to a disallowed address (loopback address).`,
        },
      ],
    });
    expect(upstream.requests.length).toBe(before);
    const foreign = await worker.fetch(
      new Request("http://evil.example.com/mcp", {
        method: "POST",
        headers: { ...headers("server/discover"), host: "evil.example.com" },
        body: "{}",
      }),
    );
    expect(foreign.status).toBe(403);
  });

  it("reads secrets from the platform binding, and refuses to start with one too short to redact", async () => {
    const withSecret = spec("https://api.example.com").replace(
      'query: { n: "{{input.n}}" }',
      'headers: { X-Key: "{{secrets.API_KEY}}" }',
    );
    expect(withSecret).toContain("{{secrets.API_KEY}}");
    const worker = createFetchHandler(compileInProcess(withSecret));
    const logged = await failedStart(
      worker,
      new Request("http://localhost/mcp", { method: "POST", headers: headers("server/discover"), body: "{}" }),
      { API_KEY: "short" },
    );
    expect(logged).toContain(
      "Error: spec.yaml:5:11 secrets[0]: Secret API_KEY is shorter than 8 characters. Short values cannot be redacted reliably; use a longer secret.",
    );
  });

  it("serves the selection its bindings make, and refuses one naming a tool it lacks", async () => {
    const text = `
specVersion: 1
kervancExtensions: [toolsets]
name: worker
version: "1.0.0"
tools:
  - name: read
    description: read
    tags: [reading]
    annotations: { readOnlyHint: true }
    http: { url: "${upstream.origin}/r", allowInsecureHttp: true }
    output: { select: "@" }
  - name: write
    description: write
    http: { method: POST, url: "${upstream.origin}/w", allowInsecureHttp: true }
    output: { select: "@" }
`;
    const names = async (env: Record<string, string>): Promise<string[]> => {
      const list = await rpc(createFetchHandler(compileInProcess(text)), "tools/list", {}, env);
      return list.body.result.tools.map((t: { name: string }) => t.name);
    };
    const env = { KERVANC_ALLOW_PRIVATE_NETWORK: "1" };
    expect(await names(env)).toEqual(["read", "write"]);
    expect(await names({ ...env, KERVANC_READ_ONLY: "1" })).toEqual(["read"]);
    expect(await names({ ...env, KERVANC_TOOLS: "write" })).toEqual(["write"]);
    expect(await names({ ...env, KERVANC_TOOLSETS: "reading" })).toEqual(["read"]);
    const worker = createFetchHandler(compileInProcess(text));
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: headers("tools/list"),
      body: JSON.stringify(modernMessage(1, "tools/list")),
    });
    const logged = await failedStart(worker, request, { ...env, KERVANC_TOOLS: "writ" });
    expect(logged).toContain('Error: No tool named "writ" in worker. Its tools: "read", "write".');
  });

  it("refuses a request a proxy relayed when it has no authentication, and serves it with KERVANC_INSECURE_NO_AUTH=1", async () => {
    const relayed = (worker: ReturnType<typeof createFetchHandler>, env: Record<string, string>) =>
      worker.fetch(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { ...headers("tools/list"), "x-forwarded-for": "203.0.113.9" },
          body: JSON.stringify(modernMessage(1, "tools/list")),
        }),
        env,
      );
    const env = { KERVANC_ALLOW_PRIVATE_NETWORK: "1" };
    const refused = await relayed(createFetchHandler(compileInProcess(spec(upstream.origin))), env);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("this request came through a proxy");
    const insecure = await relayed(createFetchHandler(compileInProcess(spec(upstream.origin))), {
      ...env,
      KERVANC_INSECURE_NO_AUTH: "1",
    });
    expect(insecure.status).toBe(200);
  });
});
