/** The short unified-style diff `kervanc check` prints for a changed text file. */
import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../packages/compiler/src/emit/disk/drift.ts";

describe("unifiedDiff", () => {
  it("shows removed and added lines with context and hunk headers", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g"].join("\n");
    const after = ["a", "b", "c", "D", "e", "f", "g"].join("\n");
    expect(unifiedDiff(before, after, 20)).toBe(["@@ -2,5 +2,5 @@", " b", " c", "-d", "+D", " e", " f"].join("\n"));
  });

  it("stops after the given number of changed lines and counts the rest", () => {
    const before = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const after = Array.from({ length: 100 }, (_, i) => `LINE ${i}`).join("\n");
    const diff = unifiedDiff(before, after, 20);
    expect(diff.split("\n").filter((l) => /^[-+]/.test(l))).toHaveLength(20);
    expect(diff.endsWith("... 180 more changed lines")).toBe(true);
  });

  it("is empty when the lines are equal", () => {
    expect(unifiedDiff("a\nb", "a\nb", 20)).toBe("");
  });
});
