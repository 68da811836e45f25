/**
 * What a Node hop does the same way whether it connects directly (node-transport.ts) or through an egress
 * proxy (proxy-hop.ts): the request's header object, the response as a HopResponse, and when TLS gets a
 * server name.
 */
import type http from "node:http";
import { ToolError } from "../call/errors.ts";
import { joinChunks, type HeaderLookup, type Hop, type HopContext, type HopResponse } from "./upstream.ts";

/** The hop's headers as Node's request option: a repeated header becomes an array, in order. */
export function requestHeaders(hop: Hop): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of hop.headers) {
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

/**
 * A Node response's headers as a HeaderLookup, read where asked: Node's object already has lower-cased names
 * and joins repeated headers (set-cookie, kept as an array, is joined here). The hop reads four names at most,
 * where copying every header into a map cost each response a loop over all of them.
 */
class NodeHeaders implements HeaderLookup {
  readonly #headers: http.IncomingHttpHeaders;

  constructor(headers: http.IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(name: string): string | undefined {
    const value = Object.hasOwn(this.#headers, name) ? this.#headers[name] : undefined;
    return value === undefined ? undefined : Array.isArray(value) ? value.join(", ") : value;
  }

  names(): string[] {
    return Object.keys(this.#headers);
  }
}

/** A Node response as a HopResponse: lower-cased headers, repeated ones joined with ", ". */
export function toHopResponse(res: http.IncomingMessage): HopResponse {
  return {
    status: res.statusCode ?? 0,
    headers: new NodeHeaders(res.headers),
    body: res,
    readAll: (max, tooLarge) => readAll(res, max, tooLarge),
    discard: () => res.destroy(),
  };
}

function prematureClose(): Error {
  return Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

/**
 * Reads a response to its end with `data` and `end` listeners, counting every chunk against `max` as it comes
 * and destroying the response the moment it passes. The same outcomes as reading it through its async
 * iterator (upstream.ts `collect`), at a fraction of the cost per response: a stream error rejects with that
 * error, and a response that closes before its end rejects with the iterator's ERR_STREAM_PREMATURE_CLOSE.
 */
function readAll(res: http.IncomingMessage, max: number, tooLarge: () => Error): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const done = (): void => {
      res.removeListener("data", onData);
      res.removeListener("end", onEnd);
      res.removeListener("error", onError);
      res.removeListener("close", onClose);
    };
    const onData = (chunk: Uint8Array): void => {
      total += chunk.byteLength;
      if (total > max) {
        done();
        res.destroy();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(joinChunks(chunks, total));
    };
    const onError = (error: Error): void => {
      done();
      reject(error);
    };
    const onClose = (): void => {
      done();
      reject(prematureClose());
    };
    // Destroyed before it was read (a reset while the caller was between awaits): no event will come again.
    if (res.destroyed) return onError(res.errored ?? prematureClose());
    res.on("data", onData);
    res.on("end", onEnd);
    res.on("error", onError);
    res.on("close", onClose);
  });
}

/**
 * Fails the hop when its request closes with neither a response nor an error. Node's client does that when the
 * upstream answers `101 Switching Protocols` to a request that asked for no upgrade (with no `upgrade` listener
 * it destroys the socket and says nothing), and an abort after that finds the request destroyed and emits
 * nothing either: without this the call waited for its deadline and was reported as timed out. Every request
 * closes, so `open` says whether the hop is still waiting (no response, no error), and the error is made only
 * then: an Error captures a stack, and making one at every request's close cost a pooled call about 15% (A/B
 * over loopback, 121 interleaved rounds).
 */
export function failOnSilentClose(
  req: http.ClientRequest,
  host: string,
  open: () => boolean,
  fail: (error: Error) => void,
): void {
  req.once("close", () => {
    if (open())
      fail(new ToolError(`Request to ${host} failed: the upstream ended the exchange without a usable response.`));
  });
}

/**
 * A check a hop runs at most once and remembers (a new connection's lookup, a tunnel's target check), with its
 * outcome once it has one. A request that fails while the check still runs (a timeout, a cancellation) is worded
 * by the check, as when every request was checked before it was sent (`wordsFailure`).
 */
export class HopCheck<T> {
  #running: Promise<T> | null = null;
  #done = false;
  #value: T | undefined;
  readonly #run: () => Promise<T>;

  constructor(run: () => Promise<T>) {
    this.#run = run;
  }

  start(): Promise<T> {
    this.#running ??= this.#run()
      .then((value) => (this.#value = value))
      .finally(() => (this.#done = true));
    return this.#running;
  }

  /** The check's result once it succeeded, else undefined. */
  get value(): T | undefined {
    return this.#value;
  }

  /**
   * While the check runs, hands `fail` its error once it ends (or `error`, when it passes) and returns true;
   * false when it is not running, so the caller words `error` itself.
   */
  wordsFailure(error: unknown, fail: (error: unknown) => void): boolean {
    if (this.#done || this.#running === null) return false;
    this.#running.then(
      () => fail(error),
      (checkError: unknown) => fail(checkError),
    );
    return true;
  }
}

const ONCE = { once: true } as const;

/**
 * Destroys the request (and with it its response, body included) when the hop ends early, until the request
 * closes. This is what http.request's `signal` option does, with one listener instead of the option's stream
 * watcher and its half-dozen listeners per request, heard through the context's `onAbort` where it has one (so
 * the runner's AbortSignal is never made). The error is the option's (`AbortError`, the signal's reason as its
 * cause), though callers word a hop's end from the signal itself.
 */
export function destroyOnAbort(req: http.ClientRequest, ctx: HopContext): void {
  const abort = (): void => {
    req.destroy(
      Object.assign(new Error("The operation was aborted", { cause: ctx.signal.reason }), {
        name: "AbortError",
        code: "ABORT_ERR",
      }),
    );
  };
  if (ctx.onAbort !== undefined) {
    const remove = ctx.onAbort(abort);
    if (!req.destroyed) req.once("close", remove);
    return;
  }
  const signal = ctx.signal;
  if (signal.aborted) return abort();
  signal.addEventListener("abort", abort, ONCE);
  req.once("close", () => signal.removeEventListener("abort", abort));
}

/** The TLS server name for a host: the name itself, or "" for an IP literal (SNI carries names only). */
export function tlsServername(hostname: string): string {
  return /^[\d.]+$|:/.test(hostname) ? "" : hostname;
}
