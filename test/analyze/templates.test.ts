/**
 * The template grammar's refusals (issue 19): every refused template says which character or form is not
 * allowed and why, with what was probably meant where that is clear; and look-alikes in literal text are found.
 */
import { describe, expect, it } from "vitest";
import { findLookAlikes, parseTemplate } from "../../packages/compiler/src/analyze/templates.ts";

const refusal = (source: string): { message: string; replacement?: string; at: string } => {
  const parsed = parseTemplate(source);
  if (parsed.ok) throw new Error(`${source} was accepted`);
  const { message, offset = 0, length = 0, fix } = parsed.finding;
  return {
    message,
    at: source.slice(offset, offset + length),
    ...(fix?.replacement ? { replacement: fix.replacement } : {}),
  };
};

describe("refused templates say why, and what was meant", () => {
  it.each([
    ["{{inputs.x}}", /the prefix is "input" \(singular/, "{{input.x}}"],
    ["{{ Input.x }}", /the prefix is "input"/, "{{input.x}}"],
    ["{{secret.API_KEY}}", /the prefix is "secrets" \(plural/, "{{secrets.API_KEY}}"],
    ["{{Secrets.API_KEY}}", /the prefix is "secrets"/, "{{secrets.API_KEY}}"],
    ["{{secrets.api_key}}", /secret names are upper-case/, "{{secrets.API_KEY}}"],
    ["{{env.API_KEY}}", /reads no environment variables/, "{{secrets.API_KEY}}"],
    ["{{process.env.API_KEY}}", /reads no environment variables/, "{{secrets.API_KEY}}"],
    ["{{q}}", /names its source/, "{{input.q}}"],
    ["{{API_KEY}}", /names its source/, "{{secrets.API_KEY}}"],
    ["{{{input.q}}}", /exactly two braces/, "{{input.q}}"],
    ["{{input.search-term}}", /the dash "-" at character 7 of the path is not allowed/, undefined],
    ["{{input.a[0]}}", /the bracket "\[" at character 2/, undefined],
    ["{{input.q | upper}}", /no filters, pipes or function calls/, undefined],
    ["{{input.n + 1}}", /no spaces, operators or expressions/, undefined],
    ["{{}}", /the braces are empty/, undefined],
    ["{{input}}", /name a property of the input/, undefined],
    ["{{secrets.API-KEY}}", /"-" at character 4 of the name is not allowed/, undefined],
    ["{{input.q}", /ends with a single "}"/, "{{input.q}}"],
    ["/items/{{input.id", /every "\{\{" needs a "\}\}"/, undefined],
  ])("%s", (source, reason, meant) => {
    const r = refusal(source);
    expect(r.message).toMatch(reason);
    expect(r.replacement).toBe(meant);
    expect(r.at.startsWith("{{")).toBe(true);
  });
});

describe("look-alikes in literal text", () => {
  const found = (source: string): string[] =>
    findLookAlikes(source).map((l) => `${l.written}->${l.meant}${l.certain ? "" : "?"}`);
  it.each([
    ["q={input.q}", ["{input.q}->{{input.q}}"]],
    ["Bearer ${API_TOKEN}", ["${API_TOKEN}->{{secrets.API_TOKEN}}"]],
    ["${input.q}", ["${input.q}->{{input.q}}"]],
    ["{secrets.X}", ["{secrets.X}->{{secrets.X}}"]],
    ["{secret.X}", ["{secret.X}->{{secrets.X}}"]],
    ["{env.HOME}", ["{env.HOME}->{{secrets.HOME}}"]],
    ["/items/{id}", ["{id}->{{input.id}}?"]],
    ["{{input.q}}", []],
    ["\\{{input.q}}", []],
    ['{"a": 1}', []],
    ["price in $", []],
  ])("%s", (source, expected) => {
    expect(found(source)).toEqual(expected);
  });

  it("gives the offset and length of each look-alike", () => {
    expect(findLookAlikes("a {input.q} b ${X}").map((l) => [l.offset, l.length])).toEqual([
      [2, 9],
      [14, 4],
    ]);
  });
});
