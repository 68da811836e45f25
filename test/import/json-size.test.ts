/**
 * The bounded JSON measure the importer uses instead of JSON.stringify on document values (import/json-size.ts):
 * exact for plain values, and it gives up past its limit without walking a shared value out.
 */
import { describe, expect, it } from "vitest";
import { jsonLengthWithin } from "../../packages/compiler/src/import/json-size.ts";

describe("jsonLengthWithin", () => {
  it("is JSON.stringify's length for plain values", () => {
    const values: unknown[] = [
      null,
      true,
      -1.5e-7,
      Number.NaN,
      'a "quoted" \u2028 text\n',
      [],
      {},
      [1, [2, [3, null]], { a: "b" }],
      { "": [], "k\u0000": { x: [true, false] }, __proto__key: 1 },
    ];
    for (const value of values)
      expect(jsonLengthWithin(value, 1e6), JSON.stringify(value)).toBe(JSON.stringify(value).length);
  });

  it("gives up past the limit, without walking a shared value out", () => {
    let value: unknown = [];
    // 2^60 leaves once written out; 60 levels of one shared array each.
    for (let i = 0; i < 60; i++) value = [value, value];
    expect(jsonLengthWithin(value, 65_536)).toBeNull();
    expect(jsonLengthWithin("x".repeat(10), 11)).toBeNull();
    expect(jsonLengthWithin("x".repeat(10), 12)).toBe(12);
  });
});
