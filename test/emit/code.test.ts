/**
 * The one escaping path into generated code: spec text is data whatever it holds, and a `__proto__` key stays
 * an own property instead of setting the prototype of the object literal.
 */
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  Code,
  jsonText,
  lineComment,
  literal,
  MAX_LAYOUT_DEPTH,
  readableLiteral,
  ts,
} from "../../packages/compiler/src/emit/code/code.ts";

const hostile = {
  name: '"; process.exit(1); //',
  "</script>": "`${globalThis}`",
  __proto__: null,
  nested: [{ ["__proto__"]: { polluted: true } }, "\u2028\u2029", -0, 1e21],
};
// A computed key in the fixture itself, so the test value really has an own "__proto__" property.
Object.defineProperty(hostile, "__proto__", { value: { x: 1 }, enumerable: true, writable: true, configurable: true });

/** Evaluates generated text in a fresh context; also says whether the result's prototype is that context's Object.prototype. */
function evaluate(code: Code): { value: unknown; plainPrototype: boolean } {
  const [value, plainPrototype] = vm.runInNewContext(
    `const v = (${code.text}); [v, Object.getPrototypeOf(v) === Object.prototype]`,
  ) as [unknown, boolean];
  return { value, plainPrototype };
}

describe("literal and readableLiteral", () => {
  it.each([
    ["literal", literal],
    ["readableLiteral", (v: unknown) => readableLiteral(v)],
    ["readableLiteral, narrow", (v: unknown) => readableLiteral(v, 10)],
  ] as const)("%s writes data that evaluates to the same value, with __proto__ as a key", (_, write) => {
    const code = write(hostile);
    expect(code.text).toContain('["__proto__"]');
    const { value: v, plainPrototype } = evaluate(code);
    const value = v as Record<string, unknown>;
    expect(JSON.stringify(value)).toBe(JSON.stringify(hostile));
    expect(plainPrototype).toBe(true);
    expect(Object.keys(value)).toContain("__proto__");
    const inner = (value["nested"] as Record<string, unknown>[])[0]!;
    expect(Object.keys(inner)).toEqual(["__proto__"]);
    expect((inner as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("lays readableLiteral out as a person would: bare identifier keys, small nodes on one line, trailing commas", () => {
    expect(literal({ a: [1, 2] }).text).toBe('{"a":[1,2]}');
    expect(readableLiteral({ a: [1, 2], "b-c": { d: "x" } }).text).toBe('{ a: [1, 2], "b-c": { d: "x" } }');
    expect(readableLiteral({ a: [1, 2], b: "x".repeat(30) }, 30).text).toBe(
      `{\n  a: [1, 2],\n  b: "${"x".repeat(30)}",\n}`,
    );
  });

  it("readableLiteral evaluates to the same JSON value for any JSON value and width", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 140 }), (value, width) => {
        const back = vm.runInNewContext(`(${readableLiteral(value, width).text})`) as unknown;
        expect(JSON.stringify(back)).toBe(JSON.stringify(value));
      }),
      { numRuns: 500 },
    );
  });

  it("jsonText is a template literal whose value is the JSON text, whatever the strings hold", () => {
    // Backquotes, `${`, backslashes and line separators would end the literal, start a substitution, or form an
    // escape if they were pasted as they are.
    const code = jsonText(hostile, 20);
    expect(code.text.startsWith("`{\n")).toBe(true);
    const text = vm.runInNewContext(code.text) as unknown;
    expect(typeof text).toBe("string");
    const value = JSON.parse(text as string) as Record<string, unknown>;
    expect(JSON.stringify(value)).toBe(JSON.stringify(hostile));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toContain("__proto__");
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 140 }), (json, width) => {
        const back = vm.runInNewContext(jsonText(json, width).text) as string;
        expect(JSON.stringify(JSON.parse(back))).toBe(JSON.stringify(json));
      }),
      { numRuns: 500 },
    );
    for (const tricky of ["`", "${x}", "\\", "\\`", "$", "\u2028", "\r\n", "\ud800"]) {
      const back = vm.runInNewContext(jsonText({ [tricky]: [tricky] }).text) as string;
      expect(JSON.parse(back)).toEqual({ [tricky]: [tricky] });
    }
  });

  it("pastes only Code into ts templates; everything else becomes a literal", () => {
    const code = ts`const x = ${'"; evil(); "'}; ${new Code("trusted();")}`;
    expect(code.text).toBe('const x = "\\"; evil(); \\""; trusted();');
  });

  it("keeps comment text on one line", () => {
    expect(lineComment("a\nb\u2028c").text).toBe("// a\\u000ab\\u2028c");
  });
});

describe("deep values and invisible characters", () => {
  /** `{a: {a: ... 1}}`, `levels` objects deep. */
  const chain = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };

  it("lays out a value hundreds of levels deep in text linear in its depth", () => {
    // A request body nests this deep in YAML; indenting every level wrote half a megabyte for it.
    for (const write of [(v: unknown) => jsonText(v), (v: unknown) => readableLiteral(v)]) {
      const code = write(chain(500));
      expect(code.text.length).toBeLessThan(20 * 500);
      expect(code.text.split("\n").every((line) => line.length - line.trimStart().length <= 2 * MAX_LAYOUT_DEPTH)).toBe(
        true,
      );
    }
    const text = jsonText(chain(500)).text;
    expect(JSON.parse(vm.runInNewContext(text) as string)).toEqual(chain(500));
  });

  it("escapes bidirectional controls, separators and other invisible characters, keeping the value", () => {
    const value = {
      "mode\u202e\u2066": ["safe\u202e\u2066", "x\u2028y\u2029", "\u200b\u200e\u200f\u061c\ufeff\u0085\u{e0041}"],
    };
    const invisible = /(?![\t\n])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
    for (const code of [
      literal(value),
      readableLiteral(value),
      readableLiteral(value, 10),
      jsonText(value),
      ts`x(${value})`,
    ]) {
      expect(code.text).not.toMatch(invisible);
    }
    expect(evaluate(literal(value)).value).toEqual(value);
    expect(evaluate(readableLiteral(value, 10)).value).toEqual(value);
    expect(JSON.parse(vm.runInNewContext(jsonText(value).text) as string)).toEqual(value);
    expect(literal("\u202e").text).toBe('"\\u202e"');
    expect(lineComment("a\u202eb\u2066").text).toBe("// a\\u202eb\\u2066");
  });
});
