/**
 * Per-tool rate and concurrency limits, per process.
 *
 * A fixed 60-second window opens at the first call after the previous window expired; every accepted call
 * counts, including calls that fail later. Calls rejected by input validation never get here.
 */
import { ToolError } from "./errors.ts";
import type { RateLimit } from "./plan.ts";

const WINDOW_MS = 60_000;
const SWEEP_INTERVAL_MS = 1_000;

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
 * The per-client request limit of the HTTP server: `perMinute` requests per client in a fixed 60-second window
 * (0 turns it off). The client is the token's subject when authentication is on, the address otherwise. Each
 * replica counts on its own.
 */
export class ClientRateLimit {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly perMinute: number;
  /** When the expired windows were last swept out. */
  #sweptAt = -Infinity;

  constructor(perMinute: number) {
    this.perMinute = perMinute;
  }

  /** Seconds to wait, or 0 when the request may proceed. */
  take(client: string, now: number): number {
    if (this.perMinute === 0) return 0;
    // Past 10,000 clients the expired windows are swept out, at most once a second: sweeping on every request
    // while the map stayed full of live windows (many clients at once) walked all of them per request.
    if (this.#windows.size > 10_000 && now - this.#sweptAt >= SWEEP_INTERVAL_MS) {
      this.#sweptAt = now;
      for (const [key, w] of this.#windows) if (now - w.start >= WINDOW_MS) this.#windows.delete(key);
    }
    let window = this.#windows.get(client);
    if (!window || now - window.start >= WINDOW_MS) {
      window = { start: now, count: 0 };
      this.#windows.set(client, window);
    }
    if (window.count >= this.perMinute) return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    window.count++;
    return 0;
  }
}
