/**
 * The deadlines of one tool call in one AbortController and one timer: the tool's own (the whole call) and, one
 * at a time, each upstream hop's (one exchange, its body included). A call used to hold a deadline for the tool
 * and another per hop, two controllers, two timers and three abort listeners, which the profile of a call
 * showed as a tenth of its CPU.
 *
 * Why not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 the timeout signal is only weakly
 * held, so a garbage collection before it fires discards it and the deadline silently never comes
 * (nodejs/node#57736; the soak suite saw it). Here the timer and the parent's listener are strong references
 * owned by the deadline, and `dispose()` releases both when the call is done.
 *
 * `signal` is what the transport gets: it aborts when the caller cancels, the tool's time is up, or the current
 * hop's time is up (with a `TimeoutError` DOMException from `hopReason`). The tool-level end (cancellation or
 * the tool's timeout) is kept apart in `ended`/`endReason`, and only it settles `race()`, so a hop whose
 * transport ignores its signal still ends with the tool's words when the tool's time is up. After a hop timed
 * out the signal stays aborted: the hop's failure ends the call. The signal itself is made only when read;
 * `onAbort` hears the same event without it.
 */
const ONCE = { once: true } as const;
const noop = (): void => {};

export class CallDeadline {
  /**
   * Made on the first read of `signal`: on Node an AbortSignal costs more to make, listen to and release than
   * the rest of a pooled hop's bookkeeping, and the Node transport listens through `onAbort` instead.
   */
  #controller: AbortController | null = null;
  /** Whether `signal` has aborted (or would have, had it been made), and why. */
  #aborted = false;
  #abortReason: unknown = undefined;
  /** The `onAbort` listeners, called once in order when the signal aborts. */
  #listeners: (() => void)[] = [];
  readonly #parent: AbortSignal;
  readonly #toolAt: number;
  readonly #toolReason: () => unknown;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** When the armed timer fires (a performance.now() time). */
  #armedAt = Infinity;
  #hopAt = Infinity;
  #hopReason: (() => unknown) | null = null;
  #hopTimedOut = false;
  #ended = false;
  #endReason: unknown = undefined;
  #onEnd: ((reason: unknown) => void) | null = null;

  constructor(parent: AbortSignal, ms: number, reason: () => unknown) {
    this.#parent = parent;
    this.#toolAt = performance.now() + ms;
    this.#toolReason = reason;
    if (parent.aborted) this.#end(parent.reason);
    else {
      parent.addEventListener("abort", this, ONCE);
      this.#arm(this.#toolAt);
    }
  }

  /** Milliseconds left of the tool's timeout (negative once it is up). */
  get remainingMs(): number {
    return this.#toolAt - performance.now();
  }

  /** Aborts when the caller cancels, the tool's time is up, or the current hop's time is up. */
  get signal(): AbortSignal {
    if (this.#controller === null) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /**
   * Calls `listener` once when `signal` aborts, or at once if it has; the returned function removes it. The same
   * event as the signal's, heard without making the signal.
   */
  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener();
      return noop;
    }
    const listeners = this.#listeners;
    listeners.push(listener);
    return () => {
      const at = listeners.indexOf(listener);
      if (at !== -1) listeners.splice(at, 1);
    };
  }

  /** Whether the call ended early: the caller cancelled or the tool's time is up. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Why the call ended early: the caller's reason, or the tool timeout's. */
  get endReason(): unknown {
    return this.#endReason;
  }

  /** Whether the current (or last) hop's own time ran out. */
  get hopTimedOut(): boolean {
    return this.#hopTimedOut;
  }

  /** Starts a hop's deadline, `ms` from now; `reason` is the signal's abort reason when it fires. */
  startHop(ms: number, reason: () => unknown): void {
    this.#hopAt = performance.now() + ms;
    this.#hopReason = reason;
    this.#hopTimedOut = false;
    if (this.#hopAt < this.#armedAt) this.#arm(this.#hopAt);
  }

  /** Ends the current hop's deadline (the timer is left as it is: when it fires early it re-arms itself). */
  endHop(): void {
    this.#hopAt = Infinity;
    this.#hopReason = null;
  }

  /**
   * Settles with `work`, or rejects as soon as the call ends early (with `reason(endReason)`), whichever comes
   * first: for work that may not honour the signal. One race at a time.
   */
  race<T>(work: Promise<T>, reason: (endReason: unknown) => unknown): Promise<T> {
    if (this.#ended) return Promise.reject(reason(this.#endReason));
    return new Promise<T>((resolve, reject) => {
      this.#onEnd = (why) => reject(reason(why));
      work.then(
        (v) => {
          this.#onEnd = null;
          resolve(v);
        },
        (e: unknown) => {
          this.#onEnd = null;
          reject(e);
        },
      );
    });
  }

  dispose(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedAt = Infinity;
    this.#parent.removeEventListener("abort", this);
  }

  /** The parent's abort listener: the deadline is its own listener object, so a call makes no closure for it. */
  handleEvent(): void {
    this.#end(this.#parent.reason);
  }

  static #fire(this: void, deadline: CallDeadline): void {
    deadline.#onTimer();
  }

  #arm(at: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(CallDeadline.#fire, Math.max(0, at - performance.now()), this);
  }

  #onTimer(): void {
    this.#timer = null;
    this.#armedAt = Infinity;
    if (this.#ended) return;
    const now = performance.now();
    // Timers may fire a little early by this clock; within a millisecond counts as due.
    if (now + 1 >= this.#toolAt) {
      this.#end(this.#toolReason());
      return;
    }
    if (this.#hopReason !== null && now + 1 >= this.#hopAt) {
      const reason = this.#hopReason;
      this.#hopTimedOut = true;
      this.#hopAt = Infinity;
      this.#hopReason = null;
      this.#abort(reason());
    }
    this.#arm(Math.min(this.#toolAt, this.#hopAt));
  }

  /** Aborts the signal (made or not) and calls the `onAbort` listeners; only the first abort counts. */
  #abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an AbortSignal's listeners: one that throws does not stop the others, and its error is not lost.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  #end(reason: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endReason = reason;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#armedAt = Infinity;
    this.#abort(reason);
    const onEnd = this.#onEnd;
    this.#onEnd = null;
    onEnd?.(reason);
  }
}

/**
 * Settles with `work`, or rejects as soon as `signal` aborts (with `reason(signal)`), whichever comes first: for
 * work that may not honour the signal itself. The listener is removed either way.
 */
export function raceSignal<T>(
  work: Promise<T>,
  signal: AbortSignal,
  reason: (signal: AbortSignal) => unknown = (s) => s.reason,
): Promise<T> {
  if (signal.aborted) return Promise.reject(reason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(reason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
