/**
 * Typing tables for `select`: expression -> what it can return, for every built-in function and every kind of
 * expression node, and the build-time findings the types give (KV6007, KV6008, KV6009).
 */
import { compile } from "@jmespath-community/jmespath";
import type { SelectNode } from "@kervanc/runtime";
import { describe, expect, it } from "vitest";
import { checkSelectResult } from "../../packages/compiler/src/analyze/rules/select-result.ts";
import { checkSelectAst } from "../../packages/compiler/src/analyze/rules/select-static.ts";
import {
  ALL_TYPES,
  FUNCTION_SIGNATURES,
  inferType,
  RETURN_TYPES,
} from "../../packages/compiler/src/analyze/select-types.ts";
import type { Finding } from "../../packages/compiler/src/diagnostics/diagnostic.ts";

const typeOf = (expression: string): string => {
  const t = inferType(compile(expression) as unknown as SelectNode);
  return t.size === ALL_TYPES.length ? "unknown" : ALL_TYPES.filter((x) => t.has(x)).join("|");
};

/** One call of every function, with arguments of the right types, and the type it returns. */
const FUNCTION_TABLE: readonly [string, string][] = [
  ["abs(a)", "number"],
  ["avg(a)", "number|null"],
  ["ceil(a)", "number"],
  ["contains(a, 'x')", "boolean"],
  ["ends_with(a, 'x')", "boolean"],
  ["find_first(a, 'x')", "number|null"],
  ["find_last(a, 'x')", "number|null"],
  ["floor(a)", "number"],
  ["from_items(a)", "object"],
  ["group_by(a, &k)", "object"],
  ["items(a)", "array"],
  ["join(', ', a)", "string"],
  ["keys(a)", "array"],
  ["length(a)", "number"],
  ["lower(a)", "string"],
  ["map(&x, a)", "array"],
  ["max(a)", "string|number|null"],
  ["max_by(a, &x)", "unknown"],
  ["merge(a, b)", "object"],
  ["min(a)", "string|number|null"],
  ["min_by(a, &x)", "unknown"],
  ["not_null(a, b)", "unknown"],
  ["pad_left(a, `3`)", "string"],
  ["pad_right(a, `3`)", "string"],
  ["replace(a, 'x', 'y')", "string"],
  ["reverse(a)", "array|string"],
  ["reverse(a[*].b)", "array"],
  ["reverse('abc')", "string"],
  ["sort(a)", "array"],
  ["sort_by(a, &x)", "array"],
  ["split(a, ',')", "array"],
  ["starts_with(a, 'x')", "boolean"],
  ["sum(a)", "number"],
  ["to_array(a)", "array"],
  ["to_number(a)", "number|null"],
  ["to_string(a)", "string"],
  ["trim(a)", "string"],
  ["trim_left(a)", "string"],
  ["trim_right(a)", "string"],
  ["type(a)", "string"],
  ["upper(a)", "string"],
  ["values(a)", "array"],
  ["zip(a, b)", "array"],
];

/** Every other kind of node. */
const NODE_TABLE: readonly [string, string][] = [
  ["a", "unknown"],
  ["@", "unknown"],
  ["a.b", "unknown"],
  ["a[0]", "unknown"],
  ["$x", "unknown"],
  ["a[1:2]", "array"],
  ["a[*].b", "array"],
  ["a[?x > `1`]", "array"],
  ["a[]", "array"],
  ["*.b", "array"],
  ["{x: a}", "object"],
  ["a.{x: b}", "object"],
  ["[a, b]", "array"],
  ["a | {x: b}", "object"],
  ["a | length(@)", "number"],
  ["`1`", "number"],
  ['`"s"`', "string"],
  ["'s'", "string"],
  ["`true`", "boolean"],
  ["`null`", "null"],
  ["`[1]`", "array"],
  ['`{"a": 1}`', "object"],
  ["a == b", "boolean"],
  ["a != b", "boolean"],
  ["a < b", "boolean|null"],
  ["!a", "boolean"],
  ["'x' || `1`", "string|number"],
  ["{a: a} && [b]", "object|array"],
  ["a ? 'x' : `1`", "string|number"],
  ["a + b", "number"],
  ["-a", "number"],
  ["let $x = a in {v: $x}", "object"],
];

describe("select typing", () => {
  it("has a return type for every function of the interpreter's table, and no other", () => {
    expect([...RETURN_TYPES.keys()].sort()).toEqual([...FUNCTION_SIGNATURES.keys()].sort());
  });

  it("the function table calls every function", () => {
    const called = new Set(FUNCTION_TABLE.map(([e]) => /^([a-z_]+)\(/.exec(e)![1]!));
    expect([...called].sort()).toEqual([...FUNCTION_SIGNATURES.keys()].sort());
  });

  it.each(FUNCTION_TABLE)("%s -> %s", (expression, expected) => {
    expect(typeOf(expression)).toBe(expected);
  });

  it.each(NODE_TABLE)("%s -> %s", (expression, expected) => {
    expect(typeOf(expression)).toBe(expected);
  });
});

const resultFindings = (expression: string, schema: Record<string, unknown>): string[] => {
  const out: Finding[] = [];
  checkSelectResult(compile(expression) as unknown as SelectNode, schema as never, ["output", "select"], out);
  return out.map((f) => `${f.code}: ${f.message}`);
};

describe("select result against the output schema's root type", () => {
  it.each([
    ["items[*].name", { type: "object" }, "KV6008"],
    ["{a: a}", { type: "array" }, "KV6008"],
    ["length(a)", { type: "string" }, "KV6008"],
    ["to_number(a)", { type: "number" }, "KV6009"],
    ["to_number(a)", { type: ["number", "null"] }, ""],
    ["length(a)", { type: "integer" }, ""],
    ["items", { type: "object" }, ""],
    ["{a: a}", { type: "object" }, ""],
    ["{a: a}", {}, ""],
    ["a < b", { type: "boolean" }, "KV6009"],
  ])("%s with %j: %s", (expression, schema, code) => {
    const found = resultFindings(expression, schema);
    expect(found.map((f) => f.slice(0, 6)).join(",")).toBe(code);
  });
});

describe("function argument types known statically (KV6007)", () => {
  const argFindings = (expression: string): string[] => {
    const out: Finding[] = [];
    checkSelectAst(compile(expression) as unknown as SelectNode, ["output", "select"], out, expression);
    return out.map((f) => `${f.code}: ${f.message}`);
  };
  it.each([
    [
      "length(`5`)",
      "KV6007: length() takes an object, an array or string as argument 1, but it is given number; every call would fail.",
    ],
    ["upper({a: a})", "KV6007: upper() takes string as argument 1, but it is given an object; every call would fail."],
    ["keys(a[*])", "KV6007: keys() takes an object as argument 1, but it is given an array; every call would fail."],
    ["abs(length(a))", ""],
    ["upper(a)", ""],
    ["sort_by(a, &x)", ""],
  ])("%s", (expression, expected) => {
    expect(argFindings(expression).join("\n")).toBe(expected);
  });
});
