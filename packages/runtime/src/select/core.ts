/**
 * Building blocks of the select interpreter: the error type, the budget meter, lexical scopes, expression
 * references, and JSON helpers that never recurse on the depth of the data.
 *
 * The data is hostile upstream JSON. It can be nested far deeper than the call stack allows, hold megabytes of
 * text, and use keys such as `__proto__` or `constructor`. Every helper here therefore reads own properties only,
 * creates object members with `Object.defineProperty` (never `obj[key] = value`), walks nested values with an
 * explicit stack, and charges its work to a `Meter` before it allocates anything large.
 */
import type { JsonObject, JsonValue, SelectNode } from "./ast.ts";

// ---------------------------------------------------------------------------------------------------------------
// Budgets and errors
// ---------------------------------------------------------------------------------------------------------------

/** The limits of one `evaluateSelect()` call. See the comment at the top of `evaluate.ts` for what is counted. */
export interface SelectBudget {
  /** Node visits plus elements iterated by projections and functions (see `evaluate.ts`). */
  maxSteps: number;
  /** Bytes of strings, arrays and objects the expression builds, and the size of the serialised result. */
  maxBytes: number;
}

/**
 * One million steps is far above what realistic selections need (projecting a few fields out of a few hundred
 * records takes a few thousand) while keeping the worst case to a fraction of a second of CPU.
 */
export const DEFAULT_MAX_STEPS = 1_000_000;

/** 16 MiB: also the largest result the server serialises (evaluateSelect checks the result's serialised size). */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

export const DEFAULT_SELECT_BUDGET: SelectBudget = Object.freeze({
  maxSteps: DEFAULT_MAX_STEPS,
  maxBytes: DEFAULT_MAX_BYTES,
});

/**
 * How deeply `evaluateSelect()` may nest node visits. The nesting follows the expression, never the data, and a
 * 1000-character expression rarely nests past a few dozen levels; the cap keeps a pathological tree (a chain of
 * hundreds of `!`) far away from the native stack limit.
 */
export const SELECT_MAX_NESTING = 256;

/** Bytes charged for each slot of an array the interpreter builds (a pointer on a 64-bit engine). */
export const BYTES_PER_SLOT = 8;

/** Bytes charged for each member of an object the interpreter builds (key and value pointers). */
export const BYTES_PER_MEMBER = 16;

/**
 * Work on characters (searching, comparing, case mapping, counting code points) is far cheaper per unit than a
 * node visit, so it costs one step per this many UTF-16 code units, plus one.
 */
export const CODE_UNITS_PER_STEP = 32;

export type SelectErrorKind = "budget" | "evaluation";

/**
 * Why evaluation failed. The evaluation codes are the error kinds of the JMESPath compliance suite (plus
 * `invalid-expression` for a malformed tree and `internal` for a bug); the budget codes name the exceeded limit.
 */
export type SelectErrorCode =
  | "invalid-type"
  | "invalid-value"
  | "invalid-arity"
  | "unknown-function"
  | "not-a-number"
  | "undefined-variable"
  | "invalid-expression"
  | "internal"
  | "max-steps"
  | "max-bytes"
  | "max-nesting";

export class SelectError extends Error {
  /** `budget`: a limit stopped the evaluation; `evaluation`: the expression does not apply to this data. */
  readonly kind: SelectErrorKind;
  /** A finer classification, stable for tests and logs. */
  readonly code: SelectErrorCode;

  constructor(kind: SelectErrorKind, code: SelectErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SelectError";
    this.kind = kind;
    this.code = code;
  }
}

/** An evaluation error; the message follows the wording of @jmespath-community/jmespath where it has one. */
export function evaluationError(code: SelectErrorCode, message: string): SelectError {
  return new SelectError("evaluation", code, message);
}

/**
 * Counts steps and bytes for one evaluation and throws a budget error as soon as either limit is passed.
 * Callers charge bytes before they allocate, so an over-budget string or array is never created.
 */
export class Meter {
  readonly maxSteps: number;
  readonly maxBytes: number;
  steps = 0;
  bytes = 0;

  constructor(budget: SelectBudget) {
    this.maxSteps = budget.maxSteps;
    this.maxBytes = budget.maxBytes;
  }

  step(count = 1): void {
    this.steps += count;
    if (this.steps > this.maxSteps) {
      throw new SelectError("budget", "max-steps", `exceeded the maxSteps budget (${this.maxSteps} steps)`);
    }
  }

  /** Charges work over `units` UTF-16 code units. */
  scan(units: number): void {
    this.step(1 + Math.floor(units / CODE_UNITS_PER_STEP));
  }

  /** Charges `bytes` of new strings or containers; written so that NaN or a huge count fails closed. */
  alloc(bytes: number): void {
    if (!(bytes <= this.maxBytes - this.bytes)) throw this.bytesError();
    this.bytes += bytes;
  }

  /** Throws if `bytes` more would not fit, without charging them (for worst-case bounds checked up front). */
  ensureFits(bytes: number): void {
    if (!(bytes <= this.maxBytes - this.bytes)) throw this.bytesError();
  }

  get remainingBytes(): number {
    return this.maxBytes - this.bytes;
  }

  bytesError(): SelectError {
    return new SelectError("budget", "max-bytes", `exceeded the maxBytes budget (${this.maxBytes} bytes)`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Scopes and expression references
// ---------------------------------------------------------------------------------------------------------------

/**
 * A `let` scope. Variables live in a Map, not in an object, so no variable name can reach a prototype property.
 */
export class Scope {
  readonly parent: Scope | null;
  readonly vars: ReadonlyMap<string, Value>;

  constructor(parent: Scope | null, vars: ReadonlyMap<string, Value>) {
    this.parent = parent;
    this.vars = vars;
  }

  /** The innermost binding of `name`, or undefined. A binding to null or false is found like any other. */
  static lookup(scope: Scope | null, name: string): Value | undefined {
    for (let s = scope; s !== null; s = s.parent) {
      if (s.vars.has(name)) return s.vars.get(name);
    }
    return undefined;
  }
}

/**
 * The value of `&expr`: the expression together with the scope it was written in, so that `let` variables stay
 * visible when a function such as `map` evaluates it later. A class instance cannot be forged by data, unlike the
 * library's `{expref: true, ...node}` objects.
 */
export class Expref {
  readonly node: SelectNode;
  readonly scope: Scope | null;

  constructor(node: SelectNode, scope: Scope | null) {
    this.node = node;
    this.scope = scope;
  }
}

/** What a function argument or a variable can hold: JSON data, or an expression reference. */
export type Value = JsonValue | Expref;

/** The JMESPath type names, as the library reports them in messages. */
export type TypeName = "null" | "boolean" | "number" | "string" | "array" | "object" | "expression";

export function typeOf(value: Value | undefined): TypeName {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    default:
      if (Array.isArray(value)) return "array";
      if (value instanceof Expref) return "expression";
      return "object";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Own-property access and safe construction
// ---------------------------------------------------------------------------------------------------------------

export function isJsonObject(value: Value | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Expref);
}

/** `obj[key]` for an own property only: `constructor`, `__proto__` or `toString` on plain data give null. */
export function getOwn(obj: JsonObject, key: string): JsonValue {
  if (!Object.hasOwn(obj, key)) return null;
  return obj[key] ?? null;
}

/**
 * Creates or replaces the own data property `key`. `defineProperty` never invokes the `__proto__` setter, so a
 * key `"__proto__"` becomes an ordinary member and no prototype changes.
 */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  // Assignment creates the same own data property for every key but "__proto__" (the one accessor on
  // Object.prototype), and is much cheaper than defineProperty on the hot path of every projection.
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** True if the object has at least one own enumerable string key; stops at the first. */
export function hasOwnKeys(obj: JsonObject): boolean {
  for (const key in obj) {
    if (Object.hasOwn(obj, key)) return true;
  }
  return false;
}

/** The number of own enumerable string keys, without allocating the key list. */
export function countOwnKeys(obj: JsonObject): number {
  let count = 0;
  for (const key in obj) {
    if (Object.hasOwn(obj, key)) count += 1;
  }
  return count;
}

/** JMESPath falsiness: null, false, "", [] and {} are false; everything else (including 0) is true. */
export function isFalse(value: JsonValue): boolean {
  if (value === null || value === false || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return !hasOwnKeys(value);
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------------------------

const SURROGATE = /[\uD800-\uDFFF]/;

export function hasSurrogates(text: string): boolean {
  return SURROGATE.test(text);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** The number of code points (a lone surrogate counts as one), like `[...text].length` without the array. */
export function countCodePoints(text: string): number {
  if (!hasSurrogates(text)) return text.length;
  let count = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1))) i += 1;
    count += 1;
  }
  return count;
}

/**
 * Orders strings by code point, as the library's `sort` does, but returns 0 for equal strings (the library never
 * does, which makes its `sort_by` unstable). The scanned prefix is charged, so sorting many copies of one long
 * string stays within the step budget.
 */
export function compareStrings(a: string, b: string, meter: Meter): number {
  if (a === b) {
    // The engine compares equal strings natively; charge what a scan would have cost all the same.
    meter.scan(a.length);
    return 0;
  }
  const shorter = Math.min(a.length, b.length);
  let i = 0;
  while (i < shorter && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  meter.scan(i);
  if (i === shorter) return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  // Code unit order equals code point order except around surrogates; compare whole code points there. If the
  // shared prefix ends with a high surrogate, the differing code points start one unit earlier.
  const at =
    i > 0 &&
    isHighSurrogate(a.charCodeAt(i - 1)) &&
    (isLowSurrogate(a.charCodeAt(i)) || isLowSurrogate(b.charCodeAt(i)))
      ? i - 1
      : i;
  const cpA = a.codePointAt(at) ?? 0;
  const cpB = b.codePointAt(at) ?? 0;
  return cpA < cpB ? -1 : cpA > cpB ? 1 : 0;
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\uD800-\uDFFF]/;

/** The length of `JSON.stringify(text)`, quotes included, without building it. */
export function jsonStringLength(text: string): number {
  if (!NEEDS_ESCAPE.test(text)) return text.length + 2;
  let length = 2;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit === 0x22 || unit === 0x5c) {
      length += 2;
    } else if (unit < 0x20) {
      // \b \t \n \f \r have two-character escapes; the other control characters become \u00XX.
      length += unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
    } else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      length += 2;
      i += 1;
    } else if (isHighSurrogate(unit) || isLowSurrogate(unit)) {
      // Well-formed JSON.stringify escapes a lone surrogate as \uXXXX.
      length += 6;
    } else {
      length += 1;
    }
  }
  return length;
}

function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}

// ---------------------------------------------------------------------------------------------------------------
// Iterative walks over JSON
// ---------------------------------------------------------------------------------------------------------------

/** A container being walked: the array, or the object with its key list, and the next position. */
interface WalkFrame {
  readonly array: readonly unknown[] | null;
  readonly object: JsonObject | null;
  readonly keys: readonly string[];
  index: number;
  members: number;
}

/** JSON.stringify skips members whose value it cannot represent and writes such array elements as null. */
function isSkippable(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function openFrame(value: object): WalkFrame {
  return Array.isArray(value)
    ? { array: value, object: null, keys: [], index: 0, members: 0 }
    : { array: null, object: value as JsonObject, keys: Object.keys(value), index: 0, members: 0 };
}

/**
 * The length of `JSON.stringify(value)` in UTF-16 code units, computed without building the string and without
 * recursion. Counting stops as soon as the length exceeds `limit`, and the (partial) count returned is then
 * greater than `limit`. Structure that is shared (the same array referenced many times) is counted every time it
 * is referenced, exactly as it would be serialised.
 */
export function jsonLength(value: JsonValue, limit: number): number {
  let total = 0;
  const stack: WalkFrame[] = [];
  let pending: unknown = value;
  let hasPending = true;
  for (;;) {
    if (hasPending) {
      hasPending = false;
      const item = isSkippable(pending) ? null : pending;
      if (item === null) total += 4;
      else if (typeof item === "string") total += jsonStringLength(item);
      else if (typeof item === "number") total += jsonNumber(item).length;
      else if (typeof item === "boolean") total += item ? 4 : 5;
      else if (typeof item === "object") {
        total += 1;
        stack.push(openFrame(item));
      } else total += 4;
    }
    if (total > limit) return total;
    const frame = stack[stack.length - 1];
    if (frame === undefined) return total;
    if (frame.array !== null) {
      if (frame.index >= frame.array.length) {
        total += 1;
        stack.pop();
        continue;
      }
      if (frame.index > 0) total += 1;
      pending = frame.array[frame.index];
      frame.index += 1;
      hasPending = true;
      continue;
    }
    const object = frame.object as JsonObject;
    while (frame.index < frame.keys.length) {
      const key = frame.keys[frame.index] as string;
      frame.index += 1;
      const member = object[key];
      if (isSkippable(member)) continue;
      if (frame.members > 0) total += 1;
      frame.members += 1;
      total += jsonStringLength(key) + 1;
      pending = member;
      hasPending = true;
      break;
    }
    if (!hasPending) {
      total += 1;
      stack.pop();
    }
  }
}

/**
 * `JSON.stringify(value)` without recursion, so that deeply nested data cannot overflow the stack. Callers bound
 * the size first with `jsonLength`. Output is collected in chunks to keep the temporary arrays small.
 */
export function stringifyJson(value: JsonValue): string {
  const chunks: string[] = [];
  let parts: string[] = [];
  const emit = (text: string): void => {
    parts.push(text);
    if (parts.length >= 4096) {
      chunks.push(parts.join(""));
      parts = [];
    }
  };
  const stack: WalkFrame[] = [];
  let pending: unknown = value;
  let hasPending = true;
  for (;;) {
    if (hasPending) {
      hasPending = false;
      const item = isSkippable(pending) ? null : pending;
      if (item === null) emit("null");
      else if (typeof item === "string") emit(JSON.stringify(item));
      else if (typeof item === "number") emit(jsonNumber(item));
      else if (typeof item === "boolean") emit(item ? "true" : "false");
      else if (typeof item === "object") {
        emit(Array.isArray(item) ? "[" : "{");
        stack.push(openFrame(item));
      } else emit("null");
    }
    const frame = stack[stack.length - 1];
    if (frame === undefined) break;
    if (frame.array !== null) {
      if (frame.index >= frame.array.length) {
        emit("]");
        stack.pop();
        continue;
      }
      if (frame.index > 0) emit(",");
      pending = frame.array[frame.index];
      frame.index += 1;
      hasPending = true;
      continue;
    }
    const object = frame.object as JsonObject;
    while (frame.index < frame.keys.length) {
      const key = frame.keys[frame.index] as string;
      frame.index += 1;
      const member = object[key];
      if (isSkippable(member)) continue;
      emit(frame.members > 0 ? `,${JSON.stringify(key)}:` : `${JSON.stringify(key)}:`);
      frame.members += 1;
      pending = member;
      hasPending = true;
      break;
    }
    if (!hasPending) {
      emit("}");
      stack.pop();
    }
  }
  chunks.push(parts.join(""));
  return chunks.join("");
}

/**
 * JMESPath equality: deep, by value, with key order ignored; without recursion. Every compared pair costs a step
 * and compared strings cost their length, so comparing two huge (or hugely shared) values hits the budget.
 */
export function deepEqual(left: JsonValue, right: JsonValue, meter: Meter): boolean {
  const stack: JsonValue[] = [left, right];
  while (stack.length > 0) {
    const b = stack.pop() as JsonValue;
    const a = stack.pop() as JsonValue;
    meter.step();
    if (a === b) {
      if (typeof a === "string") meter.scan(a.length);
      continue;
    }
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
      if (typeof a === "string" && typeof b === "string") meter.scan(Math.min(a.length, b.length));
      return false;
    }
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      // Pushed in reverse so that elements are compared left to right.
      for (let i = a.length - 1; i >= 0; i -= 1) stack.push(a[i] ?? null, b[i] ?? null);
      continue;
    }
    if (Array.isArray(b)) return false;
    const keys = Object.keys(a);
    meter.step(keys.length);
    if (keys.length !== countOwnKeys(b)) return false;
    for (const key of keys) {
      if (!Object.hasOwn(b, key)) return false;
      stack.push(a[key] ?? null, b[key] ?? null);
    }
  }
  return true;
}

/**
 * A deep copy of a JSON value, charged to the meter; used for literals so that no result ever shares structure
 * with the (frozen) syntax tree. Members are created with `setOwn`, so a literal `{"__proto__": ...}` stays data.
 */
export function cloneJson(value: JsonValue, meter: Meter): JsonValue {
  if (value === null || typeof value !== "object") return value;
  const root: JsonValue[] | JsonObject = Array.isArray(value) ? [] : {};
  const stack: Array<[JsonValue[] | JsonObject, JsonValue[] | JsonObject]> = [[value, root]];
  const copyOf = (item: JsonValue): JsonValue => {
    if (item === null || typeof item !== "object") return item;
    const copy: JsonValue[] | JsonObject = Array.isArray(item) ? [] : {};
    stack.push([item, copy]);
    return copy;
  };
  while (stack.length > 0) {
    const [source, target] = stack.pop() as [JsonValue[] | JsonObject, JsonValue[] | JsonObject];
    meter.step();
    if (Array.isArray(source)) {
      meter.alloc(source.length * BYTES_PER_SLOT);
      const out = target as JsonValue[];
      for (let i = 0; i < source.length; i += 1) out.push(copyOf(source[i] ?? null));
    } else {
      const keys = Object.keys(source);
      meter.alloc(keys.length * BYTES_PER_MEMBER);
      for (const key of keys) setOwn(target as JsonObject, key, copyOf(source[key] ?? null));
    }
  }
  return root;
}
