/**
 * The generated README names the sample port and the workerd configuration file from the constants the package's
 * files are made from (sample-port.ts's SAMPLE_PORT, workerd-config.ts's WORKERD_CONFIG_FILE), so the README
 * cannot drift from them. The constants are replaced here with other values (for their importers): a README that
 * spells them out itself still says 3000 and workerd.capnp, and fails.
 */
import { describe, expect, it, vi } from "vitest";

vi.mock("../../packages/compiler/src/emit/files/sample-port.ts", () => ({ SAMPLE_PORT: 4321 }));
vi.mock("../../packages/compiler/src/emit/files/workerd-config.ts", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../packages/compiler/src/emit/files/workerd-config.ts")>()),
  WORKERD_CONFIG_FILE: "sample-workerd.capnp",
}));

const { compileSpec } = await import("../../packages/compiler/src/compile.ts");
const { readme } = await import("../../packages/compiler/src/emit/files/readme.ts");

const SPEC = [
  "specVersion: 1",
  "name: things",
  "version: 1.0.0",
  "tools:",
  "  - name: get_thing",
  "    description: Gets a thing.",
  "    http:",
  "      method: GET",
  "      url: https://api.example.com/things",
  "    output:",
  "      raw: true",
  "",
].join("\n");

describe("the README's sample port and workerd file name", () => {
  it("come from SAMPLE_PORT and WORKERD_CONFIG_FILE", () => {
    const compiled = compileSpec("things.yaml", new TextEncoder().encode(SPEC));
    expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const text = readme(compiled.planned!, "things", "things.yaml");
    expect(text).toContain("http://127.0.0.1:4321/mcp");
    expect(text).toContain("`sample-workerd.capnp` serves `worker.mjs` on 127.0.0.1:4321 ");
    expect(text).toContain("`sample-workerd.capnp` is the sample workerd configuration");
    // (The command lines keep 3000: run-commands.ts reads its own binding, which the mock does not replace.)
    expect(text).not.toContain("`workerd.capnp`");
  });
});
