/**
 * Errors a tool call can end with.
 *
 * A ToolError carries a message written for the model: it becomes an `isError: true` result (after redaction).
 * Anything else that escapes a tool is a bug or an unexpected condition: the model sees only
 * `Internal error in tool "<name>" (ref: <8 hex>).` (with the period: docs/spec.md, differences) and the real error goes to stderr under the same ref.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
}

/** A random 8-hex-digit reference that ties an internal error's log line to what the client saw. */
export function errorRef(): string {
  const bytes = new Uint8Array(4);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
