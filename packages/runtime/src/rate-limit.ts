/**
 * Per-tool rate and concurrency limits, per process.
 *
 * A fixed 60-second window opens at the first call after the previous window expired; every accepted call
 * counts, including calls that fail later. Calls rejected by input validation never get here.
 */
import { ToolError } from "./errors.ts";
import type { RateLimit } from "./plan.ts";

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

  /** Admits one call or throws the ToolError the model sees. Call the returned function when the call ends. */
  acquire(): () => void {
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
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.#active--;
      }
    };
  }
}
