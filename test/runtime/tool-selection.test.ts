/**
 * The start-up selection of tools (runtime/serve/tool-selection.ts), in process: how named tools, toolsets and
 * --read-only combine, what refuses to start, and that choosing reads only the tools' heads (no plan is parsed).
 */
import { describe, expect, it } from "vitest";
import type { CompiledServer, CompiledTool, ToolHead } from "../../packages/runtime/src/plan.ts";
import {
  parseNameList,
  SERVE_ALL,
  selectTools,
  servedCount,
  type ToolSelection,
  ToolSelectionError,
} from "../../packages/runtime/src/serve/tool-selection.ts";

function tool(name: string, extra: Partial<ToolHead> = {}): CompiledTool {
  const head: ToolHead = { name, protocol: "https:", hostPort: "api.example.com:443", secrets: [], ...extra };
  return {
    head,
    get plan(): never {
      throw new Error(`the plan of ${name} was read`);
    },
    validateInput: Object.assign(() => true, { errors: null }) as never,
    validateOutput: null,
  };
}

const server: CompiledServer = {
  plan: { name: "github", version: "1.0.0", secrets: [] },
  tools: [
    tool("list_issues", { readOnly: true, toolsets: ["issues"] }),
    tool("create_issue", { toolsets: ["issues"] }),
    tool("list_repos", { readOnly: true, toolsets: ["repos"] }),
    tool("delete_repo", { toolsets: ["repos", "admin"] }),
    tool("whoami", { readOnly: true }),
  ],
};

const pick = (selection: Partial<ToolSelection>): string[] =>
  selectTools(server, { ...SERVE_ALL, ...selection }).tools.map((t) => t.head!.name);

describe("selectTools", () => {
  it("serves everything, the same object, when nothing is selected", () => {
    expect(selectTools(server, SERVE_ALL)).toBe(server);
  });

  it("adds named tools and toolsets up, in spec order", () => {
    expect(pick({ tools: ["whoami"], toolsets: ["issues"] })).toEqual(["list_issues", "create_issue", "whoami"]);
    expect(pick({ toolsets: ["admin"] })).toEqual(["delete_repo"]);
  });

  it("keeps only read-only tools, of the selection or of all", () => {
    expect(pick({ readOnly: true })).toEqual(["list_issues", "list_repos", "whoami"]);
    expect(pick({ toolsets: ["repos"], readOnly: true })).toEqual(["list_repos"]);
  });

  it("refuses unknown tools and toolsets, naming what exists", () => {
    expect(() => pick({ tools: ["list_isues"] })).toThrow(
      'No tool named "list_isues" in github. Its tools: "list_issues", "create_issue", "list_repos", "delete_repo", "whoami".',
    );
    expect(() => pick({ toolsets: ["repo"] })).toThrow(
      'No toolset named "repo" in github. Its toolsets: "admin", "issues", "repos".',
    );
  });

  it("refuses a selection that leaves nothing to serve", () => {
    expect(() => pick({ toolsets: ["admin"], readOnly: true })).toThrow(ToolSelectionError);
  });

  it("says so when the server has no toolsets at all", () => {
    const plain: CompiledServer = { plan: server.plan, tools: [tool("a"), tool("b")] };
    expect(() => selectTools(plain, { ...SERVE_ALL, toolsets: ["x"] })).toThrow(/has no toolsets/);
  });

  it("bounds the names an error lists, and quotes them as data", () => {
    const many: CompiledServer = {
      plan: server.plan,
      tools: Array.from({ length: 100 }, (_, i) => tool(`t${i}`)),
    };
    const message = (() => {
      try {
        selectTools(many, { ...SERVE_ALL, tools: ["x\u001b[31m"] });
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    })();
    expect(message).toContain('No tool named "x\\u001b[31m"');
    expect(message).toContain('"t39" and 60 more.');
    expect(message).not.toContain('"t40"');
  });

  it("counts what it serves for the start-up line", () => {
    const selection = { ...SERVE_ALL, readOnly: true };
    expect(servedCount(server, selectTools(server, selection), selection)).toBe("3 of 5 tool(s) (--read-only)");
    expect(servedCount(server, server, SERVE_ALL)).toBe("5 tool(s)");
  });
});

describe("parseNameList", () => {
  it("splits, trims and removes repeats", () => {
    expect(parseNameList("--tools", " a, b ,a")).toEqual(["a", "b"]);
  });
  it("refuses an empty name", () => {
    expect(() => parseNameList("KERVANC_TOOLS", "a,,b")).toThrow('KERVANC_TOOLS has an empty name: "a,,b".');
    expect(() => parseNameList("--tools", "")).toThrow(ToolSelectionError);
  });
});
