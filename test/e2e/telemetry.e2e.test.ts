/**
 * OpenTelemetry (docs/runtime.md, "Telemetry"), end to end: a generated server process with --otel-endpoint, the
 * SDK v2 client over stdio sending a traceparent in `_meta`, an API over https and an OTLP receiver on 127.0.0.1
 * that keeps every export it gets. Checked: span names, kinds, parents and attributes for a result, invalid
 * arguments, an upstream 500, a retry and a timeout; both duration histograms; a canary secret, an argument and the
 * collector's own API key in no exported byte, in any encoding; traceparent sent upstream only to hosts the
 * operator names; and a collector that is down, or never answers, that no call waits for.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { freePort, readmeCommands, runtimeBinary, shellWords, startService } from "../helpers/runtimes.ts";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { leaks } from "../helpers/secret-encodings.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const SECRET = "telemetry-secret-canary-9f2e";
const ARGUMENT = "argument-canary-5e7a";
const BACKEND_KEY = "backend-key-canary-1c4d";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN = "00f067aa0ba902b7";

interface Export {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

interface Receiver {
  readonly origin: string;
  readonly exports: Export[];
  /** Hold every answer (a collector that never answers). */
  hang: boolean;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const exports: Export[] = [];
  const receiver = { hang: false } as { hang: boolean };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      exports.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (receiver.hang) return;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(receiver, {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

let api: Upstream;
let receiver: Receiver;
let root: string;
let serverPath: string;
let packageDir: string;
let flakyCalls = 0;

const SPEC = `specVersion: 1
kervancExtensions: [retry]
name: traced
version: "1.0.0"
secrets: [API_KEY]
tools:
  - name: get_item
    description: get an item
    input:
      type: object
      properties: { id: { type: string }, q: { type: string } }
      required: [id]
    http:
      url: "API/items/{{input.id}}"
      query: { q: "{{input.q}}" }
      headers: { X-Api-Key: "{{secrets.API_KEY}}" }
    output: { select: "@" }
  - name: failing
    description: fails
    http: { url: "API/fail" }
    output: { select: "@" }
  - name: flaky
    description: flaky
    http: { url: "API/flaky", retry: { attempts: 2, maxDelayMs: 10 } }
    output: { select: "@" }
  - name: slow
    description: slow
    http: { url: "API/slow", timeoutMs: 200 }
    output: { select: "@" }
`;

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  events?: { name: string }[];
  status?: { code: number };
}

function spansOf(exports: readonly Export[]): Span[] {
  return exports
    .filter((e) => e.path === "/v1/traces")
    .flatMap((e) => {
      const body = JSON.parse(e.body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
      return body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    });
}

function attr(span: Span, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  const [kind, v] = Object.entries(value)[0]!;
  return kind === "intValue" ? Number(v) : v;
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function serve(args: readonly string[], env: Record<string, string> = {}) {
  let stderr = "";
  const transport = new ModernStdio({
    command: process.execPath,
    args: ["--disallow-code-generation-from-strings", serverPath, "--allow-private-network", ...args],
    env: {
      PATH: process.env["PATH"] ?? "",
      NODE_EXTRA_CA_CERTS: TEST_CA,
      API_KEY: SECRET,
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "300",
      ...env,
    },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new ModernClient({ name: "t", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  return {
    call: (name: string, args: Record<string, unknown>, traceparent?: string) =>
      client.callTool({
        name,
        arguments: args,
        ...(traceparent !== undefined ? { _meta: { traceparent } } : {}),
      }) as Promise<{ isError?: boolean; content: { text: string }[] }>,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

beforeAll(async () => {
  receiver = await startReceiver();
  api = await startUpstream(
    (req, res) => {
      switch (req.path) {
        case "/fail":
          return json(res, 500, { error: "down" });
        case "/flaky":
          return flakyCalls++ === 0 ? json(res, 503, {}) : json(res, 200, { ok: true });
        case "/slow":
          return; // never answers
        default:
          return json(res, 200, { echoed: req.headers["x-api-key"], query: req.query });
      }
    },
    { tls: true },
  );
  ({ root, serverPath, packageDir } = await buildOneSpec(
    "telemetry",
    "traced.yaml",
    SPEC.replaceAll("API/", `${api.origin}/`),
  ));
}, 60_000);

afterAll(async () => {
  await api?.close();
  await receiver?.close();
  if (root) await removeDir(root);
});

describe("telemetry to a collector", () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let spans: Span[];

  beforeAll(async () => {
    server = await serve(["--otel-endpoint", receiver.origin], {
      OTEL_EXPORTER_OTLP_HEADERS: `x-backend-key=${BACKEND_KEY}`,
      OTEL_SERVICE_NAME: "traced-test",
    });
    const ok = await server.call("get_item", { id: "42", q: ARGUMENT }, `00-${TRACE_ID}-${PARENT_SPAN}-01`);
    expect(ok.isError ?? false).toBe(false);
    expect((await server.call("get_item", { q: "no id" })).isError).toBe(true);
    expect((await server.call("failing", {})).isError).toBe(true);
    expect((await server.call("flaky", {})).isError ?? false).toBe(false);
    expect((await server.call("slow", {})).isError).toBe(true);
    spans = await until(() => {
      const all = spansOf(receiver.exports);
      return all.filter((s) => s.kind === 2).length >= 5 ? all : undefined;
    }, "five server spans");
  }, 60_000);

  afterAll(() => server?.close());

  const serverSpan = (tool: string, nth = 0): Span =>
    spans.filter((s) => s.name === `tools/call ${tool}` && s.kind === 2)[nth]!;
  const children = (parent: Span): Span[] => spans.filter((s) => s.parentSpanId === parent.spanId);

  it("names the collector at start, sends OTLP/HTTP JSON with the operator's headers", () => {
    expect(server.stderr()).toContain(
      `Telemetry: traces to ${receiver.origin}/v1/traces, metrics to ${receiver.origin}/v1/metrics`,
    );
    const first = receiver.exports.find((e) => e.path === "/v1/traces")!;
    expect(first.headers["content-type"]).toBe("application/json");
    expect(first.headers["x-backend-key"]).toBe(BACKEND_KEY);
    expect(first.body).toContain('"key":"service.name","value":{"stringValue":"traced-test"}');
  });

  it("spans a call under the caller's trace, with a client span per upstream attempt", () => {
    const call = serverSpan("get_item");
    expect(call.traceId).toBe(TRACE_ID);
    expect(call.parentSpanId).toBe(PARENT_SPAN);
    expect(attr(call, "mcp.method.name")).toBe("tools/call");
    expect(attr(call, "gen_ai.tool.name")).toBe("get_item");
    expect(attr(call, "gen_ai.operation.name")).toBe("execute_tool");
    expect(attr(call, "network.transport")).toBe("pipe");
    expect(attr(call, "error.type")).toBeUndefined();
    expect(call.events?.map((e) => e.name)).toEqual(["arguments validated", "output shaped"]);
    const [upstream, ...more] = children(call);
    expect(more).toEqual([]);
    expect(upstream!.kind).toBe(3);
    expect(upstream!.traceId).toBe(TRACE_ID);
    expect(upstream!.name).toBe("GET /items/{id}");
    expect(attr(upstream!, "url.template")).toBe("/items/{id}");
    expect(attr(upstream!, "http.request.method")).toBe("GET");
    expect(attr(upstream!, "server.address")).toBe("127.0.0.1");
    expect(attr(upstream!, "server.port")).toBe(api.port);
    expect(attr(upstream!, "http.response.status_code")).toBe(200);
  });

  it("says how a call failed: invalid arguments, a tool error after a 500, a timeout", () => {
    const invalid = serverSpan("get_item", 1);
    expect(attr(invalid, "error.type")).toBe("invalid_arguments");
    expect(invalid.status?.code).toBe(2);
    expect(children(invalid)).toEqual([]);
    const failing = serverSpan("failing");
    expect(attr(failing, "error.type")).toBe("tool_error");
    expect(children(failing).map((s) => [attr(s, "http.response.status_code"), attr(s, "error.type")])).toEqual([
      [500, "500"],
    ]);
    const slow = serverSpan("slow");
    expect(children(slow).map((s) => attr(s, "error.type"))).toEqual(["timeout"]);
  });

  it("gives each retry its own client span, counting the resends", () => {
    const attempts = children(serverSpan("flaky"));
    expect(attempts.map((s) => [attr(s, "http.response.status_code"), attr(s, "http.request.resend_count")])).toEqual([
      [503, undefined],
      [200, 1],
    ]);
  });

  it("exports the duration histograms", async () => {
    const metrics = await until(
      () => receiver.exports.find((e) => e.path === "/v1/metrics" && e.body.includes("http.client.request.duration")),
      "metrics",
    );
    expect(metrics.body).toContain('"name":"mcp.server.operation.duration","unit":"s"');
    expect(metrics.body).toContain('"aggregationTemporality":2');
  });

  it("exports no secret, no argument and not the collector's own key, in any encoding", () => {
    const everything = receiver.exports.map((e) => e.body).join("\n");
    for (const canary of [SECRET, ARGUMENT, BACKEND_KEY]) expect(leaks(everything, canary)).toEqual([]);
    expect(everything).not.toContain("q=");
    expect(leaks(server.stderr(), BACKEND_KEY)).toEqual([]);
  });

  it("sends no traceparent upstream unless the operator names the host", () => {
    expect(api.requests.filter((r) => r.headers["traceparent"] !== undefined)).toEqual([]);
  });
});

describe("the 2025 era", () => {
  it("spans the initialize handshake and tools/list of a v1 client", async () => {
    const client = await connect("legacy", serverPath, {
      serverArgs: ["--allow-private-network", "--otel-endpoint", receiver.origin],
      env: {
        NODE_EXTRA_CA_CERTS: TEST_CA,
        API_KEY: SECRET,
        OTEL_BSP_SCHEDULE_DELAY: "100",
        OTEL_SERVICE_NAME: "legacy-era",
      },
    });
    try {
      await client.listTools();
      const names = await until(() => {
        const mine = receiver.exports
          .filter((e) => e.path === "/v1/traces" && e.body.includes('"stringValue":"legacy-era"'))
          .flatMap((e) => spansOf([e]).map((s) => s.name));
        return mine.includes("initialize") && mine.includes("tools/list") ? mine : undefined;
      }, "the initialize and tools/list spans");
      expect(names).toEqual(expect.arrayContaining(["initialize", "tools/list"]));
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe("propagation and a collector that fails", () => {
  it("sends traceparent to a host named with --otel-propagate-to, in the caller's trace", async () => {
    const server = await serve(["--otel-endpoint", receiver.origin, "--otel-propagate-to", `127.0.0.1:${api.port}`]);
    try {
      await server.call("get_item", { id: "7" }, `00-${TRACE_ID}-${PARENT_SPAN}-01`);
      const sent = api.requests.at(-1)!.headers["traceparent"];
      expect(sent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
      expect(sent).not.toContain(PARENT_SPAN);
    } finally {
      await server.close();
    }
  }, 30_000);

  it("does not hold calls for a collector that is down or never answers, and says so once", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = await serve(["--otel-endpoint", `http://127.0.0.1:${deadPort}`]);
    try {
      for (let i = 0; i < 3; i++) expect((await down.call("get_item", { id: String(i) })).isError ?? false).toBe(false);
      await until(() => (down.stderr().includes("telemetry export") ? true : undefined), "the export warning");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(down.stderr().match(/telemetry export to .* failed \(not reachable\)/g)).toHaveLength(1);
    } finally {
      await down.close();
    }
    receiver.hang = true;
    const before = receiver.exports.length;
    const stuck = await serve(["--otel-endpoint", receiver.origin], { OTEL_EXPORTER_OTLP_TIMEOUT: "60000" });
    try {
      await stuck.call("get_item", { id: "a" });
      await until(() => (receiver.exports.length > before ? true : undefined), "an export the collector holds");
      // The collector holds the export open; calls go on.
      for (let i = 0; i < 3; i++)
        expect((await stuck.call("get_item", { id: String(i) })).isError ?? false).toBe(false);
    } finally {
      receiver.hang = false;
      await stuck.close();
    }
  }, 60_000);
});

describe("worker.mjs served by Bun", () => {
  it("exports the same spans at the end of each request, parented by the HTTP traceparent header", async () => {
    const readme = await readFile(join(packageDir, "README.md"), "utf8");
    const [line] = readmeCommands(readme, "### Bun");
    const port = await freePort();
    const words = shellWords(line!).map((word) => word.replace(/^(--port=)?3000$/, (_, flag = "") => `${flag}${port}`));
    const service = await startService(runtimeBinary("bun"), words.slice(1), {
      env: {
        NODE_EXTRA_CA_CERTS: TEST_CA,
        API_KEY: SECRET,
        KERVANC_ALLOW_PRIVATE_NETWORK: "1",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin,
        DO_NOT_TRACE: "1",
        NO_COLOR: "1",
      },
      cwd: packageDir,
      port,
    });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const client = new ModernClient({ name: "t", version: "1" });
    try {
      await client.connect(
        new ModernHttp(new URL(service.url), {
          requestInit: { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } },
        }),
      );
      const result = (await client.callTool({ name: "get_item", arguments: { id: "w1" } })) as { isError?: boolean };
      expect(result.isError ?? false).toBe(false);
      const mine = await until(() => {
        const found = spansOf(receiver.exports).filter((s) => s.traceId === traceId);
        return found.some((s) => s.name === "tools/call get_item") && found.some((s) => s.kind === 3)
          ? found
          : undefined;
      }, `the worker spans; output: ${service.output()}`);
      const call = mine.find((s) => s.kind === 2 && s.name === "tools/call get_item")!;
      expect(call).toBeDefined();
      expect(call.parentSpanId).toBe("b7ad6b7169203331");
      expect(attr(call, "network.transport")).toBe("tcp");
      expect(mine.find((s) => s.kind === 3)?.parentSpanId).toBe(call.spanId);
      expect(service.output()).toContain("Telemetry: OTLP/HTTP JSON to");
    } finally {
      await client.close();
      await service.stop();
    }
  }, 60_000);
});
