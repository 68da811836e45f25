/**
 * `--secrets-file` lines the KEY=value format would cut at an unquoted `#` (runtime/secrets/secrets.ts
 * secretsFileProblem): refused by line and key, never by value; quoted values and comment lines are fine. The
 * server process's refusal is in test/e2e/secrets.test.ts.
 */
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { secretsFileProblem } from "../../packages/runtime/src/secrets/secrets.ts";

describe("secretsFileProblem", () => {
  it("refuses an unquoted value with a #, which parseEnv would cut", () => {
    const text = "A=one\nexport B=abc#def\n";
    expect(parseEnv(text)["B"]).toBe("abc");
    expect(secretsFileProblem(text)).toMatch(/^line 2: the value of B holds "#"/);
    expect(secretsFileProblem("C=value # a comment after it\n")).toMatch(/^line 1: the value of C/);
  });

  it("says nothing of the value itself", () => {
    expect(secretsFileProblem("TOKEN=s3cr3t#tail")).not.toMatch(/s3cr3t|tail/);
  });

  it("takes quoted values, comment lines and values that span lines", () => {
    const text = '# comment\n\nA="abc#def"\nB=\'x#y\'\nC="first\nsecond # not a comment\n"\nD=plain\n';
    expect(secretsFileProblem(text)).toBeNull();
    expect(parseEnv(text)["A"]).toBe("abc#def");
    expect(secretsFileProblem('A="open\nB=x#y\n')).toBeNull();
  });
});
