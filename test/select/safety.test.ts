/**
 * Safety properties of the select interpreter over hostile data: no prototype pollution, own-property reads only,
 * no confusion from hostile keys or function and variable names, a frozen syntax tree that results never share,
 * no recursion on the depth of the data, and a `jsonLength` that matches `JSON.stringify` exactly.
 */
import { compile } from "@jmespath-community/jmespath";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonValue, SelectNode } from "../../packages/runtime/src/select/ast.ts";
import { evaluateSelect, jsonLength, SelectError } from "../../packages/runtime/src/select/evaluate.ts";
import { deepFreeze } from "./deep-freeze.ts";

const compiled = new Map<string, SelectNode>();
function ast(expression: string): SelectNode {
  const cached = compiled.get(expression);
  if (cached !== undefined) return cached;
  const node: SelectNode = deepFreeze(compile(expression));
  compiled.set(expression, node);
  return node;
}

function run(expression: string, data: JsonValue): JsonValue {
  return evaluateSelect(ast(expression), data);
}

function thrown(action: () => unknown): SelectError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(SelectError);
    return error as SelectError;
  }
  return expect.fail("expected a SelectError");
}

/** Every object and array reachable from `value`, without recursion. */
function containers(value: unknown): Set<object> {
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null || seen.has(item)) continue;
    seen.add(item);
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key]);
  }
  return seen;
}

function expectPrototypesIntact(value: unknown): void {
  for (const item of containers(value)) {
    expect(Object.getPrototypeOf(item)).toBe(Array.isArray(item) ? Array.prototype : Object.prototype);
  }
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Array.prototype, "polluted")).toBe(false);
}

const HOSTILE_TEXT = JSON.stringify({
  a: { x: 1 },
  list: [
    { k: "__proto__", v: 1 },
    { k: "constructor", v: 2 },
    { k: "toString", v: 3 },
    { k: "hasOwnProperty", v: 4 },
  ],
  pairs: [
    ["__proto__", { polluted: true }],
    ["constructor", { prototype: { polluted: true } }],
    ["toString", "not a function"],
  ],
  o: { constructor: { prototype: { polluted: true } } },
})
  // JSON.stringify cannot write a `__proto__` key from an object literal, so splice the hostile members in.
  .replace('"a":{', '"__proto__":{"polluted":true},"a":{"__proto__":{"polluted":true},');

describe("prototype pollution", () => {
  const data = deepFreeze(JSON.parse(HOSTILE_TEXT) as JsonValue);

  it("the hostile input has own __proto__ members, as JSON.parse creates them", () => {
    expect(Object.hasOwn(data as object, "__proto__")).toBe(true);
    expect(Object.hasOwn((data as Record<string, object>).a as object, "__proto__")).toBe(true);
  });

  const attacks: ReadonlyArray<[string, (result: JsonValue) => void]> = [
    ["merge(a, @)", (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true)],
    ["merge(@)", (r) => expect(JSON.parse(JSON.stringify(r))).toEqual(JSON.parse(HOSTILE_TEXT))],
    [
      'merge(`{}`, a, `{"__proto__": {"polluted": true}}`)',
      (r) => expect(Object.keys(r as object)).toContain("__proto__"),
    ],
    ["from_items(pairs)", (r) => expect(Object.keys(r as object)).toEqual(["__proto__", "constructor", "toString"])],
    ["from_items(items(@))", (r) => expect(JSON.stringify(r)).toBe(JSON.stringify(data))],
    ["from_items(items(a))", (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true)],
    [
      "group_by(list, &k)",
      (r) => expect(Object.keys(r as object)).toEqual(["__proto__", "constructor", "toString", "hasOwnProperty"]),
    ],
    ['{"__proto__": a.__proto__}', (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true)],
    [
      "{__proto__: @, constructor: o.constructor}",
      (r) => expect(Object.keys(r as object)).toEqual(["__proto__", "constructor"]),
    ],
    ["a.{__proto__: __proto__, x: x}", (r) => expect(JSON.stringify(r)).toBe('{"__proto__":{"polluted":true},"x":1}')],
    ["items(@)", (r) => expect((r as JsonValue[])[0]).toEqual(["__proto__", { polluted: true }])],
    ["items(a)", (r) => expect(r).toHaveLength(2)],
    ["keys(@)", (r) => expect(r).toContain("__proto__")],
    ["values(@)", (r) => expect(r).toContainEqual({ polluted: true })],
    ['`{"__proto__": {"polluted": true}}`', (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true)],
    ["__proto__ = a", (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true)],
    [
      "let $__proto__ = a in {__proto__: $__proto__}",
      (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true),
    ],
    ["*.__proto__", (r) => expect(r).toEqual([{ polluted: true }])],
    ["o.constructor.prototype", (r) => expect(r).toEqual({ polluted: true })],
    ["zip(keys(@), values(@)) | from_items(@)", (r) => expect(Object.hasOwn(r as object, "__proto__")).toBe(true)],
  ];

  for (const [expression, check] of attacks) {
    it(`${expression} keeps __proto__ as data and changes no prototype`, () => {
      const result = run(expression, data);
      check(result);
      expectPrototypesIntact(result);
      // The probe from the brief, over fresh data: nothing leaked into Object.prototype, and only own members are
      // read, so an inherited `constructor` is not visible either.
      expect(run("[a.polluted, polluted, a.constructor]", JSON.parse('{"a": {}}') as JsonValue)).toEqual([
        null,
        null,
        null,
      ]);
      // Over the result itself, only members the result really owns may show up.
      const own = (key: string): JsonValue =>
        typeof result === "object" && result !== null && !Array.isArray(result) && Object.hasOwn(result, key)
          ? (result[key] ?? null)
          : null;
      expect(run("[a.polluted, polluted, a.constructor]", { a: result })).toEqual([
        own("polluted"),
        null,
        own("constructor"),
      ]);
    });
  }
});

describe("own-property reads", () => {
  const data = deepFreeze(
    JSON.parse('{"a": {"x": {"y": 1}}, "arr": [1, 2, 3], "s": "str", "n": 5, "t": true}') as JsonValue,
  );
  const inherited = [
    "a.constructor",
    "a.toString",
    "a.hasOwnProperty",
    "a.valueOf",
    "a.__proto__",
    "a.__defineGetter__",
    "a.isPrototypeOf",
    "a.x.constructor",
    "arr.length",
    "arr.constructor",
    "arr.map",
    "s.length",
    "s.constructor",
    "n.toFixed",
    "t.valueOf",
    "constructor",
    "__proto__",
    "a.constructor.name",
    "a.constructor.prototype",
  ];
  for (const expression of inherited) {
    it(`${expression} is null`, () => {
      expect(run(expression, data)).toBeNull();
    });
  }

  it("ignores inherited members of objects that are not plain JSON", () => {
    const base = { inherited: 1 };
    const child = Object.assign(Object.create(base) as Record<string, JsonValue>, { own: 2 });
    expect(run("inherited", child)).toBeNull();
    expect(run("own", child)).toBe(2);
    expect(run("keys(@)", child)).toEqual(["own"]);
    expect(run("values(@)", child)).toEqual([2]);
    expect(run("length(@)", child)).toBe(1);
    expect(run("*", child)).toEqual([2]);
    expect(run("merge(@)", child)).toEqual({ own: 2 });
  });

  describe("with Object.prototype polluted by someone else", () => {
    afterEach(() => {
      delete (Object.prototype as Record<string, unknown>).injected;
    });

    it("sees none of the injected, enumerable member", () => {
      Object.defineProperty(Object.prototype, "injected", {
        value: 1,
        enumerable: true,
        configurable: true,
        writable: true,
      });
      const empty = JSON.parse("{}") as JsonValue;
      expect(run("injected", empty)).toBeNull();
      expect(run("keys(@)", empty)).toEqual([]);
      expect(run("length(@)", empty)).toBe(0);
      expect(run("!@", empty)).toBe(true);
      expect(run("@ || 'empty'", empty)).toBe("empty");
      expect(run("@ == `{}`", empty)).toBe(true);
      expect(run('merge(@, `{"b": 1}`)', empty)).toEqual({ b: 1 });
    });
  });
});

describe("hostile keys and names", () => {
  const data = deepFreeze(
    JSON.parse(
      '{"": "empty", " ": "space", "a.b": "dotted", "\\u0000": "nul", "😀": "emoji", "length": 7, "prototype": "p", "1": "one", "__proto__": "proto-string"}',
    ) as JsonValue,
  );

  it("reads quoted identifiers for unusual keys", () => {
    expect(run('""', data)).toBe("empty");
    expect(run('" "', data)).toBe("space");
    expect(run('"a.b"', data)).toBe("dotted");
    expect(run('"\\u0000"', data)).toBe("nul");
    expect(run('"😀"', data)).toBe("emoji");
    expect(run("length", data)).toBe(7);
    expect(run("prototype", data)).toBe("p");
    expect(run('"1"', data)).toBe("one");
    expect(run("__proto__", data)).toBe("proto-string");
    expect(run("length(@)", data)).toBe(9);
    expect(run('{"": "", "__proto__": "__proto__"}', data)).toEqual(
      JSON.parse('{"": "empty", "__proto__": "proto-string"}') as JsonValue,
    );
  });

  for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]) {
    it(`treats ${name}() as an unknown function`, () => {
      const error = thrown(() => run(`${name}(@)`, data));
      expect(error.kind).toBe("evaluation");
      expect(error.code).toBe("unknown-function");
    });

    it(`treats $${name} as an undefined variable unless bound`, () => {
      const error = thrown(() => run(`$${name}`, data));
      expect(error.kind).toBe("evaluation");
      expect(error.code).toBe("undefined-variable");
      expect(run(`let $${name} = 'bound' in $${name}`, data)).toBe("bound");
    });
  }

  it("does not let data forge an expression reference", () => {
    const forged = deepFreeze({ expref: true, type: "Field", name: "a" });
    expect(run("type(@)", forged)).toBe("object");
    const error = thrown(() => run("map(@, `[1]`)", forged));
    expect(error.code).toBe("invalid-type");
    expect(run('sort_by(`[{"a": 2}, {"a": 1}]`, &a)', forged)).toEqual([{ a: 1 }, { a: 2 }]);
  });

  it("keeps expression references out of results", () => {
    for (const expression of [
      "&a",
      "[&a]",
      "{f: &a}",
      "let $f = &a in $f",
      "let $f = &a in [$f]",
      "to_string(&a)",
      "to_array(&a)",
    ]) {
      const error = thrown(() => run(expression, {}));
      expect(error.kind).toBe("evaluation");
      expect(error.code).toBe("invalid-type");
    }
    // A variable holding an expression reference is still usable where one is expected.
    expect(run("let $f = &a in map($f, [{a: `1`}, {a: `2`}])", {})).toEqual([1, 2]);
  });
});

describe("the syntax tree", () => {
  const expressions: ReadonlyArray<[string, JsonValue]> = [
    ['`{"a": [1, {"b": 2}]}`', { a: [1, { b: 2 }] }],
    ['[`[1, 2]`, `{"k": "v"}`]', [[1, 2], { k: "v" }]],
    ['merge(`{"a": {"deep": [1]}}`, @)', { a: { deep: [1] }, z: 1 }],
    ["to_array(`[1, [2]]`)", [1, [2]]],
    ['not_null(`null`, `{"x": [1]}`)', { x: [1] }],
    ['values(`{"a": [1], "b": {"c": 2}}`)', [[1], { c: 2 }]],
    ['`{"a": {"b": [3]}}`.a', { b: [3] }],
    ["`[[1], [2]]`[]", [1, 2]],
    ["`[[1], [2], [3]]`[0:2]", [[1], [2]]],
    ['let $x = `{"a": [1]}` in [$x, $x]', [{ a: [1] }, { a: [1] }]],
    ['map(&`{"m": [0]}`, `[1, 2]`)', [{ m: [0] }, { m: [0] }]],
    ["sort(`[3, 1, 2]`)", [1, 2, 3]],
    ['`{"a": 1}` || `[]`', { a: 1 }],
    ["@ ? `[1]` : `[2]`", [1]],
  ];

  for (const [expression, expected] of expressions) {
    it(`${expression} never returns or shares part of the frozen tree`, () => {
      const tree = ast(expression);
      expect(Object.isFrozen(tree)).toBe(true);
      const before = JSON.stringify(tree);
      const treeObjects = containers(tree);
      const data = { z: 1 };

      const first = evaluateSelect(tree, data);
      expect(first).toEqual(expected);
      for (const item of containers(first)) {
        expect(treeObjects.has(item)).toBe(false);
        expect(Object.isFrozen(item)).toBe(false);
      }
      // Mutating the first result must affect neither the tree nor the next evaluation.
      for (const item of containers(first)) {
        if (Array.isArray(item)) item.push("mutated");
        else (item as Record<string, unknown>).mutated = true;
      }
      const second = evaluateSelect(tree, data);
      expect(second).toEqual(expected);
      expect(JSON.stringify(tree)).toBe(before);
    });
  }
});

describe("deep data does not reach the native stack", () => {
  const DEPTH = 100_000;
  function nested(depth: number, leaf: JsonValue): JsonValue {
    let value = leaf;
    for (let i = 0; i < depth; i += 1) value = [value];
    return value;
  }
  const deep = nested(DEPTH, 1);
  const deepCopy = nested(DEPTH, 1);
  const deepOther = nested(DEPTH, 2);
  const deepObject = (() => {
    let value: JsonValue = "leaf";
    for (let i = 0; i < DEPTH; i += 1) value = { k: value };
    return value;
  })();

  it("to_string serialises it iteratively", () => {
    expect(run("to_string(@)", deep)).toBe(`${"[".repeat(DEPTH)}1${"]".repeat(DEPTH)}`);
    // `{"k":` and `}` per level, then `"leaf"`.
    expect(run("length(to_string(@))", deepObject)).toBe(DEPTH * 6 + 6);
  });

  it("equality compares it iteratively", () => {
    expect(run("a == b", { a: deep, b: deepCopy })).toBe(true);
    expect(run("a == b", { a: deep, b: deepOther })).toBe(false);
    expect(run("contains(list, a)", { list: [deepOther, deepCopy], a: deep })).toBe(true);
  });

  it("jsonLength measures it iteratively", () => {
    expect(jsonLength(deep, Number.POSITIVE_INFINITY)).toBe(2 * DEPTH + 1);
    expect(jsonLength(nested(1_000_000, null), Number.POSITIVE_INFINITY)).toBe(2_000_000 + 4);
  });
});

describe("jsonLength", () => {
  const samples: JsonValue[] = [
    null,
    true,
    false,
    0,
    -0,
    1.5,
    -1e-7,
    1e21,
    123456789012345680000,
    Number.MAX_SAFE_INTEGER,
    5e-324,
    "",
    "abc",
    'quote " and backslash \\',
    "\u0000\u0001\b\f\n\r\t\u000b\u001f\u007f",
    "\u2028\u2029\u0085\u00a0",
    "😀 e\u0301 ﬃ",
    "\ud800",
    "\udc00",
    "a\ud800b",
    "\udc00\ud800",
    "\ud83d\ude00\ud83d",
    [],
    {},
    [[]],
    [{}, [], "", 0, null],
    { a: 1, b: [1, 2, { c: "d" }], 'e"f': "\n", "😀": {} },
    JSON.parse('{"__proto__": {"x": [1, "\\u0000"]}, "constructor": null}') as JsonValue,
    Array.from({ length: 100 }, (_, i) => ({ [`k${i}`]: i % 2 === 0 ? `v${i}\t` : [i, -i, i / 3] })),
  ];

  /** A small deterministic generator, so the fuzz corpus is the same on every run. */
  function prng(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const alphabet = [
    "a",
    "Z",
    " ",
    '"',
    "\\",
    "\n",
    "\u0000",
    "\u001f",
    "é",
    "😀",
    "\ud800",
    "\udfff",
    "\u2028",
    "/",
    "<",
  ];
  function randomValue(random: () => number, depth: number): JsonValue {
    const pick = Math.floor(random() * (depth > 4 ? 5 : 7));
    switch (pick) {
      case 0:
        return null;
      case 1:
        return random() < 0.5;
      case 2:
        return random() < 0.5
          ? Math.floor(random() * 2e6) - 1e6
          : (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
      case 3:
      case 4: {
        let text = "";
        const length = Math.floor(random() * 12);
        for (let i = 0; i < length; i += 1) text += alphabet[Math.floor(random() * alphabet.length)];
        return text;
      }
      case 5:
        return Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, depth + 1));
      default: {
        const value: Record<string, JsonValue> = {};
        const count = Math.floor(random() * 5);
        for (let i = 0; i < count; i += 1) {
          const key = randomValue(random, 99);
          Object.defineProperty(value, typeof key === "string" ? key : String(key), {
            value: randomValue(random, depth + 1),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return value;
      }
    }
  }
  const random = prng(20240601);
  const fuzz = Array.from({ length: 400 }, () => randomValue(random, 0));

  it("equals JSON.stringify(value).length for assorted values", () => {
    for (const value of samples) {
      expect(jsonLength(value, Number.POSITIVE_INFINITY), JSON.stringify(value)).toBe(JSON.stringify(value).length);
    }
  });

  it("equals JSON.stringify(value).length for 400 random values, and to_string equals JSON.stringify", () => {
    for (const value of fuzz) {
      const text = JSON.stringify(value);
      expect(jsonLength(value, Number.POSITIVE_INFINITY), text).toBe(text.length);
      if (typeof value !== "string") expect(run("to_string(@)", value)).toBe(text);
    }
  });

  it("returns the exact length at or under the limit, and more than the limit above it", () => {
    for (const value of [...samples, ...fuzz]) {
      const length = JSON.stringify(value).length;
      for (const limit of [0, length - 1, length, length + 1]) {
        const measured = jsonLength(value, limit);
        if (length > limit) expect(measured).toBeGreaterThan(limit);
        else expect(measured).toBe(length);
      }
    }
  });

  it("stops early on a value far too large to serialise", () => {
    let shared: JsonValue = ["abc"];
    for (let i = 0; i < 60; i += 1) shared = [shared, shared];
    const measured = jsonLength(shared, 1_000_000);
    expect(measured).toBeGreaterThan(1_000_000);
    expect(measured).toBeLessThan(1_000_100);
    const huge = "x".repeat(10 * 1024 * 1024);
    expect(jsonLength([huge, huge, huge], 100)).toBeGreaterThan(100);
  });
});

describe("errors", () => {
  it("classifies evaluation and budget errors", () => {
    const unknown = thrown(() => run("nope(@)", {}));
    expect(unknown).toBeInstanceOf(Error);
    expect(unknown.name).toBe("SelectError");
    expect(unknown.kind).toBe("evaluation");
    expect(unknown.message).toBe("Unknown function: nope()");
    expect(thrown(() => run("abs('x')", {})).code).toBe("invalid-type");
    expect(thrown(() => run("abs(`1`, `2`)", {})).code).toBe("invalid-arity");
    expect(thrown(() => run("pad_left('x', `-1`)", {})).code).toBe("invalid-value");
    expect(thrown(() => run("a + `1`", { a: "x" })).code).toBe("not-a-number");
    expect(thrown(() => run("`1` / `0`", {})).code).toBe("not-a-number");

    const steps = thrown(() => evaluateSelect(ast("[*]"), [1, 2, 3], { maxSteps: 2 }));
    expect(steps.kind).toBe("budget");
    expect(steps.message).toContain("maxSteps");
    const bytes = thrown(() => evaluateSelect(ast("pad_left('', `100`)"), null, { maxBytes: 10 }));
    expect(bytes.kind).toBe("budget");
    expect(bytes.message).toContain("maxBytes");
  });

  it("rejects a malformed tree instead of guessing", () => {
    const bogus = deepFreeze({ type: "NoSuchNode" }) as unknown as SelectNode;
    const error = thrown(() => evaluateSelect(bogus, {}));
    expect(error.kind).toBe("evaluation");
    expect(error.code).toBe("invalid-expression");
  });
});
