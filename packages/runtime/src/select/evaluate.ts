/**
 * A bounded interpreter for the JMESPath trees that `output.select` compiles to.
 *
 * The compiler parses each expression with @jmespath-community/jmespath 1.3.0 at build time and emits the tree
 * as plain JSON; the generated server evaluates it here, over the upstream response, which is hostile input. We
 * do not ship the library's own interpreter because it:
 * - reads inherited properties (`a.constructor` yields a function, `toString` a method);
 * - assigns data keys with `obj[key] = ...` and `Object.assign`, so a `__proto__` key in `merge`, `group_by` or a
 *   multi-select hash replaces the prototype of the result;
 * - returns literal values by reference, so results share (and callers could mutate) the syntax tree;
 * - sorts numbers as text (`sort([10, 9])` is `[10, 9]`), loses `let` variables inside `&expr`, and has smaller
 *   bugs listed in `test/select/compliance.test.ts`;
 * - builds strings and arrays of any size (`pad_left('a', \`500000000\`)`, `join` over a shared megabyte string)
 *   and recurses on the depth of the data, so one response can exhaust memory or the stack;
 * - would ship its parser, which the generated server never needs.
 *
 * Budgets (`SelectBudget`, defaults in `DEFAULT_SELECT_BUDGET`):
 * - maxSteps (default 1,000,000) bounds CPU. One step is charged for every node visit, for every element that a
 *   projection, filter or function iterates over (including the element checks of typed array arguments), for
 *   every pair of values compared by `==`/`!=`/`contains` (a deep comparison costs one step per node pair), and
 *   n·log2(n) for a sort of n elements. Work on characters (search, comparison, case mapping, trimming, code
 *   point counting) costs one step per 32 UTF-16 code units.
 * - maxBytes (default 16 MiB) bounds memory. One byte is charged per UTF-16 code unit of every string the
 *   expression builds (join, pad_left/pad_right, replace, upper/lower, to_string, split pieces, trims, slices,
 *   reverse), 8 bytes per slot of every array it builds, and 16 bytes per member of every object it builds,
 *   always before allocating. Values taken from the input are not charged, since they already exist. The result
 *   must also serialise to at most maxBytes UTF-16 code units: sharing lets a tiny tree stand for a huge
 *   document (`[@, @]` piped 30 times), and the caller is going to serialise it.
 * - Nesting: node visits nest at most `SELECT_MAX_NESTING` deep. Nesting follows the expression, never the data;
 *   everything that walks data (equality, to_string, jsonLength, literal copies) uses an explicit stack.
 * Exceeding any of these throws `SelectError` with kind "budget"; a type, arity, value or unknown-function error
 * throws kind "evaluation", with a message worded like the library's.
 *
 * Safety: only own properties are read, result objects get their members through `Object.defineProperty`, and
 * the (deep-frozen) tree is never mutated or returned: literals are copied on every evaluation.
 */
import type {
  IndexExpressionNode,
  JsonObject,
  JsonValue,
  PipeNode,
  SelectNode,
  SliceNode,
  SubexpressionNode,
} from "./ast.ts";
import {
  BYTES_PER_MEMBER,
  BYTES_PER_SLOT,
  cloneJson,
  countCodePoints,
  DEFAULT_SELECT_BUDGET,
  deepEqual,
  evaluationError,
  Expref,
  getOwn,
  hasSurrogates,
  isFalse,
  isJsonObject,
  jsonLength,
  Meter,
  Scope,
  SELECT_MAX_NESTING,
  type SelectBudget,
  SelectError,
  setOwn,
  typeOf,
  type Value,
} from "./core.ts";
import { callFunction, ensureFinite, type FunctionContext } from "./functions.ts";

export type { JsonValue, SelectNode } from "./ast.ts";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_STEPS,
  DEFAULT_SELECT_BUDGET,
  jsonLength,
  SELECT_MAX_NESTING,
  SelectError,
} from "./core.ts";
export type { SelectBudget, SelectErrorCode, SelectErrorKind } from "./core.ts";

/**
 * Evaluates a compiled `output.select` tree over `data`. Throws `SelectError` (kind "budget" or "evaluation");
 * a budget field that is not a non-negative number is a programming error and throws a RangeError.
 */
export function evaluateSelect(ast: SelectNode, data: JsonValue, budget?: Partial<SelectBudget>): JsonValue {
  const meter = new Meter(budget === undefined ? DEFAULT_SELECT_BUDGET : resolveBudget(budget));
  const interpreter = new Interpreter(meter, data);
  let result: JsonValue;
  try {
    result = interpreter.visit(ast, data, null);
  } catch (error) {
    if (error instanceof SelectError) throw error;
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      // The nesting cap should make this unreachable; report it as the budget it effectively is.
      throw new SelectError("budget", "max-nesting", "exceeded the native stack", { cause: error });
    }
    if (
      error instanceof RangeError &&
      /invalid (string|array|typed array) length|allocation failed/i.test(error.message)
    ) {
      // Only reachable with a maxBytes above what the engine can allocate (V8 strings stop near 2^29 units).
      throw new SelectError("budget", "max-bytes", "exceeded what the engine can allocate", { cause: error });
    }
    throw new SelectError("evaluation", "internal", "internal error while evaluating the expression", { cause: error });
  }
  if (jsonLength(result, meter.maxBytes) > meter.maxBytes) {
    throw new SelectError(
      "budget",
      "max-bytes",
      `exceeded the maxBytes budget (${meter.maxBytes} bytes) with its serialised result`,
    );
  }
  return result;
}

function resolveBudget(budget: Partial<SelectBudget> | undefined): SelectBudget {
  const maxSteps = budget?.maxSteps ?? DEFAULT_SELECT_BUDGET.maxSteps;
  const maxBytes = budget?.maxBytes ?? DEFAULT_SELECT_BUDGET.maxBytes;
  // NaN or a negative limit would silently disable or invert the checks, so refuse it outright.
  for (const [name, value] of [
    ["maxSteps", maxSteps],
    ["maxBytes", maxBytes],
  ] as const) {
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throw new RangeError(`select budget ${name} must be a non-negative number`);
    }
  }
  return { maxSteps, maxBytes };
}

/** The node types whose left-deep chains `chain()` walks iteratively. */
type ChainNode = SubexpressionNode | PipeNode | IndexExpressionNode;

function expressionAsValue(): SelectError {
  return evaluationError(
    "invalid-type",
    "Invalid type: an expression reference (&expr) can only be a function argument",
  );
}

class Interpreter implements FunctionContext {
  readonly meter: Meter;
  private readonly root: JsonValue;
  private depth = 0;

  constructor(meter: Meter, root: JsonValue) {
    this.meter = meter;
    this.root = root;
  }

  evaluateRef(ref: Expref, current: JsonValue): JsonValue {
    return this.visit(ref.node, current, ref.scope);
  }

  /**
   * Evaluates a function argument or a `let` binding: the two places where an expression reference, or a
   * variable holding one, is a legitimate value.
   */
  private visitArgument(node: SelectNode, current: JsonValue, scope: Scope | null): Value {
    if (node.type === "ExpressionReference") {
      this.meter.step();
      return new Expref(node.child, scope);
    }
    if (node.type === "Variable") {
      this.meter.step();
      return this.lookup(node.name, scope);
    }
    return this.visit(node, current, scope);
  }

  private lookup(name: string, scope: Scope | null): Value {
    const value = Scope.lookup(scope, name);
    if (value === undefined) {
      throw evaluationError("undefined-variable", `Error referencing undefined variable ${name}`);
    }
    return value;
  }

  /**
   * Evaluates `node` against `current`. No handler catches errors, so the depth counter needs no `finally`: any
   * exception ends the whole evaluation.
   */
  visit(node: SelectNode, current: JsonValue, scope: Scope | null): JsonValue {
    this.meter.step();
    if (this.depth >= SELECT_MAX_NESTING) {
      throw new SelectError("budget", "max-nesting", `exceeded the nesting budget (${SELECT_MAX_NESTING} levels)`);
    }
    this.depth += 1;
    const result = this.dispatch(node, current, scope);
    this.depth -= 1;
    return result;
  }

  private dispatch(node: SelectNode, current: JsonValue, scope: Scope | null): JsonValue {
    const meter = this.meter;
    switch (node.type) {
      case "Identity":
      case "Current":
        return current;

      case "Root":
        return this.root;

      case "Field":
        return isJsonObject(current) ? getOwn(current, node.name) : null;

      case "Literal":
        return cloneJson(node.value, meter);

      case "Subexpression":
      case "Pipe":
      case "IndexExpression":
        return this.chain(node, current, scope);

      case "Index": {
        if (!Array.isArray(current)) return null;
        const index = node.value < 0 ? current.length + node.value : node.value;
        if (!Number.isInteger(index) || index < 0 || index >= current.length) return null;
        return current[index] ?? null;
      }

      case "Slice":
        return this.slice(node, current);

      case "Projection": {
        const base = this.visit(node.left, current, scope);
        // A slice projection over a string applies the rest of the expression to the sliced string itself.
        if (typeof base === "string" && node.left.type === "IndexExpression" && node.left.right.type === "Slice") {
          return this.visit(node.right, base, scope);
        }
        if (!Array.isArray(base)) return null;
        return this.project(base, node.right, scope);
      }

      case "ValueProjection": {
        const base = this.visit(node.left, current, scope);
        if (!isJsonObject(base)) return null;
        const values = Object.values(base);
        meter.alloc(values.length * BYTES_PER_SLOT);
        return this.project(values, node.right, scope);
      }

      case "FilterProjection": {
        const base = this.visit(node.left, current, scope);
        if (!Array.isArray(base)) return null;
        const collected: JsonValue[] = [];
        for (let i = 0; i < base.length; i += 1) {
          meter.step();
          const element = base[i] ?? null;
          if (isFalse(this.visit(node.condition, element, scope))) continue;
          const value = this.visit(node.right, element, scope);
          if (value !== null) {
            meter.alloc(BYTES_PER_SLOT);
            collected.push(value);
          }
        }
        return collected;
      }

      case "Flatten": {
        const base = this.visit(node.child, current, scope);
        if (!Array.isArray(base)) return null;
        let length = 0;
        for (let i = 0; i < base.length; i += 1) {
          const element = base[i];
          length += Array.isArray(element) ? element.length : 1;
        }
        meter.step(base.length + length);
        meter.alloc(length * BYTES_PER_SLOT);
        const flat: JsonValue[] = [];
        for (let i = 0; i < base.length; i += 1) {
          const element = base[i] ?? null;
          if (Array.isArray(element)) {
            for (let j = 0; j < element.length; j += 1) flat.push(element[j] ?? null);
          } else {
            flat.push(element);
          }
        }
        return flat;
      }

      case "MultiSelectList": {
        meter.alloc(node.children.length * BYTES_PER_SLOT);
        const list: JsonValue[] = [];
        for (const child of node.children) list.push(this.visit(child, current, scope));
        return list;
      }

      case "MultiSelectHash": {
        meter.alloc(node.children.length * BYTES_PER_MEMBER);
        const hash: JsonObject = {};
        for (const pair of node.children) {
          if (pair.type !== "KeyValuePair") throw malformed(pair);
          setOwn(hash, pair.name, this.visit(pair.value, current, scope));
        }
        return hash;
      }

      case "OrExpression": {
        const left = this.visit(node.left, current, scope);
        return isFalse(left) ? this.visit(node.right, current, scope) : left;
      }

      case "AndExpression": {
        const left = this.visit(node.left, current, scope);
        return isFalse(left) ? left : this.visit(node.right, current, scope);
      }

      case "NotExpression":
        return isFalse(this.visit(node.child, current, scope));

      case "Ternary":
        return isFalse(this.visit(node.condition, current, scope))
          ? this.visit(node.falseExpr, current, scope)
          : this.visit(node.trueExpr, current, scope);

      case "Comparator": {
        const left = this.visit(node.left, current, scope);
        const right = this.visit(node.right, current, scope);
        if (node.name === "EQ") return deepEqual(left, right, meter);
        if (node.name === "NE") return !deepEqual(left, right, meter);
        // Ordering is defined for numbers only; anything else compares to null, as in the library.
        if (typeof left !== "number" || typeof right !== "number") return null;
        switch (node.name) {
          case "GT":
            return left > right;
          case "GTE":
            return left >= right;
          case "LT":
            return left < right;
          case "LTE":
            return left <= right;
          default:
            throw malformed(node);
        }
      }

      case "Arithmetic":
        return this.arithmetic(
          node.operator,
          this.visit(node.left, current, scope),
          this.visit(node.right, current, scope),
        );

      case "Unary": {
        const operand = this.visit(node.operand, current, scope);
        if (typeof operand !== "number") throw notANumber(operand);
        if (node.operator === "Plus") return operand;
        if (node.operator === "Minus") return -operand;
        throw malformed(node);
      }

      case "Function": {
        const args: Value[] = [];
        for (const child of node.children) args.push(this.visitArgument(child, current, scope));
        return callFunction(node.name, args, this);
      }

      case "ExpressionReference":
        throw expressionAsValue();

      case "Variable": {
        const value = this.lookup(node.name, scope);
        if (value instanceof Expref) throw expressionAsValue();
        return value;
      }

      case "LetExpression": {
        // All bindings are evaluated in the enclosing scope, then the body sees them together (so in
        // `let $a = 1 in let $a = 2, $b = $a in $b` the result is 1), as the library and the spec do.
        const vars = new Map<string, Value>();
        for (const binding of node.bindings) {
          if (binding.type !== "Binding") throw malformed(binding);
          vars.set(binding.variable, this.visitArgument(binding.reference, current, scope));
        }
        return this.visit(node.expression, current, new Scope(scope, vars));
      }

      case "Binding": {
        // The parser accepts a stray `name = expr` outside `let`; the library evaluates it to `{name: value}`.
        meter.alloc(BYTES_PER_MEMBER);
        const binding: JsonObject = {};
        setOwn(binding, node.variable, this.visit(node.reference, current, scope));
        return binding;
      }

      default:
        throw malformed(node);
    }
  }

  /**
   * `a.b.c`, `a | b | c` and `a[0][1]` parse into left-deep trees. Walking the left spine in a loop instead of
   * recursing keeps long but ordinary chains (hundreds of dotted names fit in an expression) away from the
   * nesting cap; only the right-hand sides are visited recursively.
   */
  private chain(node: ChainNode, current: JsonValue, scope: Scope | null): JsonValue {
    const spine: ChainNode[] = [node];
    let bottom = node.left;
    while (bottom.type === "Subexpression" || bottom.type === "Pipe" || bottom.type === "IndexExpression") {
      this.meter.step();
      spine.push(bottom);
      bottom = bottom.left;
    }
    let value = this.visit(bottom, current, scope);
    for (let i = spine.length - 1; i >= 0; i -= 1) {
      const link = spine[i] as ChainNode;
      // A subexpression stops at null (`a.b` is null when `a` is); a pipe or an index applies its right side
      // to whatever the left side gave, null included.
      if (link.type === "Subexpression" && value === null) continue;
      value = this.visit(link.right, value, scope);
    }
    return value;
  }

  /** Applies `right` to each element and keeps the non-null results. */
  private project(base: readonly JsonValue[], right: SelectNode, scope: Scope | null): JsonValue {
    const collected: JsonValue[] = [];
    for (let i = 0; i < base.length; i += 1) {
      this.meter.step();
      const value = this.visit(right, base[i] ?? null, scope);
      if (value !== null) {
        this.meter.alloc(BYTES_PER_SLOT);
        collected.push(value);
      }
    }
    return collected;
  }

  private arithmetic(operator: string, left: JsonValue, right: JsonValue): JsonValue {
    if (typeof left !== "number") throw notANumber(left);
    if (typeof right !== "number") throw notANumber(right);
    switch (operator) {
      case "Plus":
        return ensureFinite(left + right);
      case "Minus":
        return ensureFinite(left - right);
      case "Multiply":
      case "Star":
        return ensureFinite(left * right);
      case "Divide":
        return ensureFinite(left / nonZero(right));
      case "Modulo":
        // The library returns NaN for `x % 0`; the arithmetic JEP makes division by zero an error.
        return ensureFinite(left % nonZero(right));
      case "Div":
        return ensureFinite(Math.floor(left / nonZero(right)));
      default:
        throw evaluationError("invalid-expression", `Syntax error: unknown arithmetic operator: ${operator}`);
    }
  }

  /** Array and string slices; strings are sliced by code point, like the library's `[...text]`. */
  private slice(node: SliceNode, current: JsonValue): JsonValue {
    if (typeof current !== "string" && !Array.isArray(current)) return null;
    const meter = this.meter;
    const { start: startPart, stop: stopPart, step: stepPart } = node;
    for (const part of [startPart, stopPart, stepPart]) {
      if (part !== null && !Number.isInteger(part)) throw malformed(node);
    }
    const step = stepPart ?? 1;
    if (step === 0) throw evaluationError("invalid-value", "Invalid value: slice step cannot be 0");

    let units: readonly string[] | null = null;
    let length: number;
    if (typeof current === "string") {
      meter.scan(current.length);
      if (hasSurrogates(current)) {
        // Divergence: the library computes the bounds from the UTF-16 length but indexes code points, so
        // `'a😀b'[-1:]` gives "" there; bounds here are in code points throughout.
        meter.alloc(countCodePoints(current) * BYTES_PER_SLOT);
        units = Array.from(current);
      }
      length = units === null ? current.length : units.length;
    } else {
      length = current.length;
    }

    const start = startPart === null ? (step < 0 ? length - 1 : 0) : capSliceBound(length, startPart, step);
    const stop = stopPart === null ? (step < 0 ? -1 : length) : capSliceBound(length, stopPart, step);
    const count =
      step > 0
        ? start < stop
          ? Math.ceil((stop - start) / step)
          : 0
        : start > stop
          ? Math.ceil((start - stop) / -step)
          : 0;
    meter.step(count);

    if (typeof current === "string") {
      if (units === null && step === 1) {
        meter.alloc(count);
        return current.slice(start, stop);
      }
      meter.alloc(count * (BYTES_PER_SLOT + 2));
      const chars: string[] = [];
      for (let i = 0, at = start; i < count; i += 1, at += step) {
        chars.push(units === null ? current.charAt(at) : (units[at] ?? ""));
      }
      return chars.join("");
    }

    meter.alloc(count * BYTES_PER_SLOT);
    const sliced: JsonValue[] = [];
    for (let i = 0, at = start; i < count; i += 1, at += step) sliced.push(current[at] ?? null);
    return sliced;
  }
}

/** Clamps a slice bound into the array, as the library's `capSliceRange` does. */
function capSliceBound(length: number, value: number, step: number): number {
  if (value < 0) {
    const adjusted = value + length;
    return adjusted < 0 ? (step < 0 ? -1 : 0) : adjusted;
  }
  if (value >= length) return step < 0 ? length - 1 : length;
  return value;
}

function nonZero(value: number): number {
  if (value === 0) throw evaluationError("not-a-number", "not-a-number: divide by zero");
  return value;
}

function notANumber(value: JsonValue): SelectError {
  return evaluationError("not-a-number", `not-a-number: expected a number, received ${typeOf(value)}`);
}

function malformed(node: unknown): SelectError {
  const type = typeof node === "object" && node !== null && "type" in node ? String(node.type) : typeof node;
  return evaluationError("invalid-expression", `invalid expression tree: unexpected ${type} node`);
}
