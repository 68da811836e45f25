/**
 * Specs that MUST be accepted (fixtures/valid/ and the example specs): edge cases Kervan accepts, which a
 * stricter checker could wrongly refuse. Each compiles with zero errors and zero warnings and is planned. (The CLI
 * test builds the whole folder, emit included.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { formatDiagnostic } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { REPO } from "../helpers/kervanc.ts";

const specs = ["fixtures/valid", "fixtures/specs"].flatMap((dir) =>
  readdirSync(join(REPO, dir))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => `${dir}/${f}`),
);

describe("valid specs", () => {
  it("are there", () => {
    expect(specs.filter((s) => s.startsWith("fixtures/valid/")).length).toBeGreaterThanOrEqual(6);
  });

  /**
   * The diagnostics a valid spec is meant to have: shapes.yaml names a tool with every character Kervan allows, a
   * dot among them, which Claude and OpenAI refuse (KV2015), accepted as Kervan accepts it; catalog-views.yaml uses
   * a kervanc extension, which is reported (KV8001, info).
   */
  const EXPECTED: Readonly<Record<string, readonly string[]>> = {
    "fixtures/valid/shapes.yaml": ["KV2015"],
    "fixtures/specs/catalog-views.yaml": ["KV8001"],
  };

  it.each(specs)("%s is accepted without a single diagnostic (but the ones it is meant to have)", (file) => {
    const result = compileSpec(file, readFileSync(join(REPO, file)));
    const expected = EXPECTED[file] ?? [];
    expect(result.diagnostics.filter((d) => !expected.includes(d.code)).map(formatDiagnostic)).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(expected);
    expect(result.planned).not.toBeNull();
  });

  it("keeps what YAML 1.2 and the templates mean (spot checks on the plans)", () => {
    const plan = (file: string) => compileSpec(file, readFileSync(join(REPO, file))).planned!;
    const yaml = plan("fixtures/valid/yaml-features.yaml");
    // `!!str 1.0` stays the text "1.0"; aliases copy the input schema and the http section.
    expect(yaml.plan.version).toBe("1.0");
    expect(yaml.tools.map((t) => t.plan.listing.inputSchema)).toEqual([
      { type: "object", properties: { id: { type: "integer" } } },
      { type: "object", properties: { id: { type: "integer" } } },
    ]);
    const visible = plan("fixtures/valid/visible-text.yaml");
    expect(visible.plan.name).toBe("görünür metin 👩‍💻");
    expect(visible.tools[0]!.plan.listing.description).toBe("Get one note.\tA tab and\na line feed are fine here.");
  });
});
