/**
 * The sizes in the build and import summaries (`108,142 characters`) are grouped by hand (plan/budget.ts's
 * `count`), not with toLocaleString, whose first call loads ICU's number formatting (about 18 ms of every
 * build). The text must be what en-US formatting gives, for every whole number a summary can hold.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { count } from "../../packages/compiler/src/plan/budget.ts";

describe("count", () => {
  it("groups digits as en-US does", () => {
    for (const n of [0, 7, 999, 1000, 8000, 27036, 108142, 1_000_000, 123_456_789, Number.MAX_SAFE_INTEGER])
      expect(count(n)).toBe(n.toLocaleString("en-US"));
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => count(n) === n.toLocaleString("en-US")),
      { numRuns: 5000 },
    );
  });

  it("leaves numbers that are not whole and non-negative to en-US formatting", () => {
    for (const n of [-1234, 1234.5]) expect(count(n)).toBe(n.toLocaleString("en-US"));
  });
});
