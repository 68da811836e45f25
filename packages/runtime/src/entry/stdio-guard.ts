/**
 * A line reader in front of the SDK's stdio transport.
 *
 * The SDK's transport closes itself (and the server exits) when one message passes its 10 MiB buffer, and it
 * drops malformed lines without a reply while its schema errors flood stderr. This reader sees each line
 * first: an oversized line is skipped as it streams (never buffered past the limit) and answered with
 * -32600, using the top-level `id` found on the way; a line that is not JSON is answered -32700; JSON that is
 * not one valid JSON-RPC 2.0 message (a batch, `jsonrpc` other than "2.0", a non-string method, array
 * params, an `id` that is null or not a safe integer) is answered -32600, with its `id` when it has a usable
 * one and null otherwise, as JSON-RPC 2.0 asks. Each gets one short log line. Only valid messages reach the
 * SDK, byte for byte as they came. While the client leaves more than MAX_OUTPUT_BACKLOG_BYTES of answers unread,
 * no more requests are read.
 */
import type { Readable, Writable } from "node:stream";
import { isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse } from "@modelcontextprotocol/server";
import { throttledLog } from "../serve/log.ts";

/** The largest stdio message read: the SDK's own limit. */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;

type RequestId = string | number;

/**
 * The most bytes of answers left waiting in stdout's buffer before requests stop being read: a client that
 * writes requests without reading the answers would otherwise grow the server's memory with every one.
 */
export const MAX_OUTPUT_BACKLOG_BYTES = 1024 * 1024;

export interface StdioGuardOptions {
  readonly maxMessageBytes?: number;
  readonly maxOutputBacklogBytes?: number;
  readonly log: (line: string) => void;
}

/**
 * Reads `input` line by line and returns the stream the SDK's transport should read instead; replies to
 * refused lines go to `output`, one line each (the SDK writes whole lines too, so they never interleave).
 */
export function guardStdio(input: Readable, output: Writable, options: StdioGuardOptions): Readable {
  const max = options.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES;
  const maxBacklog = options.maxOutputBacklogBytes ?? MAX_OUTPUT_BACKLOG_BYTES;
  const forward = new (process.getBuiltinModule("node:stream").PassThrough)();
  let parts: Buffer[] = [];
  let size = 0;
  // Set while skipping the rest of an oversized line; it finds the line's top-level id as the bytes pass.
  let skipping: IdScanner | null = null;
  // Complete lines not yet handled, in order (an oversized line is its id): input is paused while any wait.
  const queue: (Buffer | { readonly oversized: RequestId | null })[] = [];
  let pumping = false;
  let ended = false;
  const logStall = throttledLog(options.log, "stalls");

  const reply = (id: RequestId | null, code: number, message: string): void => {
    if (output.writable) output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  };

  const endLine = (): void => {
    if (skipping !== null) {
      queue.push({ oversized: skipping.id });
      skipping = null;
      return;
    }
    queue.push(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
    parts = [];
    size = 0;
  };

  /** Handles one line; true when it went on to the SDK (whose answer comes later). */
  const handleLine = (line: Buffer): boolean => {
    const text = line.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") return false;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      options.log(`Warning: stdio: a line that is not JSON (${line.length} bytes) was answered ${PARSE_ERROR}.`);
      reply(null, PARSE_ERROR, "Parse error: the line is not JSON.");
      return false;
    }
    const problem = invalidMessage(message);
    if (problem === null) {
      forward.write(Buffer.concat([line, Buffer.from("\n")]));
      return true;
    }
    const record = typeof message === "object" && message !== null && !Array.isArray(message) ? message : null;
    // A malformed response is never answered (JSON-RPC answers requests only).
    if (record !== null && !("method" in record) && ("result" in record || "error" in record)) {
      options.log(`Warning: stdio: an invalid JSON-RPC response was dropped: ${problem}.`);
      return false;
    }
    const id = record !== null && "id" in record ? usableId(record.id) : null;
    options.log(`Warning: stdio: an invalid JSON-RPC message was answered ${INVALID_REQUEST}: ${problem}.`);
    reply(id, INVALID_REQUEST, `Invalid Request: ${problem}.`);
    return false;
  };

  /**
   * Handles the queued lines while the client reads what the server writes. The SDK answers a message a few
   * microtasks after it gets it, so after each line handed to it the next waits for a turn of the event loop,
   * by which time the answer is in stdout's buffer; while that buffer holds more than `maxBacklog` bytes, no
   * line is handled and no input read (the client sees its writes block, as a pipe does), until it drains.
   */
  const pump = (): void => {
    pumping = false;
    while (queue.length > 0) {
      if (output.writableLength > maxBacklog && !output.destroyed) {
        logStall(
          `Warning: stdio: the client is not reading its responses (${output.writableLength} bytes waiting); requests are read again once it does.`,
        );
        pumping = true;
        const resume = (): void => {
          output.off("drain", resume);
          output.off("close", resume);
          pump();
        };
        output.on("drain", resume);
        output.on("close", resume);
        return;
      }
      const entry = queue.shift()!;
      let forwarded = false;
      if (Buffer.isBuffer(entry)) forwarded = handleLine(entry);
      else {
        options.log(`Warning: stdio: a message over ${max} bytes was dropped (id ${JSON.stringify(entry.oversized)}).`);
        reply(entry.oversized, INVALID_REQUEST, `Message larger than ${max} bytes; it was not read.`);
      }
      if (forwarded && queue.length > 0) {
        pumping = true;
        setImmediate(pump);
        return;
      }
    }
    if (ended) endForward();
    else input.resume();
  };

  // The end of input reaches the SDK a turn after the last line, as it did when lines went straight through: it
  // closes its transport at the end and drops answers not yet written, and it answers a line a few microtasks
  // after it gets it.
  const endForward = (): void => {
    setImmediate(() => forward.end());
  };

  input.on("data", (chunk: Buffer) => {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (skipping !== null) skipping.feed(piece);
      else if (size + piece.length > max) {
        // Past the limit: scan what was kept for the id, then let the rest stream past.
        skipping = new IdScanner();
        for (const part of parts) skipping.feed(part);
        skipping.feed(piece);
        parts = [];
        size = 0;
      } else if (piece.length > 0) {
        parts.push(Buffer.from(piece));
        size += piece.length;
      }
      if (newline === -1) break;
      endLine();
      start = newline + 1;
    }
    if (queue.length > 0 && !pumping) {
      input.pause();
      pump();
    }
  });
  const finish = (): void => {
    if (ended) return;
    ended = true;
    if (queue.length === 0 && !pumping) endForward();
  };
  input.once("end", finish);
  input.once("close", finish);
  input.on("error", (error) => forward.destroy(error));
  return forward;
}

/** Why a parsed line is not one valid JSON-RPC message, or null when it is. */
function invalidMessage(message: unknown): string | null {
  if (Array.isArray(message)) return "batches are not supported";
  if (typeof message !== "object" || message === null) return "a message must be a JSON object";
  const record = message as Record<string, unknown>;
  if (record["jsonrpc"] !== "2.0") return 'jsonrpc must be "2.0"';
  if ("method" in record) {
    if (typeof record["method"] !== "string") return "method must be a string";
    if (
      "params" in record &&
      (typeof record["params"] !== "object" || record["params"] === null || Array.isArray(record["params"]))
    )
      return "params must be an object";
    if ("id" in record) {
      if (usableId(record["id"]) === null) return "id must be a string or an integer";
      return isJSONRPCRequest(message) ? null : "not a valid request";
    }
    return isJSONRPCNotification(message) ? null : "not a valid notification";
  }
  if ("result" in record || "error" in record) return isJSONRPCResponse(message) ? null : "not a valid response";
  return "a message needs a method (or a result or error)";
}

function usableId(id: unknown): RequestId | null {
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  return null;
}

/**
 * Finds the top-level `id` of a JSON object streamed past in pieces, without keeping the text: it tracks
 * strings and nesting, and captures only the value of an `id` key at depth 1 (at most 256 bytes of it).
 */
export class IdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #expectKey = false;
  #key: number[] | null = null;
  #lastKey: string | null = null;
  #valueFor: string | null = null;
  #value: number[] | null = null;
  id: RequestId | null = null;

  feed(bytes: Uint8Array): void {
    for (const c of bytes) this.#byte(c);
  }

  #capture(target: number[] | null, c: number): void {
    if (target !== null && target.length < 256) target.push(c);
  }

  #byte(c: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (c === 0x5c /* \ */) this.#escaped = true;
      else if (c === 0x22 /* " */) {
        this.#inString = false;
        if (this.#key !== null) {
          this.#lastKey = Buffer.from(this.#key).toString("utf8");
          this.#key = null;
          this.#expectKey = false;
        } else if (this.#value !== null) {
          try {
            this.id = usableId(JSON.parse(`"${Buffer.from(this.#value).toString("utf8")}"`));
          } catch {
            this.id = null;
          }
          this.#value = null;
        }
        return;
      }
      this.#capture(this.#key ?? this.#value, c);
      return;
    }
    if (this.#value !== null) {
      // A number value ends at the first byte that cannot be part of it.
      if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) {
        this.#capture(this.#value, c);
        return;
      }
      this.id = usableId(Number(Buffer.from(this.#value).toString("latin1")));
      this.#value = null;
    }
    if (c === 0x20 || c === 0x09 || c === 0x0d) return;
    const top = this.#depth === 1;
    if (c === 0x22) {
      this.#inString = true;
      if (top && this.#expectKey) this.#key = [];
      else if (top && this.#valueFor === "id") {
        this.#value = [];
      }
      this.#valueFor = null;
      return;
    }
    if (c === 0x3a /* : */ && top) {
      this.#valueFor = this.#lastKey;
      this.#lastKey = null;
      return;
    }
    if (c === 0x2c /* , */ && top) {
      this.#expectKey = true;
      this.#valueFor = null;
      return;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (this.#depth === 0 && c === 0x7b) this.#expectKey = true;
      this.#depth++;
      this.#valueFor = null;
      return;
    }
    if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      this.#depth--;
      return;
    }
    if (top && this.#valueFor === "id" && (c === 0x2d || (c >= 0x30 && c <= 0x39))) {
      this.#value = [c];
    }
    this.#valueFor = null;
  }
}
