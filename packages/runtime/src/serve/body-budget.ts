/**
 * A process-wide budget for request bodies on the Node HTTP server.
 *
 * The SDK caps one body at 4 MiB, but nothing bounded how many bodies are held at once: 300 connections each
 * sending most of a body and never finishing held gigabytes. Every body now takes a ticket: the number of
 * bodies in flight and their total bytes are bounded, a body whose Content-Length does not fit what is left is
 * refused before a byte of it is read, and a body without a length (chunked) is charged as it arrives and
 * refused the moment it would pass the budget. Bytes stay charged until the request's handler finishes, so the
 * parsed copy the SDK holds while it answers is covered as well. Per-address limits cannot do this: one host
 * has many source addresses.
 */
import { MAX_REQUEST_BODY_BYTES } from "./http-handler.ts";

export interface BodyLimits {
  /** The largest single body (413 beyond it). */
  readonly maxBodyBytes: number;
  /** Bodies being received or handled at once (503 beyond it). */
  readonly maxBodies: number;
  /** Total bytes of those bodies (503 beyond it). */
  readonly maxBodyBytesTotal: number;
}

/**
 * The defaults of server.mjs's --max-bodies and --max-body-memory, which worker.mjs uses as they are: 4 MiB per
 * body (the SDK's cap), 64 bodies and 32 MiB in flight.
 */
export const DEFAULT_BODY_LIMITS: BodyLimits = {
  maxBodyBytes: MAX_REQUEST_BODY_BYTES,
  maxBodies: 64,
  maxBodyBytesTotal: 32 * 1024 * 1024,
};
/** How long a request may take to arrive (server.mjs's --request-timeout default). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export type BodyRefusal = { readonly status: 413 | 503; readonly message: string };

export interface BodyTicket {
  /** Charges `n` more received bytes; a refusal when they pass the body's or the process's budget. */
  take(n: number): BodyRefusal | null;
  /** Gives the body's slot and bytes back; idempotent. */
  release(): void;
}

export class BodyBudget {
  readonly limits: BodyLimits;
  #bodies = 0;
  #bytes = 0;

  constructor(limits: BodyLimits) {
    this.limits = limits;
  }

  get bodies(): number {
    return this.#bodies;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Admits one body, reserving its declared length when it has one. A refusal comes before any of the body
   * is read, so a refused client costs nothing but its headers.
   */
  admit(declaredLength: number | null): BodyTicket | BodyRefusal {
    const { maxBodyBytes, maxBodies, maxBodyBytesTotal } = this.limits;
    if (declaredLength !== null && declaredLength > maxBodyBytes) return tooLarge(maxBodyBytes);
    if (this.#bodies >= maxBodies) return busy(`${maxBodies} request bodies are already in flight`);
    const reserved = declaredLength ?? 0;
    if (this.#bytes + reserved > maxBodyBytesTotal) return busy("the request body budget is spent");
    this.#bodies++;
    this.#bytes += reserved;
    let charged = reserved;
    let received = 0;
    let released = false;
    return {
      take: (n: number): BodyRefusal | null => {
        if (released) return busy("the request body budget is spent");
        received += n;
        if (received > maxBodyBytes) return tooLarge(maxBodyBytes);
        if (received <= charged) return null;
        const extra = received - charged;
        if (this.#bytes + extra > maxBodyBytesTotal) return busy("the request body budget is spent");
        this.#bytes += extra;
        charged = received;
        return null;
      },
      release: (): void => {
        if (released) return;
        released = true;
        this.#bodies--;
        this.#bytes -= charged;
      },
    };
  }
}

export function isRefusal(value: BodyTicket | BodyRefusal): value is BodyRefusal {
  return "status" in value;
}

function tooLarge(max: number): BodyRefusal {
  return { status: 413, message: `Request body larger than ${max} bytes.` };
}

function busy(why: string): BodyRefusal {
  return { status: 503, message: `Server busy: ${why}; try again shortly.` };
}
