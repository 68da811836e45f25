/**
 * The kervanc multipart-body extension (docs/extensions/multipart-body.md): a rendered body sent as
 * `multipart/form-data` (RFC 7578), for file uploads.
 *
 * The body is rendered as a JSON body is, then each top-level field becomes parts: a string, number or boolean a
 * text part; a list one part per item; null nothing (an omitted optional argument); an object with `json` a JSON
 * part (`Content-Type: application/json`, OpenAPI's default encoding for an object-valued field, as Box's upload
 * sends its `attributes`); and an object with `content` a file part: `content` is base64 (`encoding: base64`, the only encoding a model can write in JSON arguments), sent
 * as bytes, with an optional `filename` and `contentType`. Field names are literal in the spec; a filename comes
 * from an argument, so it is cut to its last path segment and its `"`, CR and LF percent-encoded as RFC 7578
 * section 4.2 has browsers do (and nothing else: a receiver does not decode percent escapes); a content type must be a plain `type/subtype`. The decoded size of the files is
 * checked against `maxUploadBytes` before anything is sent, and the boundary is random and checked against every
 * part, so no content can end a part early.
 */
import { ToolError } from "./errors.ts";
import type { JsonValue } from "../plan.ts";

/** The default limit on the decoded bytes of a request's files: 10 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 10_485_760;

const encoder = new TextEncoder();
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,63}$/;

interface Part {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly bytes: Uint8Array;
}

export interface MultipartBody {
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

/** Decodes strict base64 (the standard alphabet, padded); a mistake is the model's to fix. */
export function decodeBase64(field: string, text: string): Uint8Array {
  if (!BASE64.test(text))
    throw new ToolError(`The content of file field "${field}" is not valid base64 (standard alphabet, padded with =).`);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A filename for the part header: its last path segment, with `"`, CR and LF percent-encoded (RFC 7578 4.2). */
export function partFilename(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? "";
  return last.replace(/[\r\n"]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

function partsOf(body: JsonValue, maxUploadBytes: number): Part[] {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ToolError("A multipart body must be an object of fields.");
  const parts: Part[] = [];
  let uploaded = 0;
  const add = (name: string, value: JsonValue): void => {
    if (value === null) return;
    if (typeof value !== "object") {
      parts.push({ name, bytes: encoder.encode(String(value)) });
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) {
        if (Array.isArray(item)) throw new ToolError(`The multipart field "${name}" holds a list inside a list.`);
        add(name, item);
      }
      return;
    }
    if (Object.hasOwn(value, "json") && !Object.hasOwn(value, "content")) {
      const json = value["json"];
      if (json === null || json === undefined) return; // an omitted optional field
      parts.push({ name, contentType: "application/json", bytes: encoder.encode(JSON.stringify(json)) });
      return;
    }
    const content = value["content"];
    if (content === undefined || content === null) {
      if (Object.hasOwn(value, "content")) return; // an omitted optional file
      throw new ToolError(`The multipart field "${name}" is an object without content; send text, JSON or a file.`);
    }
    if (typeof content !== "string")
      throw new ToolError(`The content of file field "${name}" must be a base64 string.`);
    // The decoded size follows from the text's length: checked before decoding, and before anything is sent.
    const size = Math.floor((content.length * 3) / 4) - (content.endsWith("==") ? 2 : content.endsWith("=") ? 1 : 0);
    uploaded += size;
    if (uploaded > maxUploadBytes)
      throw new ToolError(
        `The files of this request have more than ${maxUploadBytes} bytes, this tool's limit; nothing was sent.`,
      );
    const filename = value["filename"];
    const contentType = value["contentType"];
    if (
      contentType !== undefined &&
      contentType !== null &&
      (typeof contentType !== "string" || !MEDIA_TYPE.test(contentType))
    )
      throw new ToolError(`The content type of file field "${name}" must be a media type such as image/png.`);
    parts.push({
      name,
      filename: partFilename(typeof filename === "string" && filename !== "" ? filename : name),
      contentType: typeof contentType === "string" ? contentType : "application/octet-stream",
      bytes: decodeBase64(name, content),
    });
  };
  for (const [name, value] of Object.entries(body)) add(name, value);
  return parts;
}

function includes(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function randomBoundary(): string {
  const bytes = new Uint8Array(18);
  globalThis.crypto.getRandomValues(bytes);
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return `----kervanc${hex}`;
}

/** The body's bytes and its content type, with a boundary no part contains. */
export function multipartEncode(body: JsonValue, maxUploadBytes: number, boundary = randomBoundary()): MultipartBody {
  const parts = partsOf(body, maxUploadBytes);
  let chosen = boundary;
  // 144 random bits collide with content by chance essentially never; the check makes it never.
  for (let tries = 0; parts.some((p) => includes(p.bytes, encoder.encode(chosen))); tries++) {
    if (tries >= 8) throw new Error("No multipart boundary avoided the content.");
    chosen = randomBoundary();
  }
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${chosen}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    if (part.contentType !== undefined) head += `\r\nContent-Type: ${part.contentType}`;
    chunks.push(encoder.encode(`${head}\r\n\r\n`), part.bytes, encoder.encode("\r\n"));
  }
  chunks.push(encoder.encode(`--${chosen}--\r\n`));
  const total = chunks.reduce((n, c) => n + c.byteLength, 0);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { contentType: `multipart/form-data; boundary=${chosen}`, bytes };
}
