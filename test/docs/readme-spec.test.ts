/**
 * The README's example spec is one `kervanc build` accepts without a finding: the first spec a user reads must not
 * go stale as the format's checks grow.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { REPO } from "../helpers/kervanc.ts";

describe("README.md", () => {
  it("shows a spec that builds cleanly", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const spec = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(spec).toBeDefined();
    const compiled = compileSpec("open-meteo.yaml", new TextEncoder().encode(spec!));
    expect(compiled.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
    expect(compiled.planned?.tools.map((t) => t.plan.listing.name)).toEqual(["get_current_weather"]);
  });
});
