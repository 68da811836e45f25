/**
 * How an error message names an upstream's content type. The upstream writes that header, so it can carry
 * anything, a mangled secret included: only a fixed set of well-known types is ever repeated.
 */

/**
 * The content types an error message may name. The upstream writes the header, so anything else (which could
 * carry a mangled secret) is not echoed.
 */
const SHOWN_TYPES: ReadonlySet<string> = new Set([
  "application/json",
  "application/xml",
  "application/octet-stream",
  "application/pdf",
  "application/zip",
  "application/gzip",
  "application/javascript",
  "application/x-www-form-urlencoded",
  "application/x-ndjson",
  "application/yaml",
  "multipart/form-data",
  "text/plain",
  "text/html",
  "text/xml",
  "text/csv",
  "text/css",
  "text/javascript",
  "text/event-stream",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/svg+xml",
  "audio/mpeg",
  "video/mp4",
]);

/** A content type for a message: quoted when it is one of SHOWN_TYPES, not echoed otherwise. */
export function shownType(type: string): string {
  if (SHOWN_TYPES.has(type)) return `content type "${type}"`;
  // Kervan's wording for a missing type (a 204, say); anything else the upstream wrote is not repeated.
  return type === "" ? "content type (unknown)" : "an unrecognised content type";
}
