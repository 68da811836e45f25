/**
 * A small HTTP load generator for MCP Streamable HTTP: C connections, each sending one `tools/call` POST at a
 * time (keep-alive) until the requested number of calls is done.
 *
 * Why not autocannon: kervanc's HTTP server limits each remote address to 300 requests a minute (a defence for a
 * public socket), so 50 connections from 127.0.0.1 measure that limit, not the server. Each connection here binds
 * its own loopback source address (127.x.y.z; Linux routes all of 127/8 to lo) and moves to a fresh one after
 * `requestsPerAddress` requests, as if many clients were calling. Every server gets exactly the same traffic,
 * connection turnover included. Request bodies differ only in their JSON-RPC id (unique, because the peer's
 * stateful transport routes answers by id).
 */
import http from "node:http";

export interface LoadTarget {
  readonly url: URL;
  /** Headers for a call of this tool. */
  headers(tool: string): Readonly<Record<string, string>>;
  /** The JSON-RPC request text for one call. */
  body(id: number, tool: string, args: Readonly<Record<string, unknown>>): string;
  /** Null when the answer is a successful tool result; a short reason otherwise. */
  check(status: number, text: string): string | null;
}

export interface LoadCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface LoadOptions {
  readonly connections: number;
  readonly calls: number;
  /** Calls are spread over these round-robin. */
  readonly mix: readonly LoadCall[];
  readonly requestsPerAddress?: number;
}

export interface LoadResult {
  readonly calls: number;
  readonly ms: number;
  readonly perSecond: number;
  readonly errors: number;
  readonly firstError: string | null;
  /** Per-call latency, sorted, in milliseconds. */
  readonly latencies: Float64Array;
}

let addressCounter = 0;
/** A loopback source address never used before in this process (so no server-side window sees it twice). */
function nextLoopbackAddress(): string {
  const c = addressCounter++;
  return `127.${1 + Math.floor(c / (254 * 254))}.${(Math.floor(c / 254) % 254) + 1}.${(c % 254) + 1}`;
}

let rpcId = 1;

export async function runLoad(target: LoadTarget, options: LoadOptions): Promise<LoadResult> {
  const perAddress = options.requestsPerAddress ?? 250;
  const latencies = new Float64Array(options.calls);
  let issued = 0;
  let done = 0;
  let errors = 0;
  let firstError: string | null = null;
  const prepared = options.mix.map((call) => ({ call, headers: target.headers(call.tool) }));

  const worker = async (): Promise<void> => {
    let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let localAddress = nextLoopbackAddress();
    let used = 0;
    while (issued < options.calls) {
      const index = issued++;
      if (used >= perAddress) {
        agent.destroy();
        agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        localAddress = nextLoopbackAddress();
        used = 0;
      }
      used++;
      const { call, headers } = prepared[index % prepared.length]!;
      const body = target.body(rpcId++, call.tool, call.args);
      const t0 = performance.now();
      let failure: string | null;
      try {
        const { status, text } = await post(target.url, headers, body, agent, localAddress);
        failure = target.check(status, text);
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      latencies[done++] = performance.now() - t0;
      if (failure !== null) {
        errors++;
        firstError ??= failure;
      }
    }
    agent.destroy();
  };

  const t0 = performance.now();
  await Promise.all(Array.from({ length: options.connections }, worker));
  const ms = performance.now() - t0;
  latencies.sort();
  return { calls: done, ms, perSecond: (done / ms) * 1000, errors, firstError, latencies };
}

function post(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: string,
  agent: http.Agent,
  localAddress: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        agent,
        localAddress,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The JSON-RPC message inside an answer that is either plain JSON or a short SSE stream. */
export function rpcFromBody(
  text: string,
): { result?: { isError?: boolean; content?: { text?: string }[] }; error?: { message: string } } | null {
  const trimmed = text.trimStart();
  if (trimmed.startsWith("{")) return JSON.parse(trimmed) as never;
  for (const line of text.split("\n")) {
    if (line.startsWith("data:")) {
      const data = line.slice(5).trim();
      if (data.startsWith("{")) {
        const message = JSON.parse(data) as { id?: unknown };
        if (message.id !== undefined) return message as never;
      }
    }
  }
  return null;
}

/** 2026-07-28 requests, stateless: the MCP headers and `_meta` on every call (kervanc and the hand-written server). */
export function modernTarget(url: string): LoadTarget {
  return {
    url: new URL(url),
    headers: (tool) => ({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
    }),
    body: (id, tool, args) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: tool,
          arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    check: (status, text) => {
      if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
      const rpc = rpcFromBody(text);
      if (!rpc?.result) return `no result: ${text.slice(0, 200)}`;
      if (rpc.result.isError) return `tool error: ${rpc.result.content?.[0]?.text ?? ""}`;
      return null;
    },
  };
}

/**
 * The peer's stateful 2025 transport: one session (initialize, then initialized), shared by every connection.
 * One session, because the generated server connects a single SDK `Server` to each new session's transport,
 * and the SDK v1 `Server` answers on the transport it was connected to last.
 */
export async function legacySessionTarget(url: string, okText: (text: string) => boolean): Promise<LoadTarget> {
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "kervanc-bench", version: "1.0.0" },
      },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  const initText = await init.text();
  if (session === null) throw new Error(`the peer gave no session (HTTP ${init.status}): ${initText.slice(0, 200)}`);
  const negotiated =
    (rpcFromBody(initText) as { result?: { protocolVersion?: string } } | null)?.result?.protocolVersion ??
    "2025-11-25";
  const headers = { ...base, "mcp-session-id": session, "mcp-protocol-version": negotiated };
  const initialized = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.text();
  return {
    url: new URL(url),
    headers: () => headers,
    body: (id, tool, args) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: args } }),
    check: (status, text) => {
      if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
      const rpc = rpcFromBody(text);
      const first = rpc?.result?.content?.[0]?.text;
      if (first === undefined) return `no result: ${text.slice(0, 200)}`;
      return okText(first) ? null : `tool error: ${first.slice(0, 200)}`;
    },
  };
}
