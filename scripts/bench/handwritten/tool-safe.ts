/**
 * Baseline (b), the same tool as tool.ts written by hand but doing the safety work kervanc does per call, so the
 * in-process figure can be quoted against a fair baseline (issue 20): one deadline (a timer owned by the call and
 * cleared at its end, not `AbortSignal.timeout`, which Node 20 may drop before it fires), a byte cap while the
 * body is collected, a nesting bound on the body text, the body parsed and **redacted before anything is
 * selected** (every string and key, against the token's usual echo forms, ignoring case), the output size cap,
 * the output schema and the token kept out of the result.
 *
 * Nothing is borrowed from packages/runtime: this is what a careful programmer would write inline. It redacts
 * fewer encodings than kervanc (no HTML or percent escapes inside strings, no decoding passes), which is the
 * reasonable hand-written version of the same work, so it is if anything a little cheaper.
 */
import { checkArgs, error, field, TOOL_NAME, type Result } from "./tool.ts";

export interface SentBytes {
  readonly status: number;
  readonly contentType: string;
  /** The raw body as it arrived, in chunks. */
  readonly chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
}

export type SendBytes = (path: string, headers: Record<string, string>, signal: AbortSignal) => Promise<SentBytes>;

export interface SafeContext {
  readonly send: SendBytes;
  readonly token: string | undefined;
  /** Echo forms of the token, from tokenForms: built once, not per call. */
  readonly forms: readonly string[];
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxOutputChars: number;
}

const REDACTED = "[redacted]";
const MAX_NESTING = 64;
const decoder = new TextDecoder();

/** How an upstream usually echoes a token: as is, percent-encoded, base64 (both alphabets), hex; lower-cased. */
export function tokenForms(token: string | undefined): string[] {
  if (token === undefined) return [];
  const bytes = Buffer.from(token, "utf8");
  const base64 = bytes.toString("base64");
  const forms = new Set([
    token,
    encodeURIComponent(token),
    base64,
    base64.replace(/=+$/, ""),
    bytes.toString("base64url"),
    bytes.toString("hex"),
  ]);
  return [...forms].map((f) => f.toLowerCase());
}

function holdsToken(text: string, forms: readonly string[]): boolean {
  const lower = text.toLowerCase();
  for (const form of forms) if (lower.includes(form)) return true;
  return false;
}

function redactString(text: string, forms: readonly string[]): string {
  return holdsToken(text, forms) ? REDACTED : text;
}

/** Whether JSON text opens more than `max` containers inside one another (strings skipped). */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** Redacts a freshly parsed value in place: strings and keys (nesting is already bounded, so recursion is safe). */
function redactInPlace(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === "string") return redactString(value, forms);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = redactInPlace(value[i], forms);
    return value;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const child = redactInPlace(object[key], forms);
    if (holdsToken(key, forms)) {
      delete object[key];
      Object.defineProperty(object, REDACTED, { value: child, enumerable: true, writable: true, configurable: true });
    } else object[key] = child;
  }
  return object;
}

async function collect(chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, max: number): Promise<string | null> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > max) return null;
    parts.push(chunk);
  }
  return decoder.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts));
}

export async function callToolSafely(args: unknown, ctx: SafeContext): Promise<Result> {
  const problem = checkArgs(args ?? {});
  if (problem !== null) return error(`Input validation error: Invalid arguments for tool ${TOOL_NAME}: ${problem}`);
  const a = args as { id: number; fields?: string; lang?: string };
  const query = new URLSearchParams();
  if (a.fields !== undefined) query.append("fields", a.fields);
  if (a.lang !== undefined) query.append("lang", a.lang);
  query.append("include", "owner");
  const path = `/v1/orders/${encodeURIComponent(String(a.id))}?${query.toString()}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (ctx.token !== undefined) headers["authorization"] = `Bearer ${ctx.token}`;

  // One deadline for the whole call: sending and reading the body.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${ctx.timeoutMs} ms`)), ctx.timeoutMs);
  let status: number;
  let contentType: string;
  let body: string | null;
  try {
    const sent = await ctx.send(path, headers, controller.signal);
    status = sent.status;
    contentType = sent.contentType;
    body = status >= 400 ? "" : await collect(sent.chunks, ctx.maxResponseBytes);
  } catch (e) {
    return error(`Request failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    clearTimeout(timer);
  }
  if (status >= 400) return error(`Upstream returned ${status}.`);
  if (body === null) return error(`The response is larger than ${ctx.maxResponseBytes} bytes; it was not read.`);
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json"))
    return error(`Upstream returned content type ${type}; expected JSON.`);
  if (nestsDeeper(body, MAX_NESTING))
    return error(`Upstream returned JSON nested more than ${MAX_NESTING} levels deep.`);
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return error("Upstream returned invalid JSON.");
  }
  // Redacted before selecting, so the selection cannot reshape or leak a secret the upstream echoed.
  if (ctx.forms.length > 0) data = redactInPlace(data, ctx.forms);
  const value = {
    id: field(data, "id"),
    name: field(data, "name"),
    status: field(data, "status"),
    updated: field(field(data, "meta"), "updated"),
    owner: field(field(data, "owner"), "name"),
  };
  const text = JSON.stringify(value);
  if (text.length > ctx.maxOutputChars)
    return error(`The selected output has ${text.length} characters, more than the limit of ${ctx.maxOutputChars}.`);
  if (typeof value.id !== "number" || !Number.isInteger(value.id))
    return error("Output validation error: id must be integer");
  for (const key of ["name", "status", "updated", "owner"] as const) {
    if (typeof value[key] !== "string") return error(`Output validation error: ${key} must be string`);
  }
  // The body was redacted, but the result text is checked too: it is what leaves.
  if (ctx.token !== undefined && holdsToken(text, ctx.forms))
    return error("The result held a secret and was withheld.");
  return { content: [{ type: "text", text }], structuredContent: value };
}
