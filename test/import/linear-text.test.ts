/**
 * The importer's work on document text grows with its length, never with its square. Each input here makes the
 * unfixed code take hours (a regular expression that backtracks over a run not at the end of the text, such as
 * `_+$` or `[ \t]+\n`, costs n²/2 steps for a run of n: n = 2 million is 2·10¹² steps; placing 20,000 findings
 * with a scan of 20 MB each is 4·10¹¹), and well under a second now. The work is synchronous, so without the fix
 * the run does not finish rather than fail; no assertion measures a duration.
 */
import { describe, expect, it } from "vitest";
import { cleanText } from "../../packages/compiler/src/import/text.ts";
import { identifierFrom, secretNameFrom, toolNameFrom } from "../../packages/compiler/src/import/names.ts";
import { basePath } from "../../packages/compiler/src/import/servers.ts";
import { importOpenApi } from "../../packages/compiler/src/import/openapi.ts";

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
    expect(toolNameFrom(`a${"_".repeat(N)}b`)).toMatch(/^a_{57}[0-9a-f]{6}$/);
    expect(toolNameFrom(`__a_b__`)).toBe("a_b");
    expect(toolNameFrom(`${"_".repeat(N)}`)).toBe("operation");
    expect(identifierFrom(`a${"_".repeat(N)}-b`)).toBe("a_b");
    expect(secretNameFrom(`a${"_".repeat(N)}b`)).toBe("A_B");
  });

  it("takes a server's base path with a long run of slashes inside it", () => {
    expect(basePath(new URL(`https://api.example.com/a${"/".repeat(N)}b//`))).toBe(`/a${"/".repeat(N)}b`);
    expect(basePath(new URL("https://api.example.com/"))).toBe("");
  });

  it("places many findings in a large JSON document with one pass over its text, not one pass each", () => {
    // 20,000 cookie parameters (a warning each) after 20 MB of text: one scan per finding is 4·10¹¹ steps.
    const params = Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, in: "cookie" }));
    const text = JSON.stringify({
      "x-pad": "x".repeat(20_000_000),
      openapi: "3.1.0",
      info: { title: "T", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: { "/a": { get: { operationId: "a", parameters: params, responses: { "200": { description: "OK" } } } } },
    });
    const result = importOpenApi("big.json", new TextEncoder().encode(text), "spec.yaml");
    expect(result.ok).toBe(true);
    const cookie = result.diagnostics.find((d) => d.message.startsWith('The cookie parameter "c0"'))!;
    expect([cookie.line, cookie.column]).toEqual([1, text.indexOf('{"name":"c0"') + 1]);
    const last = result.diagnostics.find((d) => d.message.startsWith('The cookie parameter "c19999"'));
    // Past the cap the rest are counted, not listed; those listed are placed as one at a time would place them.
    if (last !== undefined) expect(last.column).toBe(text.indexOf('{"name":"c19999"') + 1);
    const versionAt = result.diagnostics.find((d) => d.code === "KV7016")!;
    expect([versionAt.line, versionAt.column]).toEqual([1, 1]);
  });
});
