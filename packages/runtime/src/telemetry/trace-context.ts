/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a caller may send (in the MCP
 * request's `_meta`, or the HTTP header) and the one an upstream request may carry. Only version 00 is read; a
 * value that does not parse, or names the all-zero trace or span id, is ignored (a new trace starts), as the
 * specification asks.
 */

export interface SpanContext {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  readonly sampled: boolean;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function parseTraceparent(value: unknown): SpanContext | null {
  if (typeof value !== "string") return null;
  const match = TRACEPARENT.exec(value.trim());
  if (match === null) return null;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? "01" : "00"}`;
}

/** `bytes` random bytes as lower-case hex, never all zero. */
export function randomId(bytes: 8 | 16): string {
  const buffer = new Uint8Array(bytes);
  do globalThis.crypto.getRandomValues(buffer);
  while (buffer.every((b) => b === 0));
  let out = "";
  for (const b of buffer) out += b.toString(16).padStart(2, "0");
  return out;
}
