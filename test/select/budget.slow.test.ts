/**
 * Blow-up corpus for the select budgets: each expression must end with a SelectError of kind "budget", without
 * first allocating what it asks for. Timings are measured (median of a few runs) and printed, never asserted.
 * Ordinary selections must stay far inside the default budget, which is checked by running them under a budget
 * a hundred times smaller.
 */
import { compile } from "@jmespath-community/jmespath";
import { afterAll, describe, expect, it } from "vitest";
import type { JsonValue, SelectNode } from "../../packages/runtime/src/select/ast.ts";
import {
  DEFAULT_SELECT_BUDGET,
  evaluateSelect,
  SELECT_MAX_NESTING,
  type SelectBudget,
  SelectError,
} from "../../packages/runtime/src/select/evaluate.ts";
import { deepFreeze } from "./deep-freeze.ts";

function compileFrozen(expression: string): SelectNode {
  return deepFreeze(compile(expression));
}

const MIB = 1024 * 1024;
const timings: string[] = [];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs the evaluation `runs` times, expects a budget error each time, and records the median time. */
function expectBudgetError(
  name: string,
  ast: SelectNode,
  data: JsonValue,
  code: SelectError["code"] | undefined,
  budget?: Partial<SelectBudget>,
  runs = 3,
): SelectError {
  const times: number[] = [];
  let last: unknown;
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    try {
      evaluateSelect(ast, data, budget);
      last = undefined;
    } catch (error) {
      last = error;
    }
    times.push(performance.now() - started);
    expect(last, `${name} should have been stopped by a budget`).toBeInstanceOf(SelectError);
    expect((last as SelectError).kind, (last as Error).message).toBe("budget");
    if (code !== undefined) expect((last as SelectError).code, (last as Error).message).toBe(code);
  }
  timings.push(`${median(times).toFixed(1).padStart(8)} ms  ${(last as SelectError).code.padEnd(11)} ${name}`);
  return last as SelectError;
}

// Shared inputs, built once. Sharing one string or array across many slots is the point: the data is small in
// memory but huge once expanded or serialised.
const ONE_MB = "x".repeat(MIB);
const row1000 = Array.from({ length: 1000 }, (_, i) => i);
const grid1000 = Array.from({ length: 1000 }, () => row1000);
const cube1000 = Array.from({ length: 1000 }, () => grid1000);

describe("blow-ups end with a budget error", () => {
  it("[@, @] piped 30 times (a 2^30-leaf result from a 30-node tree)", () => {
    const doubling = `@${" | [@, @]".repeat(30)}`;
    const data = { name: "x" };
    expectBudgetError("[@,@] doubling x30, result size", compileFrozen(doubling), data, "max-bytes");
    expectBudgetError(
      "[@,@] doubling x30 | to_string(@)",
      compileFrozen(`${doubling} | to_string(@)`),
      data,
      "max-bytes",
    );
    expectBudgetError(
      "[@,@] doubling x30 | [] x30",
      compileFrozen(`${doubling}${" | []".repeat(30)}`),
      data,
      undefined,
    );
    expectBudgetError(
      "[@,@] doubling x30 | [*][*]...",
      compileFrozen(`${doubling} | ${"[*]".repeat(30)}`),
      data,
      undefined,
    );
    expectBudgetError(
      "[@,@] doubling x30, then == a copy",
      compileFrozen(`[${doubling}, ${doubling} | [@]] | [0] == [1][0]`),
      data,
      "max-steps",
    );
  });

  it("a 1 MB string referenced from each of 10,000 items", () => {
    const data = {
      s: ONE_MB,
      items: Array.from({ length: 10_000 }, () => 0),
      copies: Array.from({ length: 10_000 }, () => ONE_MB),
    };
    expectBudgetError("join(',', map(&$.s, items))", compileFrozen("join(',', map(&$.s, items))"), data, "max-bytes");
    expectBudgetError("join('', copies)", compileFrozen("join('', copies)"), data, "max-bytes");
    expectBudgetError("to_string(copies)", compileFrozen("to_string(copies)"), data, "max-bytes");
    expectBudgetError("copies[*] (result size)", compileFrozen("copies[*]"), data, "max-bytes");
    expectBudgetError("map(&upper(@), copies)", compileFrozen("map(&upper(@), copies)"), data, "max-bytes");
    expectBudgetError(
      "map(&find_first($.s, 'y'), items)",
      compileFrozen("map(&find_first($.s, 'y'), items)"),
      data,
      "max-steps",
    );
    expectBudgetError("copies[?@ == $.s]", compileFrozen("copies[?@ == $.s]"), data, "max-steps");
    expectBudgetError("map(&length(@), copies)", compileFrozen("map(&length(@), copies)"), data, "max-steps");
  });

  it("join, pad_left, pad_right and replace with big inputs", () => {
    const data = {
      s: ONE_MB,
      xs: "x".repeat(100),
      parts: Array.from({ length: 100 }, () => "a"),
      four: "x".repeat(4 * MIB),
    };
    expectBudgetError("join(s, parts) (1 MB separator)", compileFrozen("join(s, parts)"), data, "max-bytes");
    expectBudgetError("pad_left('a', `500000000`)", compileFrozen("pad_left('a', `500000000`)"), data, "max-bytes");
    expectBudgetError(
      "length(pad_left('a', `500000000`))",
      compileFrozen("length(pad_left('a', `500000000`))"),
      data,
      "max-bytes",
    );
    expectBudgetError(
      "pad_right('a', `500000000`, '-')",
      compileFrozen("pad_right('a', `500000000`, '-')"),
      data,
      "max-bytes",
    );
    expectBudgetError("pad_left(s, `1e300`)", compileFrozen("pad_left(s, `1e300`)"), data, "max-bytes");
    expectBudgetError("replace(xs, 'x', s) (100 x 1 MB)", compileFrozen("replace(xs, 'x', s)"), data, "max-bytes");
    expectBudgetError("replace(s, 'x', 'yy') (1M matches)", compileFrozen("replace(s, 'x', 'yy')"), data, undefined);
    expectBudgetError("replace('a', '', s, `100`)", compileFrozen("replace('a', '', s, `100`)"), data, "max-bytes");
    expectBudgetError("replace(four, '', '-')", compileFrozen("replace(four, '', '-')"), data, "max-bytes");
    expectBudgetError("split(four, '')", compileFrozen("split(four, '')"), data, "max-bytes");
  });

  it("deeply nested map over 1000 x 1000 and 1000^3 elements", () => {
    expectBudgetError(
      "map(&map(&@, @), @) over 1000x1000",
      compileFrozen("map(&map(&@, @), @)"),
      grid1000,
      "max-steps",
    );
    expectBudgetError(
      "map(&map(&map(&@, @), @), @) over 1000^3",
      compileFrozen("map(&map(&map(&@, @), @), @)"),
      cube1000,
      "max-steps",
    );
    expectBudgetError("[*][*][*] over 1000^3", compileFrozen("[*][*][*]"), cube1000, "max-steps");
    expectBudgetError("@[][] over 1000^3 (flatten)", compileFrozen("@[][]"), cube1000, undefined);
  });

  it("sorting 100,000 items", () => {
    const numbers = Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 100_003);
    const strings = numbers.map(String);
    const records = numbers.map((n) => ({ n }));
    expectBudgetError("sort(numbers)", compileFrozen("sort(@)"), numbers, "max-steps");
    expectBudgetError("sort(strings)", compileFrozen("sort(@)"), strings, "max-steps");
    expectBudgetError("sort_by(records, &n)", compileFrozen("sort_by(@, &n)"), records, "max-steps");
    // Few elements, but every comparison scans 100 KB: the comparator charges the scanned length.
    const longCopies = Array.from({ length: 1000 }, () => "y".repeat(100_000));
    expectBudgetError(
      "sort(1000 distinct copies of a 100 KB string)",
      compileFrozen("sort(@)"),
      longCopies,
      "max-steps",
    );
  });

  it("comparing large structures", () => {
    const left = Array.from({ length: 1000 }, () => Array.from({ length: 1000 }, (_, i) => i));
    const right = Array.from({ length: 1000 }, () => Array.from({ length: 1000 }, (_, i) => i));
    expectBudgetError(
      "a == b over two distinct 1000x1000 arrays",
      compileFrozen("a == b"),
      { a: left, b: right },
      "max-steps",
    );
    // Every row has the searched length and prefix, so each comparison walks ~1000 pairs before failing.
    const almost = Array.from({ length: 1000 }, (_, i) => (i === 999 ? -1 : i));
    expectBudgetError(
      "contains(a, b) over 1000x1000",
      compileFrozen("contains(a, b)"),
      { a: left, b: almost },
      "max-steps",
    );
  });

  it("expression nesting past the cap", () => {
    const nots = `${"!".repeat(SELECT_MAX_NESTING + 10)}a`;
    expectBudgetError(`${SELECT_MAX_NESTING + 10} nested !`, compileFrozen(nots), { a: true }, "max-nesting");
  });

  it("respects budgets passed by the caller", () => {
    expectBudgetError("length(@) with maxSteps 1", compileFrozen("length(@)"), [1, 2, 3], "max-steps", { maxSteps: 1 });
    expectBudgetError("upper(@) with maxBytes 10", compileFrozen("upper(@)"), "x".repeat(100), "max-bytes", {
      maxBytes: 10,
    });
    expect(() => evaluateSelect(compileFrozen("@"), 1, { maxSteps: Number.NaN })).toThrow(RangeError);
    expect(() => evaluateSelect(compileFrozen("@"), 1, { maxBytes: -1 })).toThrow(RangeError);
  });
});

describe("ordinary selections stay far inside the default budget", () => {
  // A hundred times smaller than the default: passing under it leaves two orders of magnitude of headroom.
  const tight: SelectBudget = {
    maxSteps: DEFAULT_SELECT_BUDGET.maxSteps / 100,
    maxBytes: DEFAULT_SELECT_BUDGET.maxBytes / 100,
  };
  const countries = ["TR", "DE", "FR", "JP", "BR"];
  const results = Array.from({ length: 200 }, (_, i) => ({
    id: i,
    name: `City ${i}`,
    country: countries[i % countries.length] as string,
    population: (i * 104_729) % 5_000_000,
    latitude: (i % 180) - 90,
    longitude: (i % 360) - 180,
    admin: { region: `Region ${i % 17}`, timezone: "Europe/Istanbul" },
    tags: ["a", "b", "c"],
  }));
  const weather = {
    latitude: 41.01,
    longitude: 28.97,
    current: { time: "2024-01-01T00:00", temperature_2m: 7.3, wind_speed_10m: 11.2 },
    hourly: {
      time: Array.from({ length: 168 }, (_, i) => `t${i}`),
      temperature_2m: Array.from({ length: 168 }, (_, i) => i / 10),
    },
  };

  const realistic: ReadonlyArray<[string, JsonValue, (value: JsonValue) => void]> = [
    ["results[].{name: name, country: country}", { results }, (value) => expect(value).toHaveLength(200)],
    ["{temperatureC: current.temperature_2m}", weather, (value) => expect(value).toEqual({ temperatureC: 7.3 })],
    ["{now: current, next: hourly.temperature_2m[:24]}", weather, (value) => expect(value).toHaveProperty("next")],
    [
      "sort_by(results, &population)[-10:].{name: name, population: population}",
      { results },
      (value) => expect(value).toHaveLength(10),
    ],
    ["results[?country == 'TR'] | length(@)", { results }, (value) => expect(value).toBe(40)],
    ["join(', ', results[?population > `4000000`].name)", { results }, (value) => expect(typeof value).toBe("string")],
    ["max_by(results, &population).name", { results }, (value) => expect(typeof value).toBe("string")],
    ["group_by(results, &country) | keys(@)", { results }, (value) => expect(value).toEqual(countries)],
    [
      "results[*].{id: id, where: join('/', [admin.region, country]), tags: join(',', tags)}",
      { results },
      (value) => expect(value).toHaveLength(200),
    ],
    [
      "let $c = 'DE' in results[?country == $c].name | sort(@)[:5]",
      { results },
      (value) => expect(value).toHaveLength(5),
    ],
  ];

  for (const [expression, data, check] of realistic) {
    it(expression, () => {
      const ast = compileFrozen(expression);
      const times: number[] = [];
      let value: JsonValue = null;
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        value = evaluateSelect(ast, data, tight);
        times.push(performance.now() - started);
      }
      check(value);
      timings.push(`${median(times).toFixed(2).padStart(8)} ms  ok          ${expression}`);
    });
  }
});

afterAll(() => {
  console.info(`select budget timings (median):\n${timings.join("\n")}`);
});
