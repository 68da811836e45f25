/**
 * The kervanc toolsets extension (docs/extensions/toolsets.md) and the tool-name rule some clients have (KV2015),
 * in process: `tags` must be declared, become the plan's toolsets and the tool's start-up head, and tool names
 * outside ^[a-zA-Z0-9_-]{1,64}$ are accepted with a warning that gives the rename. `kervanc import` makes no such
 * names. The server side (serving a selection) is test/e2e/tool-selection.e2e.test.ts.
 */
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { clientToolName } from "../../packages/compiler/src/analyze/rules/client-names.ts";
import { toolModule } from "../../packages/compiler/src/emit/modules.ts";
import { toolNameFrom } from "../../packages/compiler/src/import/names.ts";
import { importOpenApi } from "../../packages/compiler/src/import/openapi.ts";

const spec = (opts: { declared?: boolean; tags?: string; name?: string; readOnly?: boolean }): string => `specVersion: 1
${opts.declared === false ? "" : "kervancExtensions: [toolsets]\n"}name: sets
version: "1.0"
tools:
  - name: ${opts.name ?? "list_issues"}
    description: List issues.
${opts.tags === undefined ? "" : `    tags: ${opts.tags}\n`}${opts.readOnly ? "    annotations: { readOnlyHint: true }\n" : ""}    http: { url: "https://api.example.com/issues" }
    output: { select: "@" }
`;

const compile = (text: string) => compileSpec("sets.yaml", new TextEncoder().encode(text));
const codes = (text: string): string[] => compile(text).diagnostics.map((d) => `${d.severity} ${d.code} ${d.path}`);

describe("tags (the toolsets extension)", () => {
  it("become the plan's toolsets and the start-up head, deduplicated in the order written", () => {
    const compiled = compile(spec({ tags: "[issues, triage, issues]", readOnly: true }));
    expect(codes(spec({ tags: "[issues]" }))).toEqual(["info KV8001 kervancExtensions"]);
    const tool = compiled.planned!.tools[0]!;
    expect(tool.plan.toolsets).toEqual(["issues", "triage"]);
    const module = toolModule(tool, { index: 0, specFile: "sets.yaml", line: 5 }).text;
    expect(module).toContain('    readOnly: true,\n    toolsets: ["issues", "triage"],\n');
  });

  it("must be declared", () => {
    expect(codes(spec({ declared: false, tags: "[issues]" }))).toEqual(["error KV8002 tools[0].tags"]);
  });

  it("refuses names the --toolsets flag could not take", () => {
    expect(codes(spec({ tags: '["a,b"]' }))).toContain("error KV2005 tools[0].tags[0]");
    expect(codes(spec({ tags: '["with space"]' }))).toContain("error KV2005 tools[0].tags[0]");
  });

  it("leave a spec without them as it was: no toolsets in the plan, no extension note", () => {
    const compiled = compile(spec({ declared: false }));
    expect(compiled.diagnostics).toEqual([]);
    expect(compiled.planned!.tools[0]!.plan).not.toHaveProperty("toolsets");
  });
});

describe("tool names some clients refuse (KV2015)", () => {
  it("warns of a dotted name, with the rename", () => {
    const compiled = compile(spec({ declared: false, name: "issues.list" }));
    expect(compiled.diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
      [
        "warning",
        "KV2015",
        'Some clients refuse the tool name "issues.list" (Claude and OpenAI take only letters, digits, _ and -, at most 64 characters); rename it to "issues_list".',
      ],
    ]);
    // Accepted all the same, as Kervan accepts it.
    expect(compiled.planned).not.toBeNull();
  });

  it("warns of a name over 64 characters, with a cut that ends in a hash", () => {
    const long = "a".repeat(100);
    const [d] = compile(spec({ declared: false, name: long })).diagnostics;
    expect(d!.code).toBe("KV2015");
    expect(d!.message).toContain("100 characters long");
    const rename = /rename it to "([^"]+)"/.exec(d!.message)![1]!;
    expect(rename).toMatch(/^a{57}_[0-9a-f]{6}$/);
  });

  it("makes the rename differ from the spec's other names", () => {
    const text = `specVersion: 1
name: sets
version: "1.0"
tools:
  - { name: a.b, description: x, http: { url: "https://api.example.com/1" }, output: { select: "@" } }
  - { name: a_b, description: x, http: { url: "https://api.example.com/2" }, output: { select: "@" } }
`;
    const [d] = compile(text).diagnostics;
    expect(d!.message).toContain('rename it to "a_b_2"');
  });

  it("is silent for names every client takes", () => {
    expect(compile(spec({ declared: false, name: "A-z_0-9" })).diagnostics).toEqual([]);
  });
});

describe("names the importer makes", () => {
  it("are always client-safe: dots become _, long names end in a hash of the whole", () => {
    expect(toolNameFrom("issues.list")).toBe("issues_list");
    const a = toolNameFrom(`${"x".repeat(70)}A`);
    const b = toolNameFrom(`${"x".repeat(70)}B`);
    expect(a).not.toBe(b);
    for (const name of [a, b, toolNameFrom("ü.ö/ä")]) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(clientToolName("")).toBe("tool");
  });
});

describe("kervanc import --toolsets", () => {
  const doc = JSON.stringify({
    openapi: "3.1.0",
    info: { title: "Tracker", version: "1.0" },
    servers: [{ url: "https://api.example.com" }],
    paths: {
      "/issues": { get: { operationId: "listIssues", tags: ["Issues", "Issue Tracking", "issues"], responses: {} } },
      "/me": { get: { operationId: "me", responses: {} } },
    },
  });
  const run = (toolsets: boolean) =>
    importOpenApi("api.json", new TextEncoder().encode(doc), "spec.yaml", toolsets ? { toolsets } : {});

  it("tags each tool with its operation's tags, made toolset names, and declares the extension", () => {
    const result = run(true);
    expect(result.ok).toBe(true);
    const built = compileSpec("spec.yaml", new TextEncoder().encode(result.text!));
    expect(built.diagnostics.map((d) => d.code)).toEqual(["KV8001"]);
    expect(built.planned!.tools.map((t) => t.plan.toolsets)).toEqual([
      ["Issues", "Issue_Tracking", "issues"],
      undefined,
    ]);
  });

  it("writes plain Kervan without the flag", () => {
    const text = run(false).text!;
    expect(text).not.toContain("kervancExtensions");
    expect(text).not.toContain("tags:");
  });
});
