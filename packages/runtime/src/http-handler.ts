/**
 * Streamable HTTP as a web-standard fetch handler: what Node (through node-http.ts), Workers, Deno and Bun all
 * serve.
 *
 * The SDK's `createMcpHandler` owns the protocol (2026-07-28 requests statelessly, 2025-11-25 clients per
 * request with no session, GET/DELETE answered 405 for them, the MCP headers checked against the body, request
 * bodies capped). In front of it: one path (`/mcp`), and the DNS-rebinding defences: the Host header must name
 * an allowed host, and a browser's Origin must too. Both lists default to localhost only.
 */
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type Server,
} from "@modelcontextprotocol/server";

/** The largest request body read (the SDK answers 413 beyond it). */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
export const MCP_PATH = "/mcp";

export interface HttpHandlerOptions {
  /** Host names (no port) the Host header may name; default localhost, 127.0.0.1 and [::1]. */
  readonly allowedHosts?: readonly string[];
  /** Host names a browser Origin may name; default as allowedHosts. */
  readonly allowedOrigins?: readonly string[];
  readonly responseMode?: "auto" | "json" | "sse";
  readonly onerror?: (error: Error) => void;
}

export interface HttpHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export function createHttpHandler(factory: () => Server, options: HttpHandlerOptions = {}): HttpHandler {
  const allowedHosts = [...(options.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [
    ...(options.allowedOrigins ?? (options.allowedHosts ? options.allowedHosts : localhostAllowedOrigins())),
  ];
  const mcp = createMcpHandler(factory, {
    legacy: "stateless",
    responseMode: options.responseMode ?? "auto",
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  return {
    async fetch(request: Request): Promise<Response> {
      const url = new URL(request.url);
      if (url.pathname !== MCP_PATH)
        return new Response("Not found. The MCP endpoint is /mcp.\n", {
          status: 404,
          headers: { "content-type": "text/plain" },
        });
      const refused =
        hostHeaderValidationResponse(request, allowedHosts) ?? originValidationResponse(request, allowedOrigins);
      if (refused) return refused;
      return mcp.fetch(request);
    },
    close: () => mcp.close(),
  };
}
