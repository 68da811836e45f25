/**
 * The per-client limit's table (rate-limit.ts): it must stay bounded however many clients arrive within one
 * window (an attacker with many addresses, or many tokens, makes one window each), while still counting each
 * client's requests and opening a new window after 60 s.
 */
import { describe, expect, it } from "vitest";
import { ClientRateLimit, MAX_CLIENTS } from "../../packages/runtime/src/serve/rate-limit.ts";

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

  it("gives an attempt back only to the window that counted it", () => {
    const limit = new ClientRateLimit(2);
    // Counted at 59.9 s in the window opened at 0 s; the check it guarded takes until after the minute.
    expect(limit.take("a", 0)).toBe(0);
    expect(limit.take("a", 59_900)).toBe(0);
    // Meanwhile a new window opens and fills.
    expect(limit.take("a", 60_000)).toBe(0);
    expect(limit.take("a", 60_001)).toBe(0);
    // The credential proved good: nothing of the new window is given back, so it stays full.
    limit.giveBack("a", 59_900);
    expect(limit.take("a", 60_002)).toBe(60);
    // Within its own window an attempt is given back.
    limit.giveBack("a", 60_001);
    expect(limit.take("a", 60_003)).toBe(0);
  });
});
