/**
 * The built-in JMESPath functions of @jmespath-community/jmespath 1.3.0, reimplemented with budgets.
 *
 * Signatures, arity and type checks, and error messages follow the library's function table. Each function
 * charges the meter for the elements it iterates and for the strings and containers it builds, before building
 * them. Where the library has a bug the spec disagrees with, the spec wins; every such place says so in a comment
 * and is listed in `test/select/compliance.test.ts`.
 */
import type { JsonObject, JsonValue } from "./ast.ts";
import {
  BYTES_PER_MEMBER,
  BYTES_PER_SLOT,
  compareStrings,
  countCodePoints,
  countOwnKeys,
  deepEqual,
  evaluationError,
  Expref,
  isJsonObject,
  jsonLength,
  type Meter,
  setOwn,
  stringifyJson,
  typeOf,
  type TypeName,
  type Value,
} from "./core.ts";

/** What a function needs from the interpreter: the meter, and a way to evaluate an expression reference. */
export interface FunctionContext {
  readonly meter: Meter;
  evaluateRef(ref: Expref, current: JsonValue): JsonValue;
}

/** Parameter types, mirroring the library's `InputArgument` values. */
export type ParamType =
  | "any"
  | "number"
  | "string"
  | "boolean"
  | "array"
  | "object"
  | "null"
  | "expression"
  | "array-number"
  | "array-string"
  | "array-object"
  | "array-array";

/** The names the library prints for parameter types in its messages. */
const PARAM_TYPE_NAMES: Readonly<Record<ParamType, string>> = {
  any: "any",
  number: "number",
  string: "string",
  boolean: "boolean",
  array: "array",
  object: "object",
  null: "null",
  expression: "expression",
  "array-number": "Array<number>",
  "array-string": "Array<string>",
  "array-object": "Array<object>",
  "array-array": "Array<Array<any>>",
};

const ELEMENT_TYPES: Readonly<Partial<Record<ParamType, TypeName>>> = {
  "array-number": "number",
  "array-string": "string",
  "array-object": "object",
  "array-array": "array",
};

/** One parameter of a built-in function: the accepted types, and whether it is optional or variadic. */
export interface FunctionParam {
  readonly types: readonly ParamType[];
  readonly optional?: boolean;
  readonly variadic?: boolean;
}

type Impl = (args: readonly Value[], ctx: FunctionContext) => JsonValue;

interface FunctionDef {
  readonly params: readonly FunctionParam[];
  readonly impl: Impl;
}

// ---------------------------------------------------------------------------------------------------------------
// Argument access. Arguments are validated against the signature before an implementation runs; these accessors
// assert the type again so that a signature mistake fails loudly instead of reading the wrong kind of value.
// ---------------------------------------------------------------------------------------------------------------

function internal(message: string): Error {
  return evaluationError("internal", `internal error: ${message}`);
}

function str(args: readonly Value[], i: number): string {
  const value = args[i];
  if (typeof value !== "string") throw internal(`argument ${i + 1} is not a string`);
  return value;
}

function num(args: readonly Value[], i: number): number {
  const value = args[i];
  if (typeof value !== "number") throw internal(`argument ${i + 1} is not a number`);
  return value;
}

function arr(args: readonly Value[], i: number): readonly JsonValue[] {
  const value = args[i];
  if (!Array.isArray(value)) throw internal(`argument ${i + 1} is not an array`);
  return value;
}

function obj(args: readonly Value[], i: number): JsonObject {
  const value = args[i];
  if (!isJsonObject(value)) throw internal(`argument ${i + 1} is not an object`);
  return value;
}

function ref(args: readonly Value[], i: number): Expref {
  const value = args[i];
  if (!(value instanceof Expref)) throw internal(`argument ${i + 1} is not an expression`);
  return value;
}

function json(args: readonly Value[], i: number): JsonValue {
  const value = args[i];
  if (value === undefined || value instanceof Expref) throw internal(`argument ${i + 1} is not a JSON value`);
  return value;
}

function optStr(args: readonly Value[], i: number): string | undefined {
  return args.length > i ? str(args, i) : undefined;
}

function optNum(args: readonly Value[], i: number): number | undefined {
  return args.length > i ? num(args, i) : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Shared checks
// ---------------------------------------------------------------------------------------------------------------

function ensureInteger(value: number): number {
  if (Math.floor(value) !== value) throw evaluationError("invalid-value", "invalid-value: expecting an integer.");
  return value;
}

function ensureNonNegativeInteger(value: number): number {
  if (value < 0 || Math.floor(value) !== value) {
    throw evaluationError("invalid-value", "invalid-value: expecting a non-negative integer.");
  }
  return value;
}

/** JSON has no Infinity or NaN; the arithmetic JEP makes overflow a `not-a-number` error. */
export function ensureFinite(value: number): number {
  if (!Number.isFinite(value)) throw evaluationError("not-a-number", "not-a-number: the result is not a finite number");
  return value;
}

function invalidKeyType(allowed: readonly TypeName[], actual: TypeName): Error {
  return evaluationError("invalid-type", `Invalid type: expected one of (${allowed.join(" | ")}), received ${actual}`);
}

/** Evaluates a key expression and checks its type, as the library's `createKeyFunction` does. */
function keyOf(ctx: FunctionContext, expref: Expref, element: JsonValue, allowed: readonly TypeName[]): JsonValue {
  const key = ctx.evaluateRef(expref, element);
  const type = typeOf(key);
  if (!allowed.includes(type)) throw invalidKeyType(allowed, type);
  return key;
}

/** Compares two keys of the same type (number or string). */
function compareKeys(a: JsonValue, b: JsonValue, meter: Meter): number {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  return compareStrings(a as string, b as string, meter);
}

/** Comparisons made by a sort of `n` elements, charged before sorting (n log2 n, at least n). */
function sortSteps(n: number): number {
  return n * Math.max(1, Math.ceil(Math.log2(n + 1)));
}

// ---------------------------------------------------------------------------------------------------------------
// String helpers
// ---------------------------------------------------------------------------------------------------------------

/** `\s` of JavaScript regular expressions plus U+0085, the library's default trim set. */
const WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);

/**
 * Trims UTF-16 code units in the set from either end. The library builds regular expressions such as
 * `(.*?)[chars]*$`, which backtrack quadratically on hostile input; a scan from each end is linear.
 */
function trimImpl(ctx: FunctionContext, args: readonly Value[], left: boolean, right: boolean): JsonValue {
  const subject = str(args, 0);
  const chars = optStr(args, 1);
  const set = chars === undefined || chars === "" ? WHITESPACE : new Set<number>();
  if (set !== WHITESPACE) {
    for (let i = 0; i < (chars as string).length; i += 1) set.add((chars as string).charCodeAt(i));
  }
  ctx.meter.scan(subject.length);
  let start = 0;
  let end = subject.length;
  if (left) while (start < end && set.has(subject.charCodeAt(start))) start += 1;
  if (right) while (end > start && set.has(subject.charCodeAt(end - 1))) end -= 1;
  if (start === 0 && end === subject.length) return subject;
  ctx.meter.alloc(end - start);
  return subject.slice(start, end);
}

function padImpl(ctx: FunctionContext, args: readonly Value[], name: string, atStart: boolean): JsonValue {
  const subject = str(args, 0);
  const width = num(args, 1);
  const pad = optStr(args, 2);
  const padding = pad === undefined || pad === "" ? " " : pad;
  if (padding.length > 1) {
    throw evaluationError(
      "invalid-value",
      `invalid value, ${name} expects its 'pad' parameter to be a valid string with a single codepoint`,
    );
  }
  ensureNonNegativeInteger(width);
  // Divergence: the library returns "" for an empty subject; the spec pads it like any other string.
  if (width <= subject.length) return subject;
  ctx.meter.alloc(width);
  return atStart ? subject.padStart(width, padding) : subject.padEnd(width, padding);
}

function caseImpl(ctx: FunctionContext, args: readonly Value[], upper: boolean): JsonValue {
  const subject = str(args, 0);
  // Full case mapping can turn one code unit into three (U+FB03 "ﬃ" becomes "FFI"); refuse before mapping if
  // even the worst case would not fit, then charge what was actually built.
  ctx.meter.ensureFits(subject.length * 3);
  ctx.meter.scan(subject.length);
  const result = upper ? subject.toUpperCase() : subject.toLowerCase();
  ctx.meter.alloc(result.length);
  return result;
}

function findImpl(ctx: FunctionContext, args: readonly Value[], last: boolean): JsonValue {
  const subject = str(args, 0);
  const sub = str(args, 1);
  const startArg = optNum(args, 2);
  const endArg = optNum(args, 3);
  if (subject === "" || sub === "") return null;
  const start = Math.max(startArg === undefined ? 0 : ensureInteger(startArg), 0);
  // Divergence: the library treats an explicit end of 0 as "omitted" (`end || length`); 0 means an empty range.
  // A negative end counts from the end of the string, as `String.prototype.slice` (and Python) do.
  const endValue = Math.min(endArg === undefined ? subject.length : ensureInteger(endArg), subject.length);
  const end = endValue < 0 ? Math.max(subject.length + endValue, 0) : endValue;
  ctx.meter.scan(subject.length + sub.length);
  if (end - start < sub.length) return null;
  if (last) {
    const index = subject.lastIndexOf(sub, end - sub.length);
    return index >= start ? index : null;
  }
  const index = subject.indexOf(sub, start);
  return index !== -1 && index + sub.length <= end ? index : null;
}

/** Reverses by code point, keeping surrogate pairs in order, without spreading the string into arguments. */
function reverseString(ctx: FunctionContext, subject: string): string {
  const n = subject.length;
  ctx.meter.alloc(n * 3);
  ctx.meter.scan(n);
  const units = new Uint16Array(n);
  let write = n;
  for (let i = 0; i < n; i += 1) {
    const unit = subject.charCodeAt(i);
    const next = subject.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      units[write - 2] = unit;
      units[write - 1] = next;
      write -= 2;
      i += 1;
    } else {
      write -= 1;
      units[write] = unit;
    }
  }
  const parts: string[] = [];
  for (let i = 0; i < n; i += 8192) {
    parts.push(String.fromCharCode.apply(null, units.subarray(i, i + 8192) as unknown as number[]));
  }
  return parts.join("");
}

function replaceImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const subject = str(args, 0);
  const old = str(args, 1);
  const by = str(args, 2);
  const count = optNum(args, 3);
  const meter = ctx.meter;
  if (count === 0) return subject;
  if (count !== undefined) ensureNonNegativeInteger(count);
  if (old === "") {
    if (count === undefined) {
      // As the library: `subject.split("").join(by)` puts `by` between UTF-16 code units.
      if (subject.length <= 1) return subject;
      meter.scan(subject.length);
      meter.alloc(subject.length * BYTES_PER_SLOT + subject.length + (subject.length - 1) * by.length);
      return subject.split("").join(by);
    }
    // As the library: each of the `count` replacements inserts `by` at the start.
    meter.alloc(by.length * count + subject.length);
    return by.repeat(count) + subject;
  }
  // Divergence: the library re-scans the partly replaced string `count` times with `String.prototype.replace`,
  // which also expands `$&`-style patterns in `by`. The spec replaces the first `count` non-overlapping
  // occurrences, left to right, literally; the two agree unless `by` contains `old` or a `$` pattern.
  const limit = count ?? Number.POSITIVE_INFINITY;
  const positions: number[] = [];
  let from = 0;
  while (positions.length < limit) {
    const index = subject.indexOf(old, from);
    if (index === -1) break;
    meter.step();
    meter.alloc(BYTES_PER_SLOT);
    positions.push(index);
    from = index + old.length;
  }
  meter.scan(subject.length);
  if (positions.length === 0) return subject;
  meter.alloc(subject.length + positions.length * (by.length - old.length) + (positions.length + 1) * BYTES_PER_SLOT);
  const pieces: string[] = [];
  let last = 0;
  for (const position of positions) {
    pieces.push(subject.slice(last, position));
    last = position + old.length;
  }
  pieces.push(subject.slice(last));
  return pieces.join(by);
}

function splitImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const subject = str(args, 0);
  const separator = str(args, 1);
  const count = optNum(args, 2);
  const meter = ctx.meter;
  if (subject.length === 0 && separator.length === 0) return [];
  if (count !== undefined) {
    ensureNonNegativeInteger(count);
    if (count === 0) {
      meter.alloc(BYTES_PER_SLOT);
      return [subject];
    }
  }
  // Divergence: with a count at least the number of separators the library appends an extra "" (it joins an
  // empty remainder); the spec returns the pieces alone, as without a count.
  const limit = count ?? Number.POSITIVE_INFINITY;
  meter.scan(subject.length);
  const pieces: string[] = [];
  if (separator === "") {
    // As the library: an empty separator splits into UTF-16 code units.
    const cuts = Math.min(limit, subject.length - 1);
    meter.alloc((cuts + 1) * BYTES_PER_SLOT + subject.length);
    for (let i = 0; i < cuts; i += 1) pieces.push(subject.charAt(i));
    pieces.push(subject.slice(cuts));
    return pieces;
  }
  let from = 0;
  while (pieces.length < limit) {
    const index = subject.indexOf(separator, from);
    if (index === -1) break;
    meter.step();
    meter.alloc(BYTES_PER_SLOT + index - from);
    pieces.push(subject.slice(from, index));
    from = index + separator.length;
  }
  meter.alloc(BYTES_PER_SLOT + subject.length - from);
  pieces.push(subject.slice(from));
  return pieces;
}

// ---------------------------------------------------------------------------------------------------------------
// Collection helpers
// ---------------------------------------------------------------------------------------------------------------

function extremeImpl(ctx: FunctionContext, args: readonly Value[], wantMax: boolean): JsonValue {
  const values = arr(args, 0);
  const first = values[0];
  if (first === undefined) return null;
  ctx.meter.step(values.length);
  if (typeof first === "number") {
    // The library spreads the array into Math.max, which throws a RangeError past ~100k elements.
    let best = first;
    for (let i = 1; i < values.length; i += 1) {
      const value = values[i] as number;
      if (wantMax ? value > best : value < best) best = value;
    }
    return best;
  }
  // Divergence: the library compares strings with `localeCompare`, whose order depends on the host's locale;
  // code point order (as `sort` uses) is deterministic.
  let best = first as string;
  for (let i = 1; i < values.length; i += 1) {
    const value = values[i] as string;
    const order = compareStrings(value, best, ctx.meter);
    if (wantMax ? order > 0 : order < 0) best = value;
  }
  return best;
}

function extremeByImpl(ctx: FunctionContext, args: readonly Value[], wantMax: boolean): JsonValue {
  const values = arr(args, 0);
  const expref = ref(args, 1);
  const allowed: readonly TypeName[] = ["number", "string"];
  let best: JsonValue = null;
  let bestKey: JsonValue = null;
  for (let i = 0; i < values.length; i += 1) {
    ctx.meter.step();
    const element = values[i] ?? null;
    const key = keyOf(ctx, expref, element, allowed);
    if (i === 0) {
      best = element;
      bestKey = key;
      continue;
    }
    // Divergence: the library compares every key with `>`/`<` against a number, so string keys that do not
    // look like numbers never win (and it returns null for a falsy winner). Keys must share the first key's
    // type, as in `sort_by`.
    if (typeOf(key) !== typeOf(bestKey)) {
      throw evaluationError("invalid-type", `Invalid type: expected (${typeOf(bestKey)}), received ${typeOf(key)}`);
    }
    const order = compareKeys(key, bestKey, ctx.meter);
    if (wantMax ? order > 0 : order < 0) {
      best = element;
      bestKey = key;
    }
  }
  return best;
}

function sortByImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const values = arr(args, 0);
  const expref = ref(args, 1);
  const meter = ctx.meter;
  const n = values.length;
  if (n === 0) return [];
  meter.alloc(n * BYTES_PER_SLOT * 3);
  const keys: JsonValue[] = [];
  let required: TypeName = "null";
  for (let i = 0; i < n; i += 1) {
    meter.step();
    const key = ctx.evaluateRef(expref, values[i] ?? null);
    const type = typeOf(key);
    if (i === 0) {
      required = type;
      if (type !== "number" && type !== "string") {
        throw evaluationError("invalid-type", `Invalid type: unexpected type (${type})`);
      }
    } else if (type !== required) {
      throw evaluationError("invalid-type", `Invalid type: expected (${required}), received ${type}`);
    }
    keys.push(key);
  }
  meter.step(sortSteps(n));
  const order: number[] = [];
  for (let i = 0; i < n; i += 1) order.push(i);
  // Array.prototype.sort is stable; ties keep their input order, as the spec requires.
  order.sort((a, b) => compareKeys(keys[a] ?? null, keys[b] ?? null, meter));
  return order.map((i) => values[i] ?? null);
}

function groupByImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const values = arr(args, 0);
  const expref = ref(args, 1);
  const meter = ctx.meter;
  // Groups are collected in a Map: the library's `acc[key] = acc[key] || []` reads `constructor` off the
  // prototype and sets the prototype for `__proto__`.
  const groups = new Map<string, JsonValue[]>();
  for (let i = 0; i < values.length; i += 1) {
    meter.step();
    const element = values[i] ?? null;
    // As the library: a null element is keyed as if it were an empty object.
    const key = keyOf(ctx, expref, element ?? {}, ["string"]) as string;
    let group = groups.get(key);
    if (group === undefined) {
      meter.alloc(BYTES_PER_MEMBER);
      group = [];
      groups.set(key, group);
    }
    meter.alloc(BYTES_PER_SLOT);
    group.push(element);
  }
  const result: JsonObject = {};
  for (const [key, group] of groups) setOwn(result, key, group);
  return result;
}

function mergeImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const result: JsonObject = {};
  for (let i = 0; i < args.length; i += 1) {
    const source = obj(args, i);
    const keys = Object.keys(source);
    ctx.meter.step(keys.length);
    ctx.meter.alloc(keys.length * BYTES_PER_MEMBER);
    // `Object.assign` would invoke the `__proto__` setter for an own `__proto__` key and change the prototype.
    for (const key of keys) setOwn(result, key, source[key] ?? null);
  }
  return result;
}

function fromItemsImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const pairs = arr(args, 0);
  ctx.meter.step(pairs.length);
  ctx.meter.alloc(pairs.length * BYTES_PER_MEMBER);
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string") {
      throw evaluationError(
        "invalid-value",
        "invalid value, each array must contain two elements, a pair of string and value",
      );
    }
  }
  const result: JsonObject = {};
  for (const pair of pairs) {
    const [key, value] = pair as [string, JsonValue];
    setOwn(result, key, value);
  }
  return result;
}

function zipImpl(ctx: FunctionContext, args: readonly Value[]): JsonValue {
  const arrays = args.map((_, i) => arr(args, i));
  let length = Number.POSITIVE_INFINITY;
  for (const array of arrays) length = Math.min(length, array.length);
  if (!Number.isFinite(length)) length = 0;
  ctx.meter.step(length * arrays.length);
  ctx.meter.alloc(length * (arrays.length + 1) * BYTES_PER_SLOT);
  const result: JsonValue[] = [];
  for (let i = 0; i < length; i += 1) result.push(arrays.map((array) => array[i] ?? null));
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// The function table
// ---------------------------------------------------------------------------------------------------------------

const NUMBER: readonly FunctionParam[] = [{ types: ["number"] }];
const STRING: readonly FunctionParam[] = [{ types: ["string"] }];
const OBJECT: readonly FunctionParam[] = [{ types: ["object"] }];
const ANY: readonly FunctionParam[] = [{ types: ["any"] }];
const ARRAY_NUMBER: readonly FunctionParam[] = [{ types: ["array-number"] }];
const STRING_STRING: readonly FunctionParam[] = [{ types: ["string"] }, { types: ["string"] }];
const ARRAY_EXPREF: readonly FunctionParam[] = [{ types: ["array"] }, { types: ["expression"] }];
const FIND: readonly FunctionParam[] = [
  { types: ["string"] },
  { types: ["string"] },
  { types: ["number"], optional: true },
  { types: ["number"], optional: true },
];
const PAD: readonly FunctionParam[] = [
  { types: ["string"] },
  { types: ["number"] },
  { types: ["string"], optional: true },
];
const TRIM: readonly FunctionParam[] = [{ types: ["string"] }, { types: ["string"], optional: true }];

function sumOf(ctx: FunctionContext, values: readonly JsonValue[]): number {
  ctx.meter.step(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i += 1) sum += values[i] as number;
  return ensureFinite(sum);
}

const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  ["abs", { params: NUMBER, impl: (args) => Math.abs(num(args, 0)) }],
  ["ceil", { params: NUMBER, impl: (args) => Math.ceil(num(args, 0)) }],
  ["floor", { params: NUMBER, impl: (args) => Math.floor(num(args, 0)) }],
  ["lower", { params: STRING, impl: (args, ctx) => caseImpl(ctx, args, false) }],
  ["upper", { params: STRING, impl: (args, ctx) => caseImpl(ctx, args, true) }],
  [
    "keys",
    {
      params: OBJECT,
      impl: (args, ctx) => {
        const keys = Object.keys(obj(args, 0));
        ctx.meter.step(keys.length);
        ctx.meter.alloc(keys.length * BYTES_PER_SLOT);
        return keys;
      },
    },
  ],
  [
    "values",
    {
      params: OBJECT,
      impl: (args, ctx) => {
        const values = Object.values(obj(args, 0));
        ctx.meter.step(values.length);
        ctx.meter.alloc(values.length * BYTES_PER_SLOT);
        return values;
      },
    },
  ],
  [
    "avg",
    {
      params: ARRAY_NUMBER,
      impl: (args, ctx) => {
        const values = arr(args, 0);
        if (values.length === 0) return null;
        return ensureFinite(sumOf(ctx, values) / values.length);
      },
    },
  ],
  [
    "contains",
    {
      params: [{ types: ["string", "array"] }, { types: ["any"] }],
      impl: (args, ctx) => {
        const subject = args[0];
        const search = json(args, 1);
        if (Array.isArray(subject)) {
          // Divergence: the library uses `Array.prototype.includes`, which compares objects and arrays by
          // reference; the spec compares with JMESPath equality.
          for (let i = 0; i < subject.length; i += 1) {
            if (deepEqual(subject[i] ?? null, search, ctx.meter)) return true;
          }
          return false;
        }
        const text = str(args, 0);
        // Divergence: the library returns null for a non-string search in a string; the spec says false.
        if (typeof search !== "string") return false;
        ctx.meter.scan(text.length + search.length);
        return text.includes(search);
      },
    },
  ],
  [
    "ends_with",
    {
      params: STRING_STRING,
      impl: (args, ctx) => {
        const suffix = str(args, 1);
        ctx.meter.scan(suffix.length);
        return str(args, 0).endsWith(suffix);
      },
    },
  ],
  [
    "starts_with",
    {
      params: STRING_STRING,
      impl: (args, ctx) => {
        const prefix = str(args, 1);
        ctx.meter.scan(prefix.length);
        return str(args, 0).startsWith(prefix);
      },
    },
  ],
  ["find_first", { params: FIND, impl: (args, ctx) => findImpl(ctx, args, false) }],
  ["find_last", { params: FIND, impl: (args, ctx) => findImpl(ctx, args, true) }],
  ["from_items", { params: [{ types: ["array-array"] }], impl: (args, ctx) => fromItemsImpl(ctx, args) }],
  ["group_by", { params: ARRAY_EXPREF, impl: (args, ctx) => groupByImpl(ctx, args) }],
  [
    "items",
    {
      params: OBJECT,
      impl: (args, ctx) => {
        const source = obj(args, 0);
        const keys = Object.keys(source);
        ctx.meter.step(keys.length);
        ctx.meter.alloc(keys.length * BYTES_PER_SLOT * 3);
        return keys.map((key): JsonValue => [key, source[key] ?? null]);
      },
    },
  ],
  [
    "join",
    {
      params: [{ types: ["string"] }, { types: ["array-string"] }],
      impl: (args, ctx) => {
        const glue = str(args, 0);
        const list = arr(args, 1) as readonly string[];
        ctx.meter.step(list.length);
        let total = Math.max(list.length - 1, 0) * glue.length;
        for (let i = 0; i < list.length; i += 1) total += (list[i] as string).length;
        ctx.meter.alloc(total);
        return list.join(glue);
      },
    },
  ],
  [
    "length",
    {
      params: [{ types: ["string", "array", "object"] }],
      impl: (args, ctx) => {
        const value = args[0];
        if (typeof value === "string") {
          ctx.meter.scan(value.length);
          return countCodePoints(value);
        }
        if (Array.isArray(value)) return value.length;
        const count = countOwnKeys(obj(args, 0));
        ctx.meter.scan(count);
        return count;
      },
    },
  ],
  [
    "map",
    {
      params: [{ types: ["expression"] }, { types: ["array"] }],
      impl: (args, ctx) => {
        const expref = ref(args, 0);
        const values = arr(args, 1);
        ctx.meter.alloc(values.length * BYTES_PER_SLOT);
        const result: JsonValue[] = [];
        for (let i = 0; i < values.length; i += 1) {
          ctx.meter.step();
          result.push(ctx.evaluateRef(expref, values[i] ?? null));
        }
        return result;
      },
    },
  ],
  ["max", { params: [{ types: ["array-number", "array-string"] }], impl: (args, ctx) => extremeImpl(ctx, args, true) }],
  [
    "min",
    { params: [{ types: ["array-number", "array-string"] }], impl: (args, ctx) => extremeImpl(ctx, args, false) },
  ],
  ["max_by", { params: ARRAY_EXPREF, impl: (args, ctx) => extremeByImpl(ctx, args, true) }],
  ["min_by", { params: ARRAY_EXPREF, impl: (args, ctx) => extremeByImpl(ctx, args, false) }],
  ["merge", { params: [{ types: ["object"], variadic: true }], impl: (args, ctx) => mergeImpl(ctx, args) }],
  [
    "not_null",
    {
      params: [{ types: ["any"], variadic: true }],
      impl: (args) => {
        for (let i = 0; i < args.length; i += 1) {
          const value = json(args, i);
          if (value !== null) return value;
        }
        return null;
      },
    },
  ],
  ["pad_left", { params: PAD, impl: (args, ctx) => padImpl(ctx, args, "pad_left", true) }],
  ["pad_right", { params: PAD, impl: (args, ctx) => padImpl(ctx, args, "pad_right", false) }],
  [
    "replace",
    {
      params: [
        { types: ["string"] },
        { types: ["string"] },
        { types: ["string"] },
        { types: ["number"], optional: true },
      ],
      impl: (args, ctx) => replaceImpl(ctx, args),
    },
  ],
  [
    "reverse",
    {
      params: [{ types: ["string", "array"] }],
      impl: (args, ctx) => {
        const value = args[0];
        if (typeof value === "string") return reverseString(ctx, value);
        const values = arr(args, 0);
        ctx.meter.step(values.length);
        ctx.meter.alloc(values.length * BYTES_PER_SLOT);
        const result: JsonValue[] = [];
        for (let i = values.length - 1; i >= 0; i -= 1) result.push(values[i] ?? null);
        return result;
      },
    },
  ],
  [
    "sort",
    {
      params: [{ types: ["array-string", "array-number"] }],
      impl: (args, ctx) => {
        const values = arr(args, 0);
        const meter = ctx.meter;
        meter.step(sortSteps(values.length));
        meter.alloc(values.length * BYTES_PER_SLOT);
        const copy = values.slice();
        if (typeof copy[0] === "string") {
          (copy as string[]).sort((a, b) => compareStrings(a, b, meter));
        } else {
          // The library calls `sort()` without a comparator, which orders numbers as text (10 before 9).
          (copy as number[]).sort((a, b) => a - b);
        }
        return copy;
      },
    },
  ],
  ["sort_by", { params: ARRAY_EXPREF, impl: (args, ctx) => sortByImpl(ctx, args) }],
  [
    "split",
    {
      params: [{ types: ["string"] }, { types: ["string"] }, { types: ["number"], optional: true }],
      impl: (args, ctx) => splitImpl(ctx, args),
    },
  ],
  ["sum", { params: ARRAY_NUMBER, impl: (args, ctx) => sumOf(ctx, arr(args, 0)) }],
  [
    "to_array",
    {
      params: ANY,
      impl: (args, ctx) => {
        const value = json(args, 0);
        if (Array.isArray(value)) return value;
        ctx.meter.alloc(BYTES_PER_SLOT);
        return [value];
      },
    },
  ],
  [
    "to_number",
    {
      params: ANY,
      impl: (args, ctx) => {
        const value = json(args, 0);
        if (typeof value === "number") return value;
        if (typeof value !== "string") return null;
        ctx.meter.scan(value.length);
        // As the library: JavaScript's numeric conversion (so "" is 0 and "0x1A" is 26). Infinity, which the
        // library returns for "1e400", is not JSON; it becomes null here (it serialises as null there too).
        const converted = Number(value);
        return Number.isFinite(converted) ? converted : null;
      },
    },
  ],
  [
    "to_string",
    {
      params: ANY,
      impl: (args, ctx) => {
        const value = json(args, 0);
        if (typeof value === "string") return value;
        const remaining = ctx.meter.remainingBytes;
        const length = jsonLength(value, remaining);
        ctx.meter.scan(length);
        ctx.meter.alloc(length);
        return stringifyJson(value);
      },
    },
  ],
  ["trim", { params: TRIM, impl: (args, ctx) => trimImpl(ctx, args, true, true) }],
  ["trim_left", { params: TRIM, impl: (args, ctx) => trimImpl(ctx, args, true, false) }],
  ["trim_right", { params: TRIM, impl: (args, ctx) => trimImpl(ctx, args, false, true) }],
  ["type", { params: ANY, impl: (args) => typeOf(json(args, 0)) }],
  ["zip", { params: [{ types: ["array"], variadic: true }], impl: (args, ctx) => zipImpl(ctx, args) }],
]);

/** The names of all built-in functions (for tests that compare with the library's table). */
export const FUNCTION_NAMES: readonly string[] = Object.freeze([...FUNCTIONS.keys()]);

/**
 * The signature of every built-in function, for the compiler's static checks: the same table the interpreter
 * validates calls against, so build-time and run-time arity and expression-argument rules cannot drift apart.
 */
export const FUNCTION_SIGNATURES: ReadonlyMap<string, readonly FunctionParam[]> = new Map(
  [...FUNCTIONS].map(([name, def]): [string, readonly FunctionParam[]] => [name, def.params]),
);

// ---------------------------------------------------------------------------------------------------------------
// Validation and dispatch
// ---------------------------------------------------------------------------------------------------------------

function validateArity(name: string, args: readonly Value[], params: readonly FunctionParam[]): void {
  const required = params.filter((param) => !(param.optional ?? false)).length;
  const variadic = params[params.length - 1]?.variadic ?? false;
  const tooFew = args.length < required;
  const tooMany = args.length > params.length;
  if ((variadic && tooFew) || (!variadic && (tooFew || tooMany))) {
    const atLeast = tooFew && ((!variadic && required > 1) || variadic) ? "at least " : "";
    const plural = params.length > 1 ? "s" : "";
    throw evaluationError(
      "invalid-arity",
      `Invalid arity: ${name}() takes ${atLeast}${required} argument${plural} but received ${args.length}`,
    );
  }
}

function matches(expected: ParamType, actual: TypeName, value: Value, meter: Meter): boolean {
  // Divergence: the library lets `any` accept an expression reference (so `to_string(&a)` prints the syntax
  // tree); here only parameters declared as expressions take one.
  if (expected === "any") return actual !== "expression";
  const elementType = ELEMENT_TYPES[expected];
  if (elementType === undefined) return actual === expected;
  if (!Array.isArray(value)) return false;
  meter.step(value.length);
  for (let i = 0; i < value.length; i += 1) {
    if (typeOf(value[i]) !== elementType) return false;
  }
  return true;
}

function validateTypes(name: string, args: readonly Value[], params: readonly FunctionParam[], meter: Meter): void {
  const last = params[params.length - 1];
  for (let i = 0; i < args.length; i += 1) {
    // Divergence: the library checks only as many arguments as the signature lists, so the extra arguments of a
    // variadic function (`merge({}, \`1\`)`) go unchecked; every argument is checked here.
    const param = params[i] ?? (last?.variadic === true ? last : undefined);
    if (param === undefined) continue;
    const value = args[i] as Value;
    const actual = typeOf(value);
    if (!param.types.some((expected) => matches(expected, actual, value, meter))) {
      const expected = param.types.map((type) => PARAM_TYPE_NAMES[type]).join(" | ");
      throw evaluationError(
        "invalid-type",
        `Invalid type: ${name}() expected argument ${i + 1} to be type (${expected}) but received type ${actual} instead.`,
      );
    }
  }
}

/** Calls a built-in function with evaluated arguments; unknown names are evaluation errors. */
export function callFunction(name: string, args: readonly Value[], ctx: FunctionContext): JsonValue {
  const def = FUNCTIONS.get(name);
  if (def === undefined) throw evaluationError("unknown-function", `Unknown function: ${name}()`);
  validateArity(name, args, def.params);
  validateTypes(name, args, def.params, ctx.meter);
  return def.impl(args, ctx);
}
