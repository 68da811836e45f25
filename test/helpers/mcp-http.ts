/**
 * A bare MCP 2026-07-28 client over Streamable HTTP, for load: one POST per call with the stateless envelope
 * (`_meta` protocol version and client capabilities, the MCP-Protocol-Version, Mcp-Method and Mcp-Name
 * headers), no SDK in between, on keep-alive connections from a chosen local address. The SDK clients are
 * what the e2e tests use to prove interoperability; this one exists to make ten thousand calls fast and to see
 * exactly what came back on the wire.
 */
import http from "node:http";

export const MODERN_VERSION = "2026-07-28";

/** The `_meta` every 2026-07-28 request carries: the stateless envelope has no session to hold them. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 request message, `_meta` last in its params, as the tests that write requests by hand send it. */
export function modernMessage(id: number, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } };
}

/**
 * The headers a 2026-07-28 request over Streamable HTTP needs for `method` and, for tools/call, the tool's `name`
 * (the server checks they match the body).
 */
export function modernHeadersFor(method: string, name?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": method,
    ...(name !== undefined ? { "mcp-name": name } : {}),
  };
}

export interface JsonRpcResponse {
  readonly jsonrpc: "2.0";
  readonly id: number | string | null;
  readonly result?: {
    readonly content?: { type: string; text?: string }[];
    readonly structuredContent?: unknown;
    readonly isError?: boolean;
    readonly [key: string]: unknown;
  };
  readonly error?: { code: number; message: string; data?: unknown };
}

export interface RawResponse {
  readonly status: number;
  readonly contentType: string;
  /** The JSON-RPC response, or null when the body held none (then `body` says what it held). */
  readonly message: JsonRpcResponse | null;
  readonly body: string;
}

/** A keep-alive agent whose connections leave from `localAddress` (any 127.x.y.z works on Linux loopback). */
export function agentFrom(localAddress: string, maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, localAddress });
}

/** The JSON-RPC message in a response body: plain JSON, or the `data:` lines of an SSE stream. */
function parseMessage(contentType: string, body: string, id: number): JsonRpcResponse | null {
  try {
    if (contentType.startsWith("application/json")) return JSON.parse(body) as JsonRpcResponse;
    if (contentType.startsWith("text/event-stream")) {
      for (const event of body.split(/\r?\n\r?\n/)) {
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data === "") continue;
        const message = JSON.parse(data) as JsonRpcResponse;
        if (message.id === id) return message;
      }
    }
  } catch {
    // Not JSON-RPC: the caller sees the raw body.
  }
  return null;
}

/** Sends one 2026-07-28 request and reads the whole answer. */
export function modernRequest(
  endpoint: URL,
  agent: http.Agent,
  id: number,
  method: string,
  params: Record<string, unknown>,
  name?: string,
): Promise<RawResponse> {
  const body = JSON.stringify(modernMessage(id, method, params));
  const headers: http.OutgoingHttpHeaders = {
    ...modernHeadersFor(method, name),
    "content-length": Buffer.byteLength(body),
  };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: endpoint.hostname, port: endpoint.port, path: endpoint.pathname, method: "POST", agent, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const contentType = String(res.headers["content-type"] ?? "");
          resolve({
            status: res.statusCode ?? 0,
            contentType,
            message: parseMessage(contentType, text, id),
            body: text,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export function callTool(
  endpoint: URL,
  agent: http.Agent,
  id: number,
  name: string,
  args: unknown,
): Promise<RawResponse> {
  return modernRequest(endpoint, agent, id, "tools/call", { name, arguments: args }, name);
}
