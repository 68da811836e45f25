/**
 * Message templates live next to their codes (diagnostics/codes.ts). A template only places its arguments, so
 * docs/diagnostics.md can show it with `{name}` holes; and each code's example message, which another test
 * finds among real fixture output, must be one of that code's templates filled in.
 */
import { describe, expect, it } from "vitest";
import { CODES, type CodeInfo } from "../../packages/compiler/src/diagnostics/codes.ts";
import { messageText } from "../../packages/compiler/src/diagnostics/docs.ts";
import { report } from "../../packages/compiler/src/diagnostics/diagnostic.ts";

const withMessages = (Object.entries(CODES) as [string, CodeInfo][]).filter(([, info]) => info.messages !== undefined);

/** A template as a regular expression: each `{name}` hole matches any text. */
function pattern(template: string): RegExp {
  const parts = template.split(/\{[A-Za-z]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`);
}

describe("message templates", () => {
  it("are in use for the codes of the load, analyze and build stages", () => {
    expect(withMessages.length).toBeGreaterThan(40);
  });

  for (const [code, info] of withMessages) {
    it(`${code}: every template only places its arguments, and the example is one of them`, () => {
      const texts = Object.values(info.messages!).map(messageText);
      for (const text of texts) expect(text).not.toMatch(/undefined|\[object|NaN/);
      // A message is one template, or several whole sentences joined by sentences() (diagnostic.ts).
      const one = texts.map((text) => pattern(text).source.slice(1, -1)).join("|");
      if (info.example !== "") expect(new RegExp(`^(?:${one})(?: (?:${one}))*$`).test(info.example)).toBe(true);
    });
  }

  it("take no English as arguments: each variant is a whole message, as tsc words 2304 and 2552 apart", () => {
    // Arguments that used to carry sentence fragments (" Did you mean …?", a hint, a reason, a plural ending).
    const filler = /\{(hint|mean|why|moved|consequence|subject|form|removed)\}/;
    const offenders = withMessages.flatMap(([code, info]) =>
      Object.entries(info.messages!)
        .filter(([, template]) => filler.test(messageText(template)))
        .map(([name]) => `${code}.${name}`),
    );
    expect(offenders).toEqual([]);
  });

  it("report() fills in the code's own template", () => {
    const f = report("KV2004", ["name"], (m) => m.tooLong({ length: 129, max: 128 }));
    expect(f).toEqual({
      code: "KV2004",
      path: ["name"],
      message: "The value has 129 characters; at most 128 are allowed.",
    });
  });
});
