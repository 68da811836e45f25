/**
 * The span of one MCP request, parented by the caller's trace context: `params._meta.traceparent`, where the MCP
 * semantic conventions place it, else the HTTP request's `traceparent` header.
 */
import type { McpRequestContext } from "@modelcontextprotocol/server";
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
