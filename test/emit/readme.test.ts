/**
 * The generated README's table of arguments, in process: what a reader of the package sees for each input.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { readme } from "../../packages/compiler/src/emit/files/readme.ts";

function readmeOf(yaml: string): string {
  const compiled = compileSpec("things.yaml", new TextEncoder().encode(yaml));
  expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return readme(compiled.planned!, "things", "things.yaml");
}

describe("the README's arguments table", () => {
  it("shows enum values as a reader would type them: strings as they are, other values as JSON", () => {
    const text = readmeOf(
      [
        "specVersion: 1",
        "name: things",
        "version: 1.0.0",
        "tools:",
        "  - name: find_things",
        "    description: Finds things.",
        "    input:",
        "      type: object",
        "      properties:",
        "        kind:",
        "          enum: [red, 7, null, {shape: round}, [1, 2]]",
        "    http:",
        "      method: POST",
        '      url: "https://api.example.com/things"',
        "      body:",
        '        kind: "{{input.kind}}"',
        "    output:",
        "      raw: true",
      ].join("\n"),
    );
    const row = text.split("\n").find((line) => line.startsWith("| `kind`"));
    expect(row).toBeDefined();
    expect(row).not.toContain("[object Object]");
    expect(row).toContain("`red`");
    expect(row).toContain("`7`");
    expect(row).toContain("`null`");
    expect(row).toContain('`{"shape":"round"}`');
    expect(row).toContain("`[1,2]`");
  });
});

describe("the README's copy-paste lines", () => {
  it("quote a folder name a shell would read as more than one word", () => {
    const yaml = [
      "specVersion: 1",
      "name: things",
      "version: 1.0.0",
      "tools:",
      "  - name: find_things",
      "    description: Finds things.",
      "    http:",
      "      method: GET",
      '      url: "https://api.example.com/things"',
      "    output:",
      "      raw: true",
    ].join("\n");
    const compiled = compileSpec("things.yaml", new TextEncoder().encode(yaml));
    const text = readme(compiled.planned!, "a;touch $HOME`x`", "things.yaml");
    const mcpb = text.split("\n").find((line) => line.startsWith("kervanc mcpb "));
    expect(mcpb).toBe("kervanc mcpb '/absolute/path/to/a;touch $HOME`x`' -o a-touch-home-x.mcpb");
  });
});
