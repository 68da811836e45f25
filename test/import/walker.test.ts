/**
 * The one YAML-to-value walk (load/plain.ts) that spec loading and kervanc import share, under each alias
 * policy: specs pay for the copies an alias expands to (Kervan's budget), OpenAPI documents for alias uses only.
 */
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import { toPlain, type AliasPolicy, type WalkProblem } from "../../packages/compiler/src/load/plain.ts";

function walk(text: string, policy: AliasPolicy): { value: unknown; problems: WalkProblem["kind"][] } {
  const doc = parseDocument(text, { uniqueKeys: false, merge: false });
  const problems: WalkProblem["kind"][] = [];
  const { value } = toPlain(doc.contents, policy, (_, p) => problems.push(p.kind));
  return { value, problems };
}

const EXPANSION: AliasPolicy = { kind: "expansion", maxCount: 50 };
const USES: AliasPolicy = { kind: "uses", maxUses: 1000 };
/** Nine levels of ten aliases each: 10^9 copies if expanded. */
const LAUGHS = [
  "a: &a [x]",
  ...Array.from(
    { length: 9 },
    (_, i) =>
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + i)}`)
        .join(", ")}]`,
  ),
].join("\n");

describe("the shared YAML walk", () => {
  it("refuses an expanding alias bomb under the spec policy, and reads it as shared values under the document policy", () => {
    expect(walk(LAUGHS, EXPANSION).problems).toEqual(["alias-budget"]);
    const read = walk(LAUGHS, USES);
    expect(read.problems).toEqual([]);
    const value = read.value as Record<string, unknown[]>;
    // Shared, not copied: the alias is the anchor's very value.
    expect(value["c"]![0]).toBe(value["b"]);
  });

  it("caps alias uses under the document policy", () => {
    const many = `a: &a 1\nb: [${Array(1001).fill("*a").join(", ")}]`;
    expect(walk(many, USES).problems).toEqual(["alias-budget"]);
    expect(walk(many, { kind: "uses", maxUses: 2000 }).problems).toEqual([]);
  });

  it("reports the same problems under both policies: tags, repeated keys, collection keys, self-aliases", () => {
    for (const policy of [EXPANSION, USES]) {
      expect(walk("a: !!binary aGk=\n", policy).problems).toEqual(["tag"]);
      expect(walk("a: 1\na: 2\n", policy).problems).toEqual(["duplicate-key"]);
      expect(walk("? [a]\n: 1\n", policy).problems).toEqual(["collection-key"]);
      expect(walk("a: &x [ *x ]\n", policy).problems).toEqual(["self-alias"]);
    }
  });

  it("keeps __proto__ as an own data key", () => {
    const { value } = walk("__proto__: { polluted: true }\n", USES);
    expect(Object.keys(value as object)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });
});
