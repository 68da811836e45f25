/**
 * Files generated from the compiler's sources of truth stay current (`npm run docs` regenerates them), and the
 * editor schema agrees with the checker: it accepts every valid spec and refuses every spec that has a
 * structure error a JSON Schema can express.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { editorSchema } from "../../packages/compiler/src/analyze/editor-schema.ts";
import { CODES } from "../../packages/compiler/src/diagnostics/codes.ts";
import { loadSpec } from "../../packages/compiler/src/load/load.ts";
import { GENERATED } from "../../scripts/gen-docs.ts";
import { diagnosticsOf, INVALID_DIR, invalidFixtures, ROOT } from "../../scripts/update-goldens.ts";

describe("generated files", () => {
  it.each(GENERATED.map((g) => [g.path, g.render] as const))("%s is up to date (npm run accept)", (path, render) => {
    expect(readFileSync(join(ROOT, path), "utf8"), `${path} is stale: run npm run accept`).toBe(render());
  });

  it("docs/diagnostics.md lists every code", () => {
    const doc = readFileSync(join(ROOT, "docs/diagnostics.md"), "utf8");
    for (const code of Object.keys(CODES))
      expect(doc).toContain(
        `| <a id="${code.toLowerCase()}"></a>${code} | ${CODES[code as keyof typeof CODES].severity} |`,
      );
  });

  it("the README shows the yaml-language-server line, and the example spec uses it", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("# yaml-language-server: $schema=");
    expect(readFileSync(join(ROOT, "fixtures/specs/open-meteo.yaml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/\.\.\/schema\/kervan-spec\.schema\.json$/m,
    );
  });
});

describe("the editor schema", () => {
  const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(editorSchema());
  const valueOf = (file: string): unknown => {
    const loaded = loadSpec(file, readFileSync(join(ROOT, file)));
    if (!loaded.ok) throw new Error(`${file} does not load`);
    return loaded.spec.value;
  };

  const valid = [
    "fixtures/specs/open-meteo.yaml",
    ...["visible-text", "templates", "secrets", "yaml-features", "shapes", "schemas"].map(
      (n) => `fixtures/valid/${n}.yaml`,
    ),
  ];
  it.each(valid)("accepts %s", (file) => {
    expect(validate(valueOf(file)), JSON.stringify(validate.errors)).toBe(true);
  });

  // Structure errors a JSON Schema can state: everything in KV2xxx except the visible-text rule, which needs
  // Unicode property classes, and the "fix the structure first" note.
  const structural = new Set([
    "KV2001",
    "KV2002",
    "KV2003",
    "KV2004",
    "KV2005",
    "KV2006",
    "KV2007",
    "KV2008",
    "KV2009",
    "KV2011",
    "KV2013",
  ]);
  const refused = invalidFixtures().filter((name) => diagnosticsOf(name).some((d) => structural.has(d.code)));

  it("is checked against enough structure fixtures", () => {
    expect(refused.length).toBeGreaterThanOrEqual(50);
  });

  it.each(refused)("refuses %s, as the checker does", (name) => {
    expect(validate(valueOf(`${INVALID_DIR}/${name}.yaml`))).toBe(false);
  });
});
