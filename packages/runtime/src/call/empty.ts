/**
 * A successful answer with no body (204 No Content, 205 Reset Content, or any 2xx with an empty body such as
 * `content-length: 0`) is a successful result, with a short text that says so.
 *
 * A deliberate difference from Kervan, which reports such an answer as a content-type error ("expected JSON"):
 * the upstream has already done the work (DELETE is the usual case), and an error invites the model to retry a
 * destructive call. See docs/runtime.md, "The result".
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { UpstreamResponse } from "../net/upstream.ts";
import { STATUS_REASONS } from "./status.ts";

/** The result for an empty successful answer, or null when the answer is not one. */
export function emptySuccess(response: UpstreamResponse): CallToolResult | null {
  const { status } = response;
  if (status < 200 || status > 299) return null;
  if (status !== 204 && status !== 205 && response.body.byteLength > 0) return null;
  const reason = STATUS_REASONS[status];
  const line = reason === undefined ? `${status}` : `${status} ${reason}`;
  return { content: [{ type: "text", text: `The call succeeded (upstream answered ${line}, with no content).` }] };
}
