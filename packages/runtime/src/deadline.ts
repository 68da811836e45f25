/**
 * A signal that aborts when its parent does or when a timer fires, whichever comes first.
 *
 * `AbortSignal.any([parent, AbortSignal.timeout(ms)])` is the obvious spelling, but on Node 20 the timeout signal
 * is only weakly held: a garbage collection before it fires discards it, and the deadline silently never comes
 * (nodejs/node#57736; the soak suite saw it). Here the timer and the listener are strong references owned by the
 * deadline, and `dispose()` releases both when the work is done.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Whether the timer (not the parent) aborted the signal. */
  readonly timedOut: boolean;
  dispose(): void;
}

export function deadline(parent: AbortSignal, ms: number, reason: () => unknown): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onParentAbort = (): void => controller.abort(parent.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(reason());
  }, ms);
  if (parent.aborted) onParentAbort();
  else parent.addEventListener("abort", onParentAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener("abort", onParentAbort);
    },
  };
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
