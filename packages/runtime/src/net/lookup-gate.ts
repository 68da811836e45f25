/**
 * A process-wide gate on concurrent DNS lookups.
 *
 * `dns.lookup` runs on libuv's small thread pool; a burst of slow lookups would starve every other use of that
 * pool (file reads, zlib, crypto). The gate admits `max(1, floor(min(UV_THREADPOOL_SIZE or 4, 1024) / 2))`
 * lookups at once. A slot is held until the lookup itself ends, even if its caller gave up, because the
 * thread stays busy until then. Waiting callers queue (first come, first served) and leave the queue only when
 * their own signal aborts: the wait is bounded by the hop's timeout, never refused outright.
 *
 * Callers asking for a name that is already being looked up share that lookup (`lookup()`): 500 parallel
 * calls to one host take one slot for one lookup instead of queueing 500 lookups behind two slots, which
 * timed out most of them on busy cores. Nothing is cached: once the lookup ends, the next caller asks again,
 * so sharing never stretches an answer's life beyond the moment it was given.
 */
import { raceSignal } from "../call/deadline.ts";

export class LookupGate {
  readonly max: number;
  #active = 0;
  readonly #shared = new Map<string, SharedLookup>();
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

  /** Callers queued for a slot. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Resolves `name` with `resolve` under the gate, sharing a lookup already under way for the same name.
   * Rejects with `LookupWaitAborted` when `signal` aborts before the lookup got a slot, with the signal's reason
   * when it aborts during the lookup, and with the lookup's own error otherwise.
   */
  async lookup<T>(name: string, resolve: (name: string) => Promise<T>, signal: AbortSignal): Promise<T> {
    signal.throwIfAborted();
    let entry = this.#shared.get(name);
    if (entry === undefined) {
      const created: SharedLookup = { callers: 0, started: false, controller: new AbortController(), work: null! };
      created.work = (async () => {
        const release = await this.acquire(created.controller.signal);
        created.started = true;
        try {
          return await resolve(name);
        } finally {
          release();
        }
      })().finally(() => {
        if (this.#shared.get(name) === created) this.#shared.delete(name);
      });
      // Every caller may have left; the lookup's outcome then has no one to reach.
      created.work.catch(() => {});
      this.#shared.set(name, created);
      entry = created;
    }
    const shared = entry;
    shared.callers++;
    try {
      return (await raceSignal(shared.work, signal, (s) =>
        shared.started ? s.reason : new LookupWaitAborted(s.reason),
      )) as T;
    } finally {
      shared.callers--;
      // The last caller gone before a slot came: leave the queue, and let the next caller start afresh.
      if (shared.callers === 0 && !shared.started) {
        if (this.#shared.get(name) === shared) this.#shared.delete(name);
        shared.controller.abort();
      }
    }
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

interface SharedLookup {
  callers: number;
  started: boolean;
  readonly controller: AbortController;
  work: Promise<unknown>;
}

/** The caller's signal aborted while its lookup still waited for a slot. */
export class LookupWaitAborted extends Error {
  override readonly name = "LookupWaitAborted";
  readonly reason: unknown;
  constructor(reason: unknown) {
    super("aborted while waiting for a DNS lookup slot");
    this.reason = reason;
  }
}

export function defaultLookupConcurrency(env: Readonly<Record<string, string | undefined>>): number {
  const raw = Number.parseInt(env["UV_THREADPOOL_SIZE"] ?? "", 10);
  const pool = Number.isFinite(raw) && raw > 0 ? raw : 4;
  return Math.max(1, Math.floor(Math.min(pool, 1024) / 2));
}
