/**
 * What the Node adapter (node-http.ts) hands the fetch handler: a web `Request` without its body, and the body,
 * read beside it into memory and charged to the process-wide budget (body-budget.ts).
 *
 * The body is kept out of the `Request` because a web body costs the most of what the adapter does per request:
 * undici wraps it in a web stream, the SDK clones the request (teeing that stream) and reads it back chunk by
 * chunk. The handler (http-handler.ts) takes the bytes only once the request passed its checks, and gives the
 * SDK a JSON body already parsed.
 */
import type http from "node:http";
import type { BodyRefusal, BodyTicket } from "./body-budget.ts";

/**
 * A web `Request` whose `signal` is the adapter's own. Given `signal` in its init, undici links a signal of its
 * own to it per request (a listener, a weak reference and a finalization registration); the handler and the
 * SDK read `request.signal`, never that internal one, so the adapter's signal is handed out directly.
 *
 * The class is made on the first request, not when this module loads: `extends Request` reads the global
 * `Request`, which makes Node load its whole fetch implementation (undici), and a server on stdio never needs it
 * (measured: about 35 ms more CPU before the first `tools/list` answer).
 */
export function nodeRequest(url: string, init: RequestInit, signal: AbortSignal): Request {
  NodeRequest ??= class extends Request {
    readonly #signal: AbortSignal;
    constructor(url: string, init: RequestInit, signal: AbortSignal) {
      super(url, init);
      this.#signal = signal;
    }
    // @ts-expect-error lib.dom declares `signal` a property; undici implements it as a getter, as here.
    override get signal(): AbortSignal {
      return this.#signal;
    }
  };
  return new NodeRequest(url, init, signal);
}

let NodeRequest: (new (url: string, init: RequestInit, signal: AbortSignal) => Request) | undefined;

/**
 * Reads the request body into memory, charged to the ticket chunk by chunk. Reading starts at once (a small
 * body has arrived with its headers); the handler takes the bytes only after its checks. Past the budget
 * `refused` is set and nothing more is kept; `drop()` stops keeping chunks when the handler answered without
 * the body. The rest of an unread body is thrown away as it arrives (the finally of `handle`).
 */
export function readBody(
  req: http.IncomingMessage,
  ticket: BodyTicket | null,
  refused: { value: BodyRefusal | null },
): { readonly bytes: () => Promise<Uint8Array>; drop(): void } {
  let chunks: Buffer[] | null = [];
  let settle: ((body: Uint8Array) => void) | null = null;
  let fail: ((error: Error) => void) | null = null;
  const done = new Promise<Uint8Array>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // Whoever never asks for the bytes must not see an unhandled rejection.
  done.catch(() => {});
  const finish = (error: Error | null): void => {
    if (settle === null || fail === null) return;
    if (error !== null) fail(error);
    else settle(chunks === null ? new Uint8Array(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    settle = fail = null;
    chunks = null;
  };
  req.on("data", (chunk: Buffer) => {
    if (chunks === null) return;
    const refusal = ticket?.take(chunk.length) ?? null;
    if (refusal !== null) {
      refused.value = refusal;
      finish(new Error(refusal.message));
      return;
    }
    chunks.push(chunk);
  });
  req.once("end", () => finish(null));
  req.once("error", (error) => finish(error));
  // A client that leaves mid-body must fail the read, or the handler (and the body's budget) waits forever.
  req.once("close", () => {
    if (!req.complete) finish(new Error("The client closed the connection before the body was complete."));
  });
  return {
    bytes: () => done,
    drop: () => {
      chunks = null;
    },
  };
}
