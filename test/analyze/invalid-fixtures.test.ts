/**
 * The invalid fixtures: every spec in fixtures/invalid/ gives exactly the diagnostics in its golden file, every
 * diagnostic code has a fixture (or a named test elsewhere), and each code's documented example is a message
 * kervanc really prints. Regenerate the goldens after an intended change with `npm run goldens:invalid`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODES, type DiagnosticCode } from "../../packages/compiler/src/diagnostics/codes.ts";
import {
  diagnosticsOf,
  goldenText,
  INVALID_DIR,
  invalidFixtures,
  readmeText,
  ROOT,
  ruleOf,
} from "../../scripts/update-goldens.ts";

const names = invalidFixtures();
const all = new Map(names.map((name) => [name, diagnosticsOf(name)]));

/**
 * Load and check codes no committed fixture can produce, and where they are tested instead. (The command-line
 * codes are tested in test/cli/cli.e2e.test.ts and test/analyze/hostile.slow.test.ts: KV9001 to KV9005; KV9007 in
 * test/cli/package-names.e2e.test.ts, KV9008 in test/cli/replace-only-own.e2e.test.ts, KV9009 in test/cli/spec-paths.test.ts.)
 */
const TESTED_ELSEWHERE: Partial<Record<DiagnosticCode, string>> = {
  KV1001: "test/analyze/hostile.slow.test.ts generates the file over 1 MiB",
  KV1010: "an unreadable file; the tests run as a user who can read every file",
  KV5002: "unreachable from YAML: a cyclic value is refused at load (KV1012)",
};

describe("fixtures/invalid", () => {
  it("has a spec for every rule: at least 70 of them", () => {
    expect(names.length).toBeGreaterThanOrEqual(70);
  });

  it.each(names)("%s matches its golden", (name) => {
    const golden = join(ROOT, INVALID_DIR, `${name}.diagnostics.txt`);
    expect(existsSync(golden), `missing ${name}.diagnostics.txt: run npm run accept`).toBe(true);
    expect(
      goldenText(all.get(name)!),
      "The diagnostics differ from the golden: if the change is intended, run npm run accept",
    ).toBe(readFileSync(golden, "utf8"));
  });

  it.each(names)("%s reports something, each diagnostic placed inside the file", (name) => {
    const diagnostics = all.get(name)!;
    expect(diagnostics.length).toBeGreaterThan(0);
    const bytes = readFileSync(join(ROOT, INVALID_DIR, `${name}.yaml`));
    const lines = new TextDecoder().decode(bytes).split("\n");
    for (const d of diagnostics) {
      expect(d.line).toBeGreaterThanOrEqual(1);
      expect(d.line).toBeLessThanOrEqual(lines.length);
      expect(d.column).toBeGreaterThanOrEqual(1);
      expect(d.column).toBeLessThanOrEqual((lines[d.line - 1]?.length ?? 0) + 1);
    }
  });

  it.each(names)("%s says which rule it breaks", (name) => {
    expect(ruleOf(name)).not.toBe("(no description)");
  });

  it("has no golden without its spec", () => {
    const goldens = readdirSync(join(ROOT, INVALID_DIR)).filter((f) => f.endsWith(".diagnostics.txt"));
    expect(goldens.map((f) => f.slice(0, -".diagnostics.txt".length)).filter((n) => !names.includes(n))).toEqual([]);
  });

  it("README.md maps every fixture to its rule and codes (regenerated with the goldens)", () => {
    expect(
      readFileSync(join(ROOT, INVALID_DIR, "README.md"), "utf8"),
      "fixtures/invalid/README.md is stale: run npm run accept",
    ).toBe(readmeText());
  });

  it("covers every code of the load and check stages, or names the test that does", () => {
    const seen = new Set([...all.values()].flat().map((d) => d.code));
    // KV1xxx to KV6xxx are the spec rules; other ranges (the command line, kervanc import) have their own tests.
    const checkCodes = (Object.keys(CODES) as DiagnosticCode[]).filter((code) => /^KV[1-6]\d{3}$/.test(code));
    expect(checkCodes.length).toBeGreaterThan(60);
    const uncovered = checkCodes.filter((code) => !seen.has(code) && TESTED_ELSEWHERE[code] === undefined);
    expect(uncovered).toEqual([]);
    // And the list above stays honest: a code that gets a fixture leaves it.
    expect(Object.keys(TESTED_ELSEWHERE).filter((code) => seen.has(code as DiagnosticCode))).toEqual([]);
  });

  it("documents, for every code with a fixture, an example message kervanc really prints", () => {
    const messages = new Map<string, Set<string>>();
    for (const d of [...all.values()].flat()) {
      if (!messages.has(d.code)) messages.set(d.code, new Set());
      messages.get(d.code)!.add(d.message);
    }
    const wrong = [...messages]
      .filter(([code, set]) => !set.has(CODES[code as DiagnosticCode].example))
      .map(([code]) => code);
    expect(wrong).toEqual([]);
  });

  it("severities in the output are the table's defaults (KV9005 excepted, and KV3018's warnings for {name} and ${NAME})", () => {
    for (const d of [...all.values()].flat()) {
      if (d.code === "KV3018" && d.severity === "warning")
        expect(d.message).toMatch(/^(\{[A-Za-z_]\w*\}|\$\{[A-Za-z_]\w*\}) is sent as written/);
      else expect(d.severity, d.code).toBe(CODES[d.code].severity);
    }
  });
});
