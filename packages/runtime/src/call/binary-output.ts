/**
 * The kervanc binary-output extension (docs/extensions/binary-output.md): a binary answer (an image, audio, a PDF,
 * any file) as an MCP content block, where Kervan refuses it. An `image/*` answer becomes image content, `audio/*`
 * audio content, anything else an embedded resource with a `blob`; both protocol eras have the three.
 *
 * The answer is untrusted: an image's bytes must be an image (its signature is checked, and the type the bytes
 * show is the one given to the client: a `text/html` page labelled `image/png` is refused), it must fit the tool's
 * `maxBytes`, and it must hold none of the server's secrets in any form the redaction knows (an upstream that
 * echoes the API key into a file would otherwise hand it to the client in base64, which redaction of the result
 * cannot undo without corrupting the file): such an answer is refused whole.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ToolError } from "./errors.ts";
import type { UpstreamResponse } from "../net/upstream.ts";
import { isTextType, mediaType } from "./output.ts";
import type { SecretVault } from "../secrets/secrets.ts";

/** Whether an answer of this media type is text for `select`/`raw`, rather than binary. */
export function isTextAnswer(type: string): boolean {
  return isTextType(type) || type === "application/xml" || (type.endsWith("+xml") && type !== "image/svg+xml");
}

/** The image types whose bytes can be told by their first bytes, and the test for each. */
const IMAGE_SIGNATURES: readonly (readonly [string, (b: Uint8Array) => boolean])[] = [
  ["image/png", (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
  ["image/jpeg", (b) => starts(b, [0xff, 0xd8, 0xff])],
  ["image/gif", (b) => ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")],
  ["image/webp", (b) => ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")],
  ["image/avif", (b) => ascii(b, 4, "ftypavif") || ascii(b, 4, "ftypavis")],
  ["image/bmp", (b) => ascii(b, 0, "BM") && b.length > 26],
  ["image/tiff", (b) => starts(b, [0x49, 0x49, 0x2a, 0x00]) || starts(b, [0x4d, 0x4d, 0x00, 0x2a])],
  ["image/x-icon", (b) => starts(b, [0x00, 0x00, 0x01, 0x00])],
];

function starts(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}

function ascii(bytes: Uint8Array, at: number, text: string): boolean {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** The image type the bytes show, or null when they show none this module knows. */
export function imageTypeOf(bytes: Uint8Array): string | null {
  return IMAGE_SIGNATURES.find(([, test]) => test(bytes))?.[0] ?? null;
}

/** A media type fit to hand on: a plain `type/subtype` token, else the generic binary type. */
function cleanType(type: string): string {
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/.test(type)
    ? type
    : "application/octet-stream";
}

/** Standard base64 of the bytes, in chunks (no Buffer: the runtime also runs on Workers, Deno and Bun). */
export function base64Of(bytes: Uint8Array): string {
  let out = "";
  // A multiple of 3, so each chunk's base64 has no padding in the middle of the whole.
  const CHUNK = 0x8000 * 3;
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const part = bytes.subarray(i, i + CHUNK);
    let binary = "";
    for (let j = 0; j < part.length; j += 0x8000)
      binary += String.fromCharCode(...(part.subarray(j, j + 0x8000) as unknown as number[]));
    out += btoa(binary);
  }
  return out;
}

/** Whether the bytes hold a secret, read as Latin-1 (every byte a character) and as UTF-8. */
function holdsSecret(bytes: Uint8Array, vault: SecretVault): boolean {
  if (vault.size === 0) return false;
  let latin1 = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    latin1 += String.fromCharCode(...(bytes.subarray(i, i + 0x8000) as unknown as number[]));
  return vault.containsSecret(latin1) || vault.containsSecret(new TextDecoder().decode(bytes));
}

/**
 * The content block of a binary answer, or null when the answer is text or JSON (then `select` or `raw` shapes it,
 * as in Kervan). Throws a ToolError for an answer that cannot be handed on.
 */
export function binaryResult(
  response: UpstreamResponse,
  binary: { readonly maxBytes: number },
  vault: SecretVault,
): CallToolResult | null {
  const declared = mediaType(response.contentType);
  if (declared !== "" && isTextAnswer(declared)) return null;
  const host = response.url.host;
  const bytes = response.body;
  if (bytes.byteLength > binary.maxBytes)
    throw new ToolError(
      `The answer from ${host} has ${bytes.byteLength} bytes, more than this tool's limit of ${binary.maxBytes}.`,
    );
  if (holdsSecret(bytes, vault))
    throw new ToolError(`The answer from ${host} holds one of this server's secrets; it is not returned.`);
  const type = cleanType(declared === "" ? "application/octet-stream" : declared);
  if (type.startsWith("image/") && type !== "image/svg+xml") {
    const shown = imageTypeOf(bytes);
    if (shown === null)
      throw new ToolError(`The answer from ${host} is labelled as an image, but its bytes are not an image.`);
    return { content: [{ type: "image", data: base64Of(bytes), mimeType: shown }] };
  }
  if (type.startsWith("audio/")) return { content: [{ type: "audio", data: base64Of(bytes), mimeType: type }] };
  return {
    content: [
      {
        type: "resource",
        resource: { uri: `${response.url.origin}${response.url.pathname}`, mimeType: type, blob: base64Of(bytes) },
      },
    ],
  };
}
