/**
 * A tool module in its two layouts (emit/modules.ts): the laid-out one in `src/tools/*.ts`, which reviewers read,
 * and the compact one in the bundles (`toolDefinition`, composed by emit/bundle/compose.ts). The runtime parses the texts of either, so both must hold the
 * same values: for every tool of every spec the fixtures accept, the listing and the plan parse to the same data,
 * and the compact texts have no layout left in them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { Code } from "../../packages/compiler/src/emit/code/code.ts";
import { toolDefinition, toolModule } from "../../packages/compiler/src/emit/modules.ts";

const FOLDERS = ["fixtures/valid", "fixtures/specs"];

/** The listing and plan texts of a module, as the runtime receives them. */
function texts(module: string): { listing: string; plan: string } {
  const found: Record<string, string> = {};
  // A template literal's value: its escapes (\\, \`, \$) undone. A string literal: JSON.
  for (const m of module.matchAll(/^ {2}(listing|plan): (`(?:[^`\\]|\\.)*`|"(?:[^"\\]|\\.)*"),$/gms)) {
    const source = m[2]!;
    found[m[1]!] = source.startsWith("`") ? source.slice(1, -1).replace(/\\([\\`$])/g, "$1") : JSON.parse(source);
  }
  expect(Object.keys(found).sort()).toEqual(["listing", "plan"]);
  return found as { listing: string; plan: string };
}

describe("tool module layouts", () => {
  const specs = FOLDERS.flatMap((folder) =>
    readdirSync(folder)
      .filter((name) => name.endsWith(".yaml"))
      .map((name) => join(folder, name)),
  );

  it("give the same listing and plan, compact or laid out, for every accepted fixture's tools", () => {
    let tools = 0;
    for (const file of specs) {
      const compiled = compileSpec(file, readFileSync(file));
      expect(compiled.planned, file).toBeTruthy();
      for (const [index, tool] of compiled.planned!.tools.entries()) {
        const source = { index, specFile: file, line: 1 };
        const readable = texts(toolModule(tool, source).text);
        const names = { input: new Code("input0"), output: new Code("output0") };
        const compact = texts(toolDefinition(tool, "compact", names).text);
        for (const key of ["listing", "plan"] as const) {
          expect(JSON.parse(compact[key]), `${file} ${tool.moduleName} ${key}`).toEqual(JSON.parse(readable[key]));
          // Compact: exactly JSON.stringify's text, so nothing but the data's own characters.
          expect(compact[key]).toBe(JSON.stringify(JSON.parse(readable[key])));
          expect(compact[key].length).toBeLessThan(readable[key].length);
        }
        tools++;
      }
    }
    expect(tools).toBeGreaterThan(20);
  });
});
