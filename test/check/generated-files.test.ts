/** Files generated from the compiler's sources of truth stay current (`npm run docs` regenerates them). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CODES } from "../../packages/compiler/src/diagnostics/codes.ts";
import { GENERATED } from "../../scripts/gen-docs.ts";
import { ROOT } from "../../scripts/update-goldens.ts";

describe("generated files", () => {
  it.each(GENERATED.map((g) => [g.path, g.render] as const))("%s is up to date (npm run docs)", (path, render) => {
    expect(readFileSync(join(ROOT, path), "utf8")).toBe(render());
  });

  it("docs/diagnostics.md lists every code", () => {
    const doc = readFileSync(join(ROOT, "docs/diagnostics.md"), "utf8");
    for (const code of Object.keys(CODES)) expect(doc).toContain(`| ${code} | ${CODES[code as keyof typeof CODES].severity} |`);
  });
});
