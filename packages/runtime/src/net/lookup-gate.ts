/**
 * A process-wide gate on concurrent DNS lookups.
 *
 * `dns.lookup` runs on libuv's small thread pool; a burst of slow lookups would starve every other use of that
 * pool (file reads, zlib, crypto). The gate admits `max(1, floor(min(UV_THREADPOOL_SIZE or 4, 1024) / 2))`
 * lookups at once. A slot is held until the lookup itself ends, even if its caller gave up, because the
 * thread stays busy until then. Waiting callers leave the queue when their signal aborts.
 */
export class LookupGate {
  readonly max: number;
  #active = 0;
  #queue: { resolve: () => void; reject: (e: unknown) => void; signal: AbortSignal; onAbort: () => void }[] = [];

  constructor(max: number) {
    this.max = Math.max(1, Math.floor(max));
  }

  get active(): number {
    return this.#active;
  }

  /** Waits for a slot; rejects with the signal's reason if it aborts first. Call the returned function once done. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    signal.throwIfAborted();
    if (this.#active < this.max) {
      this.#active++;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#queue.indexOf(entry);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener("abort", entry.onAbort, { once: true });
      this.#queue.push(entry);
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next) {
        // Hand the slot straight to the next waiter; the active count stays the same.
        next.signal.removeEventListener("abort", next.onAbort);
        next.resolve();
      } else this.#active--;
    };
  }
}

export function defaultLookupConcurrency(env: Readonly<Record<string, string | undefined>>): number {
  const raw = Number.parseInt(env["UV_THREADPOOL_SIZE"] ?? "", 10);
  const pool = Number.isFinite(raw) && raw > 0 ? raw : 4;
  return Math.max(1, Math.floor(Math.min(pool, 1024) / 2));
}
