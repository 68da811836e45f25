/**
 * The kervanc retry extension (docs/extensions/retry.md): a tool whose plan has `request.retry` sends its request
 * again when the answer's status is one it names (429, 502, 503, 504 by default) and its method is one it retries
 * (the idempotent GET, PUT and DELETE unless the spec names others). The wait honours the answer's Retry-After
 * (seconds or an HTTP date), capped at `maxDelayMs`; without one it is exponential backoff with full jitter. A
 * retry whose wait would not leave the tool's timeout room for another request is not started, and a cancelled
 * call stops waiting at once. Every attempt is a whole request through the same path (egress list, address
 * policy, secrets, redaction); only an answer received in full is retried, never a failed connection.
 *
 * When the retries are spent on a 429 or 503, the error says so in words a model can act on, with a wait from
 * Retry-After that kervanc bounds and formats itself: the upstream's text is never copied.
 */
import { ToolError } from "./errors.ts";
import type { HttpMethod, RetryPlan } from "../plan.ts";

/** The first backoff step; attempt n waits up to BASE * 2^(n-1), capped. */
const BACKOFF_BASE_MS = 500;
/** A retry is started only with at least this much of the tool's timeout left after its wait. */
const MIN_TIME_FOR_ATTEMPT_MS = 1_000;
/** The longest wait a rate-limit error names (a day): a Retry-After beyond it is named as this. */
const MAX_NAMED_WAIT_S = 86_400;

export function retries(plan: RetryPlan, method: HttpMethod, status: number): boolean {
  return plan.on.includes(status) && plan.methods.includes(method);
}

/**
 * The wait a Retry-After value asks for, in milliseconds (0 for a date in the past), or null when it is neither
 * a whole number of seconds nor an HTTP date.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  // An HTTP date (RFC 9110 section 5.6.7): IMF-fixdate and the two obsolete forms Date.parse reads.
  if (!/^[A-Za-z]{3},? [\w :-]{10,40}$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The wait before attempt `next` (2 for the first retry): Retry-After when given, else full jitter. */
export function waitBefore(next: number, plan: RetryPlan, retryAfter: number | null, random: () => number): number {
  if (retryAfter !== null) return Math.min(retryAfter, plan.maxDelayMs);
  const ceiling = Math.min(plan.maxDelayMs, BACKOFF_BASE_MS * 2 ** (next - 2));
  return Math.floor(random() * ceiling);
}

/** Whether a wait leaves the tool's timeout room for one more request. */
export function fits(waitMs: number, remainingMs: number): boolean {
  return waitMs + MIN_TIME_FOR_ATTEMPT_MS <= remainingMs;
}

/**
 * The error for a final 429 or 503 once retries are spent (or could not fit): the host, and the wait the
 * answer asked for when it named one, bounded and in whole seconds.
 */
export function spentError(status: number, host: string, retryAfter: number | null): ToolError | null {
  if (status !== 429 && status !== 503) return null;
  const wait =
    retryAfter === null
      ? ""
      : `; retry after ${Math.min(MAX_NAMED_WAIT_S, Math.max(1, Math.ceil(retryAfter / 1000)))} s`;
  return new ToolError(
    status === 429 ? `Rate limited by ${host}${wait}.` : `${host} is unavailable (HTTP 503)${wait}.`,
  );
}

/** A wait that ends early, with the call, when `race` settles otherwise; the timer never holds the process. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (typeof timer === "object" && timer !== null && "unref" in timer) (timer as { unref(): void }).unref();
  });
}
