/**
 * The per-client limit's table (rate-limit.ts): it must stay bounded however many clients arrive within one
 * window (an attacker with many addresses, or many tokens, makes one window each), while still counting each
 * client's requests and opening a new window after 60 s.
 */
import { describe, expect, it } from "vitest";
import { ClientRateLimit, MAX_CLIENTS } from "../../packages/runtime/src/rate-limit.ts";

describe("the per-client limit's table", () => {
  it(`holds at most MAX_CLIENTS windows, however many clients come within a minute`, () => {
    const limit = new ClientRateLimit(1);
    const clients = MAX_CLIENTS + 5_000;
    for (let i = 0; i < clients; i++) limit.take(`client ${i}`, 1_000 + i / 1_000);
    expect(limit.size).toBeLessThanOrEqual(MAX_CLIENTS);
    // Room is made by dropping the oldest windows: the latest clients are still counted.
    expect(limit.take(`client ${clients - 1}`, 1_000 + clients / 1_000)).toBeGreaterThan(0);
  });

  it("counts a client's requests in its window and opens a new window after 60 s", () => {
    const limit = new ClientRateLimit(2);
    expect(limit.take("a", 0)).toBe(0);
    expect(limit.take("b", 10_000)).toBe(0);
    expect(limit.take("a", 20_000)).toBe(0);
    expect(limit.take("a", 30_000)).toBe(30);
    expect(limit.take("a", 60_000)).toBe(0);
    // b's window (opened at 10 s) is still running; a's new one counted its first request.
    expect(limit.take("b", 60_000)).toBe(0);
    expect(limit.take("b", 60_001)).toBe(10);
    // Expired windows are let go: after a quiet minute only the client just seen is held.
    limit.take("c", 200_000);
    expect(limit.size).toBe(1);
  });
});
