/**
 * Per-tool rate and concurrency limits, per process.
 *
 * A fixed 60-second window opens at the first call after the previous window expired; every accepted call
 * counts, including calls that fail later. Calls rejected by input validation never get here.
 */
import { ToolError } from "../call/errors.ts";
import type { RateLimit } from "../plan.ts";

const WINDOW_MS = 60_000;

export class ToolLimiter {
  readonly #tool: string;
  readonly #limit: RateLimit;
  readonly #now: () => number;
  #windowStart = -Infinity;
  #count = 0;
  #active = 0;

  constructor(tool: string, limit: RateLimit, now: () => number = Date.now) {
    this.#tool = tool;
    this.#limit = limit;
    this.#now = now;
  }

  /**
   * Admits one call or throws the ToolError the model sees. Every admitted call must be followed by exactly one
   * `release()` when it ends (the runner pairs them in try/finally): no closure per call.
   */
  acquire(): void {
    const now = this.#now();
    if (now - this.#windowStart >= WINDOW_MS) {
      this.#windowStart = now;
      this.#count = 0;
    }
    if (this.#count >= this.#limit.perMinute) {
      const seconds = Math.ceil((this.#windowStart + WINDOW_MS - now) / 1000);
      throw new ToolError(`Rate limit reached for tool "${this.#tool}"; try again in ${seconds} s.`);
    }
    if (this.#active >= this.#limit.concurrency) {
      throw new ToolError(`Too many concurrent calls to tool "${this.#tool}"; try again shortly.`);
    }
    this.#count++;
    this.#active++;
  }

  /** Ends one admitted call. */
  release(): void {
    if (this.#active > 0) this.#active--;
  }
}

/**
 * The most clients whose windows are held at once. One window is a map entry, an object and its key (an
 * address, or a token's subject), a couple of hundred bytes: this bounds the table near 20 MB, where a key per
 * client seen within a minute made it grow with the request rate (an attacker with many addresses or tokens).
 */
export const MAX_CLIENTS = 100_000;

/**
 * The per-client request limit of the HTTP server: `perMinute` requests per client in a fixed 60-second window
 * (0 turns it off). The client is the token's subject when authentication is on, the address otherwise. Each
 * replica counts on its own.
 *
 * The windows are kept in the order they opened (a new window goes to the end), so the expired ones are always
 * at the front: each request drops those it finds there, which costs each window one removal in all. Past
 * MAX_CLIENTS live windows the oldest is dropped to make room; its client starts a new window on its next
 * request, which only a flood from that many other clients within one minute can cause.
 */
export class ClientRateLimit {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly perMinute: number;

  constructor(perMinute: number) {
    this.perMinute = perMinute;
  }

  /** How many clients' windows are held. */
  get size(): number {
    return this.#windows.size;
  }

  /** Seconds `client` has to wait before its next request counts, or 0 when it may make one; counts nothing. */
  waiting(client: string, now: number): number {
    if (this.perMinute === 0) return 0;
    const window = this.#windows.get(client);
    if (!window || now - window.start >= WINDOW_MS || window.count < this.perMinute) return 0;
    return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
  }

  /**
   * Takes back one request that `take(client, takenAt)` counted: for a failed-attempt count taken before a
   * credential was checked, when the credential proved good. Only into the window that counted it: when the check
   * ran across the end of the minute and a new window opened meanwhile (its start is later than `takenAt`), taking
   * one back from that window would let it hold one attempt more than the limit.
   */
  giveBack(client: string, takenAt: number): void {
    const window = this.#windows.get(client);
    if (window !== undefined && window.start <= takenAt && window.count > 0) window.count--;
  }

  /** Seconds to wait, or 0 when the request may proceed. */
  take(client: string, now: number): number {
    if (this.perMinute === 0) return 0;
    for (const [key, w] of this.#windows) {
      if (now - w.start < WINDOW_MS) break;
      this.#windows.delete(key);
    }
    let window = this.#windows.get(client);
    if (!window || now - window.start >= WINDOW_MS) {
      // Deleted first, so that a renewed window goes to the end with the others opened now.
      this.#windows.delete(client);
      if (this.#windows.size >= MAX_CLIENTS) {
        const oldest = this.#windows.keys().next();
        if (!oldest.done) this.#windows.delete(oldest.value);
      }
      window = { start: now, count: 0 };
      this.#windows.set(client, window);
    }
    if (window.count >= this.perMinute) return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    window.count++;
    return 0;
  }
}
