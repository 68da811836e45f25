/**
 * Hashes for provenance: SHA-256 of bytes or text, canonical JSON for hashing structured values, and a
 * name-based UUID, so every identifier in a generated package is derived from content and never random.
 */
import { createHash } from "node:crypto";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** SHA-256 as base64, the form a Content-Security-Policy hash source takes (`'sha256-...'`). */
export function sha256Base64(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("base64");
}

/**
 * Canonical JSON in the spirit of RFC 8785 (JCS): object keys sorted by UTF-16 code units (JavaScript's
 * default string order), no whitespace, numbers and strings as `JSON.stringify` writes them (which is what
 * JCS specifies for both). Two schemas that differ only in key order or formatting get the same hash.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("canonicalJson(): the value cannot be written as JSON.");
    return json;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => compareStrings(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** Code-unit order, independent of the locale (unlike `localeCompare`). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A UUID (RFC 9562 version 8, "custom") made from a SHA-256 digest: the same content always gets the same
 * UUID, as a reproducible SBOM needs, while the version and variant bits keep it a well-formed UUID.
 */
export function uuidFromSha256(hex: string): string {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new TypeError("uuidFromSha256(): expected a SHA-256 hex digest.");
  const h = hex.slice(0, 32).split("");
  h[12] = "8";
  h[16] = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  const s = h.join("");
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

/**
 * The length of the longest line of `text` (or of the longest run of `char`), in one pass. Spreading a list into
 * `Math.max(...)` overflows the stack past about 120,000 items, which a large generated file reaches.
 */
export function longestLine(text: string): number {
  let longest = 0;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", start)) {
    longest = Math.max(longest, i - start);
    start = i + 1;
  }
  return Math.max(longest, text.length - start);
}

export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
