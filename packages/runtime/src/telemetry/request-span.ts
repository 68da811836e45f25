/**
 * The span of one MCP request, parented by the caller's trace context: `params._meta.traceparent`, where the MCP
 * semantic conventions place it, else the HTTP request's `traceparent` header.
 */
import type { McpRequestContext, Server } from "@modelcontextprotocol/server";
import { NO_SPAN, type RequestSpan, type Telemetry } from "./telemetry.ts";
import { parseTraceparent } from "./trace-context.ts";

export function requestSpan(
  telemetry: Telemetry,
  method: string,
  tool: string | null,
  meta: unknown,
  context: McpRequestContext | undefined,
  requestId: string | number,
): RequestSpan {
  if (!telemetry.enabled) return NO_SPAN;
  const fromMeta =
    meta !== null && typeof meta === "object"
      ? parseTraceparent((meta as Record<string, unknown>)["traceparent"])
      : null;
  const http = context?.requestInfo;
  const parent = fromMeta ?? (http !== undefined ? parseTraceparent(http.headers.get("traceparent")) : null);
  return telemetry.request(method, tool, parent, {
    "jsonrpc.request.id": String(requestId),
    "network.transport": http !== undefined ? "tcp" : "pipe",
    ...(http !== undefined ? { "network.protocol.name": "http" } : {}),
  });
}

/**
 * Spans the 2025-era `initialize` handshake too. The SDK answers it with a handler of its own (`_oninitialize`,
 * private to the exactly pinned SDK), which this wraps; only when telemetry is on, so a server without it runs the
 * SDK's handler untouched. The 2026-07-28 era has no handshake.
 */
export function traceInitialize(server: Server, telemetry: Telemetry, context: McpRequestContext | undefined): void {
  if (!telemetry.enabled) return;
  const sdk = server as unknown as { _oninitialize(request: unknown): Promise<unknown> };
  if (typeof sdk._oninitialize !== "function") return;
  server.setRequestHandler("initialize", async (request, ctx) => {
    const span = requestSpan(telemetry, "initialize", null, request.params._meta, context, ctx.mcpReq.id);
    try {
      return (await sdk._oninitialize.call(server, request)) as never;
    } catch (error) {
      span.end("initialize_failed");
      throw error;
    } finally {
      span.end();
    }
  });
}
