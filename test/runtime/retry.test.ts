/** The retry extension's arithmetic (runtime/call/retry.ts), in process; the behaviour end to end is in test/extensions. */
import { describe, expect, it } from "vitest";
import { fits, retries, retryAfterMs, spentError, waitBefore } from "../../packages/runtime/src/call/retry.ts";

const plan = { attempts: 3, on: [429, 503], maxDelayMs: 2_000, methods: ["GET" as const] };

describe("retry", () => {
  it("reads Retry-After as seconds or an HTTP date, and nothing else", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(retryAfterMs("30", now)).toBe(30_000);
    expect(retryAfterMs(" 0 ", now)).toBe(0);
    expect(retryAfterMs("Wed, 21 Oct 2026 07:28:05 GMT", now)).toBe(5_000);
    expect(retryAfterMs("Wed, 21 Oct 2026 07:27:00 GMT", now)).toBe(0);
    for (const bad of ["-1", "1.5", "soon", "", "3".repeat(20)]) expect(retryAfterMs(bad, now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  it("caps Retry-After, and otherwise waits a random share of an exponential ceiling", () => {
    expect(waitBefore(2, plan, 60_000, () => 0.5)).toBe(2_000);
    expect(waitBefore(2, plan, null, () => 0.999)).toBeLessThan(500);
    expect(waitBefore(3, plan, null, () => 0.999)).toBeGreaterThanOrEqual(500);
    expect(waitBefore(10, plan, null, () => 0.999)).toBeLessThan(2_000);
  });

  it("retries only the statuses and methods named, within the time left", () => {
    expect(retries(plan, "GET", 429)).toBe(true);
    expect(retries(plan, "POST", 429)).toBe(false);
    expect(retries(plan, "GET", 500)).toBe(false);
    expect(fits(1_000, 2_500)).toBe(true);
    expect(fits(2_000, 2_500)).toBe(false);
  });

  it("words a spent 429 or 503 with a bounded wait of its own, and nothing else", () => {
    expect(spentError(429, "api.example.com", 1_500)!.message).toBe(
      "Rate limited by api.example.com; retry after 2 s.",
    );
    expect(spentError(429, "api.example.com", 1e12)!.message).toBe(
      "Rate limited by api.example.com; retry after 86400 s.",
    );
    expect(spentError(503, "api.example.com", null)!.message).toBe("api.example.com is unavailable (HTTP 503).");
    expect(spentError(500, "api.example.com", null)).toBeNull();
  });
});
