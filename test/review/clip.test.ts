/**
 * A long description in a review is cut at 240 characters; the cut must not split a surrogate pair, which would
 * show as an escape (`\ud83d`) or a replacement character in the pull-request comment.
 */
import { describe, expect, it } from "vitest";
import { type PackageReview, renderText } from "../../packages/compiler/src/review/render.ts";

describe("review: description before and after", () => {
  it("cuts a long description between code points", () => {
    const after = `${"a".repeat(239)}${"\u{1F600}".repeat(10)}`;
    const review: PackageReview = {
      where: "servers/x",
      status: "changed",
      files: [],
      surface: [
        {
          kind: "tool-changed",
          subject: "t",
          field: "description",
          before: "short",
          after,
          security: false,
          summary: "t: description changed",
        },
      ],
    };
    const line = renderText([review]).find((l) => l.trim().startsWith("after:"));
    expect(line).toBe(`      after:  "${"a".repeat(239)}… (259 characters)"`);
  });
});
