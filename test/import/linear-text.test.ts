/**
 * The importer's work on document text grows with its length, never with its square. Each input here makes a
 * regular expression that backtracks over a run (`_+$`, `[ \t]+\n`, `\/+$`) take hours on the unfixed code (a
 * run of n characters not at the end costs n²/2 steps: n = 2 million is 2·10¹² steps), and milliseconds now: the
 * test fails by the suite's timeout, with a margin of several orders of magnitude, never by a measured duration.
 */
import { describe, expect, it } from "vitest";
import { cleanText } from "../../packages/compiler/src/import/text.ts";
import { identifierFrom, secretNameFrom, toolNameFrom } from "../../packages/compiler/src/import/names.ts";
import { basePath } from "../../packages/compiler/src/import/servers.ts";

const N = 2_000_000;

describe("linear in the text's length", () => {
  it("cleans text with a long run of spaces or tabs that ends in no line break", () => {
    expect(cleanText(`${" ".repeat(N)}x`, "multiline")).toEqual({ text: "x", removed: 0 });
    expect(cleanText(`a${" \t".repeat(N / 2)}x\n`, "multiline").text).toBe(`a${" \t".repeat(N / 2)}x`);
    // The tidying itself is unchanged: trailing spaces and tabs before a line break go, inner runs stay.
    expect(cleanText("a \t \nb  c\n\n\n\nd", "multiline").text).toBe("a\nb  c\n\nd");
    expect(cleanText("a \t \nb  c", "line").text).toBe("a b c");
  });

  it("makes names from operationIds with a long run of underscores that ends in another character", () => {
    expect(toolNameFrom(`a${"_".repeat(N)}b`)).toBe(`a${"_".repeat(63)}`);
    expect(toolNameFrom(`__a_b__`)).toBe("a_b");
    expect(toolNameFrom(`${"_".repeat(N)}`)).toBe("operation");
    expect(identifierFrom(`a${"_".repeat(N)}-b`)).toBe("a_b");
    expect(secretNameFrom(`a${"_".repeat(N)}b`)).toBe("A_B");
  });

  it("takes a server's base path with a long run of slashes inside it", () => {
    expect(basePath(new URL(`https://api.example.com/a${"/".repeat(N)}b//`))).toBe(`/a${"/".repeat(N)}b`);
    expect(basePath(new URL("https://api.example.com/"))).toBe("");
  });
});
