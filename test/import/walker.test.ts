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

/** The problems with the line of the node each is reported at. */
function walkPlaced(text: string, policy: AliasPolicy): { kind: WalkProblem["kind"]; line: number }[] {
  const doc = parseDocument(text, { uniqueKeys: false, merge: false });
  const found: { kind: WalkProblem["kind"]; line: number }[] = [];
  toPlain(doc.contents, policy, (node, p) => {
    const offset = node.range?.[0] ?? 0;
    found.push({ kind: p.kind, line: text.slice(0, offset).split("\n").length });
  });
  return found;
}

const EXPANSION: AliasPolicy = { kind: "expansion", maxCount: 50, maxExpansion: 1_048_576 };
const USES: AliasPolicy = { kind: "uses", maxUses: 1000, maxExpansion: 1_048_576 };
/** Nine levels of ten aliases each over the leaf `first`: 10^9 copies if expanded. */
function laughs(first: string): string {
  return [
    `a: &a ${first}`,
    ...Array.from(
      { length: 9 },
      (_, i) =>
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(", ")}]`,
    ),
  ].join("\n");
}
const LAUGHS = laughs("[x]");
/** The same with empty lists for leaves, which yaml's own alias count takes to cost nothing. */
const EMPTY_LAUGHS = laughs("[[], [], [], [], [], [], [], [], [], []]");

describe("the shared YAML walk", () => {
  it("refuses an expanding alias bomb under the spec policy, and reads aliases as shared values under the document policy", () => {
    expect(walk(LAUGHS, EXPANSION).problems).toEqual(["alias-budget"]);
    const read = walk("a: &a [x]\nb: &b [*a, *a]\nc: [*b, *b]\n", USES);
    expect(read.problems).toEqual([]);
    const value = read.value as Record<string, unknown[]>;
    // Shared, not copied: the alias is the anchor's very value.
    expect(value["c"]![0]).toBe(value["b"]);
  });

  it("counts an empty list as a copy: a bomb of empty leaves is refused under the spec policy, at the same alias", () => {
    // yaml's count gave an empty collection 0 copies, and 0 times anything stayed 0: 10^10 leaves passed.
    const scalarLeaves = walkPlaced(LAUGHS, EXPANSION);
    const emptyLeaves = walkPlaced(EMPTY_LAUGHS, EXPANSION);
    expect(emptyLeaves.map((p) => p.kind)).toEqual(["alias-budget"]);
    expect(walkPlaced("e: &e []\nl: [" + Array(50).fill("*e").join(", ") + "]\n", EXPANSION)).toHaveLength(1);
    // Both refused on the third line (c's items), where the copies pass 50.
    expect(scalarLeaves[0]!.line).toBe(3);
    expect(emptyLeaves[0]!.line).toBe(3);
  });

  it("caps what all aliases expand to, under both policies, with empty lists and text counted", () => {
    // The empty-leaf bomb, with a copy budget too large to stop it first.
    expect(walk(EMPTY_LAUGHS, { kind: "expansion", maxCount: 1e12, maxExpansion: 1000 }).problems).toEqual([
      "expansion-budget",
    ]);
    expect(walk(EMPTY_LAUGHS, { kind: "uses", maxUses: 1000, maxExpansion: 1000 }).problems).toEqual([
      "expansion-budget",
    ]);
    const policies: AliasPolicy[] = [
      { kind: "expansion", maxCount: 50, maxExpansion: 1000 },
      { kind: "uses", maxUses: 1000, maxExpansion: 1000 },
    ];
    for (const policy of policies) {
      const kind = policy.kind;
      // Under 50 copies each, but 40 copies of a 100-character text, or of 100 empty lists, are 4,000 and more.
      const text = `t: &t "${"x".repeat(100)}"\nu: [${Array(40).fill("*t").join(", ")}]\n`;
      expect(walk(text, policy).problems, kind).toEqual(["expansion-budget"]);
      const lists = `t: &t [${Array(100).fill("[]").join(", ")}]\nu: [${Array(40).fill("*t").join(", ")}]\n`;
      expect(walk(lists, policy).problems, kind).toEqual(["expansion-budget"]);
      // Keys are text that an aliased mapping copies too.
      const keys = `t: &t {${"k".repeat(100)}: 1}\nu: [${Array(40).fill("*t").join(", ")}]\n`;
      expect(walk(keys, policy).problems, kind).toEqual(["expansion-budget"]);
      // A few aliases of a small value stay well within it.
      expect(walk("t: &t {a: [1, 2]}\nu: [*t, *t, *t]\n", policy).problems, kind).toEqual([]);
    }
  });

  it("caps alias uses under the document policy", () => {
    const many = `a: &a 1\nb: [${Array(1001).fill("*a").join(", ")}]`;
    expect(walk(many, USES).problems).toEqual(["alias-budget"]);
    expect(walk(many, { kind: "uses", maxUses: 2000, maxExpansion: 1_048_576 }).problems).toEqual([]);
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
