/**
 * What a Node hop does the same way whether it connects directly (node-transport.ts) or through an egress
 * proxy (proxy-hop.ts): the request's header object, the response as a HopResponse, and when TLS gets a
 * server name.
 */
import type http from "node:http";
import type { Hop, HopResponse } from "./upstream.ts";

/** The hop's headers as Node's request option: a repeated header becomes an array, in order. */
export function requestHeaders(hop: Hop): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of hop.headers) {
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

/** A Node response as a HopResponse: lower-cased headers, repeated ones joined with ", ". */
export function toHopResponse(res: http.IncomingMessage): HopResponse {
  const responseHeaders = new Map<string, string>();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return { status: res.statusCode ?? 0, headers: responseHeaders, body: res, discard: () => res.destroy() };
}

/** The TLS server name for a host: the name itself, or "" for an IP literal (SNI carries names only). */
export function tlsServername(hostname: string): string {
  return /^[\d.]+$|:/.test(hostname) ? "" : hostname;
}
