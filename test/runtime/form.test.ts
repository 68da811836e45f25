/**
 * The kervanc form-body extension's encoder (runtime/src/call/form.ts): a rendered body as
 * application/x-www-form-urlencoded, with every name and value form-encoded so no argument can add a field.
 */
import { describe, expect, it } from "vitest";
import { formEncode } from "../../packages/runtime/src/call/form.ts";

const decode = (text: string): [string, string][] => [...new URLSearchParams(text)];

describe("formEncode", () => {
  it("sends flat fields, nested objects as a[b], scalar lists repeated and object lists indexed", () => {
    const text = formEncode({
      To: "+15558675310",
      Body: "Hi",
      count: 2,
      ok: true,
      metadata: { order: "A1", nested: { x: 1 } },
      expand: ["customer", "invoice"],
      items: [{ price: "p_1", quantity: 2 }],
    });
    expect(decode(text)).toEqual([
      ["To", "+15558675310"],
      ["Body", "Hi"],
      ["count", "2"],
      ["ok", "true"],
      ["metadata[order]", "A1"],
      ["metadata[nested][x]", "1"],
      ["expand", "customer"],
      ["expand", "invoice"],
      ["items[0][price]", "p_1"],
      ["items[0][quantity]", "2"],
    ]);
  });

  it("leaves out null (an omitted optional argument), and sends nothing for a null body", () => {
    expect(formEncode({ a: null, b: "x", c: [null, "y"] })).toBe("b=x&c=y");
    expect(formEncode(null)).toBe("");
  });

  it("encodes values so an argument cannot add or change a field", () => {
    const text = formEncode({ Body: "a&To=+1999&x=1", "weird key": "=" });
    expect(decode(text)).toEqual([
      ["Body", "a&To=+1999&x=1"],
      ["weird key", "="],
    ]);
    expect(text).toBe("Body=a%26To%3D%2B1999%26x%3D1&weird+key=%3D");
  });

  it("refuses a body that is not an object of fields, and nesting too deep", () => {
    expect(() => formEncode("text")).toThrow("A form body must be an object of fields.");
    expect(() => formEncode([1])).toThrow("A form body must be an object of fields.");
    let deep: Record<string, unknown> = { v: 1 };
    for (let i = 0; i < 12; i++) deep = { d: deep };
    expect(() => formEncode(deep as never)).toThrow(/nested too deeply/);
  });
});
