/**
 * The list of rules (analyze/rules/index.ts) against the files: each rule names the codes its file reports, every
 * code reported under analyze/rules/ belongs to a rule, and each rule file is listed once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODES } from "../../packages/compiler/src/diagnostics/codes.ts";
import { FINAL_RULES, SPEC_RULES, TOOL_RULES } from "../../packages/compiler/src/analyze/rules/index.ts";

const RULES_DIR = join(import.meta.dirname, "../../packages/compiler/src/analyze/rules");
const RULES = [...SPEC_RULES, ...TOOL_RULES, ...FINAL_RULES];

/** The codes a source file reports: every `report("KVnnnn"` in it. */
const reportedIn = (file: string): Set<string> =>
  new Set([...readFileSync(join(RULES_DIR, file), "utf8").matchAll(/report\(\s*"(KV\d{4})"/g)].map((m) => m[1]!));

describe("the rules", () => {
  it("each has a unique name, that of its file", () => {
    const names = RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    const files = readdirSync(RULES_DIR);
    for (const name of names) expect(files).toContain(`${name}.ts`);
  });

  for (const rule of RULES) {
    it(`${rule.name}: its codes are real, and include every code its file reports`, () => {
      for (const code of rule.codes) expect(Object.hasOwn(CODES, code), code).toBe(true);
      const own = reportedIn(`${rule.name}.ts`);
      expect(own.size, `${rule.name}.ts reports nothing`).toBeGreaterThan(0);
      for (const code of own)
        expect(rule.codes as readonly string[], `${rule.name}.ts reports ${code}`).toContain(code);
    });
  }

  it("every code reported under analyze/rules/ belongs to a rule", () => {
    const claimed = new Set<string>(RULES.flatMap((r) => r.codes));
    const reported = readdirSync(RULES_DIR)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => [...reportedIn(f)].map((code) => `${f}: ${code}`));
    expect(reported.filter((entry) => !claimed.has(entry.split(": ")[1]!))).toEqual([]);
  });
});
