/**
 * Serving part of a package, chosen at start (`--tools`, `--toolsets`, `--read-only`): the SDK v2 and v1 clients
 * see only the selection in tools/list, a tool left out is an unknown tool in tools/call, /healthz and the
 * start-up line count what is served, and a selection naming what the server lacks stops it at start. In
 * discovery mode the same clients find, describe and call tools through three, with a direct call's results.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Era } from "../helpers/clients.ts";
import { startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { httpClient } from "../helpers/runtime-clients.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

const DESCRIPTIONS: Record<string, string> = {
  list_issues: "List the issues of a repository, open or closed.",
  create_issue: "Open a new issue in a repository.",
  list_repos: "List the repositories of the authenticated user.",
  delete_repo: "Delete a repository for good.",
};

let upstream: Upstream;
let root: string;
let serverPath: string;

function spec(origin: string): string {
  const tool = (name: string, tags: string, readOnly: boolean, method = "GET") => `
  - name: ${name}
    description: ${DESCRIPTIONS[name]}
    tags: ${tags}
    input: { type: object, properties: { state: { type: string, enum: [open, closed] }, since: { type: [string, "null"] } }, additionalProperties: false }
    annotations: { readOnlyHint: ${readOnly} }
    http: { method: ${method}, url: "${origin}/${name}", allowInsecureHttp: true, query: { state: "{{input.state}}" } }
    output: { select: "@" }`;
  return `
specVersion: 1
kervancExtensions: [toolsets]
name: selection
version: "1.0.0"
tools:${tool("list_issues", "[issues]", true)}${tool("create_issue", "[issues]", false, "POST")}${tool("list_repos", "[repos]", true)}${tool("delete_repo", "[repos, admin]", false, "DELETE")}
`;
}

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ path: req.path }));
  });
  ({ root, serverPath } = await buildOneSpec("selection", "selection.yaml", spec(upstream.origin)));
}, 60_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

const names = (tools: readonly { name: string }[]): string[] => tools.map((t) => t.name);

describe.each(["modern", "legacy"] as Era[])("a selection over stdio, %s client", (era) => {
  it("lists and calls only the selected tools", async () => {
    const client = await connect(era, serverPath, {
      serverArgs: ["--allow-private-network", "--toolsets", "repos", "--read-only"],
    });
    try {
      expect(names((await client.listTools()).tools)).toEqual(["list_repos"]);
      const ok = await client.callTool("list_repos", {});
      expect(ok.isError ?? false).toBe(false);
      expect(ok.content?.[0]).toEqual({ type: "text", text: JSON.stringify({ path: "/list_repos" }) });
      // A tool of the spec that the selection leaves out is unknown, and nothing reaches the upstream for it.
      const before = upstream.requests.length;
      await expect(client.callTool("delete_repo", {})).rejects.toThrow(/delete_repo not found/);
      expect(upstream.requests.length).toBe(before);
      expect(client.stderr()).toContain("1 of 4 tool(s) (--toolsets repos --read-only)");
    } finally {
      await client.close();
    }
  });
});

describe.each(["modern", "legacy"] as Era[])("a selection over HTTP, %s client", (era) => {
  it("serves named tools and toolsets together, and /healthz counts them", async () => {
    const server = await startHttpServer(serverPath, [
      "--allow-private-network",
      "--tools",
      "create_issue",
      "--toolsets",
      "admin",
    ]);
    try {
      const client = await httpClient(era, server.url);
      try {
        expect(names((await client.listTools()).tools)).toEqual(["create_issue", "delete_repo"]);
        await expect(client.callTool("list_issues", {})).rejects.toThrow(/list_issues not found/);
      } finally {
        await client.close();
      }
      const health = (await (await fetch(server.url.replace(/\/mcp$/, "/healthz"))).json()) as { tools: number };
      expect(health.tools).toBe(2);
    } finally {
      server.child.kill();
    }
  });
});

/** Runs server.mjs with `args` and resolves with its exit code and stderr (it is expected to stop by itself). */
function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverPath, ...args], {
      env: { PATH: process.env["PATH"] ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the server did not stop: ${stderr}`));
    }, 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a selection the server cannot serve", () => {
  it.each([
    [["--tools", "list_isues"], /No tool named "list_isues" in selection\. Its tools: "list_issues", "create_issue"/],
    [["--toolsets", "repo"], /No toolset named "repo" in selection\. Its toolsets: "admin", "issues", "repos"\./],
    [
      ["--toolsets", "admin", "--read-only"],
      /The selection \(--toolsets admin --read-only\) leaves no tool to serve\./,
    ],
    [["--tools", "a,,b"], /--tools has an empty name/],
  ])("%j stops at start, naming what exists", async (args, message) => {
    const { code, stderr } = await runToExit(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});

describe.each(["modern", "legacy"] as Era[])("discovery mode, %s client", (era) => {
  it("lists three tools, finds, describes and calls through them as a direct call would", async () => {
    const [client, direct] = await Promise.all([
      connect(era, serverPath, { serverArgs: ["--allow-private-network", "--discovery"] }),
      connect(era, serverPath, { serverArgs: ["--allow-private-network"] }),
    ]);
    try {
      const listed = (await client.listTools()).tools;
      expect(names(listed)).toEqual(["search_tools", "describe_tool", "call_tool"]);
      expect(client.stderr()).toContain("4 tool(s), in discovery mode");

      const found = await client.callTool("search_tools", { query: "delete a repository" });
      const hits = (found.structuredContent as { tools: { name: string; description: string }[] }).tools;
      expect(hits[0]).toEqual({ name: "delete_repo", description: DESCRIPTIONS["delete_repo"] });
      const opened = await client.callTool("search_tools", { query: "open a new issue", limit: 1 });
      expect(opened.structuredContent).toEqual({
        tools: [{ name: "create_issue", description: DESCRIPTIONS["create_issue"] }],
      });

      const described = await client.callTool("describe_tool", { name: "list_issues" });
      const directListing = (await direct.listTools()).tools.find((t) => t.name === "list_issues");
      expect(described.structuredContent).toEqual(directListing);

      // A call, a call the tool's own validator refuses, and both direct: the same results.
      for (const args of [{ state: "open" }, { state: "bogus" }]) {
        const viaDiscovery = await client.callTool("call_tool", { name: "list_issues", arguments: args });
        const viaDirect = await direct.callTool("list_issues", args);
        expect(viaDiscovery).toEqual(viaDirect);
      }
      expect((await client.callTool("call_tool", { name: "list_issues", arguments: { state: "bogus" } })).isError).toBe(
        true,
      );

      const wrong = await client.callTool("call_tool", { name: "no_such_tool" });
      expect(wrong.isError).toBe(true);
      expect(wrong.content?.[0]).toMatchObject({ text: expect.stringContaining('no tool named "no_such_tool"') });
      const extra = await client.callTool("search_tools", { query: "x", limt: 3 });
      expect(extra.isError).toBe(true);
    } finally {
      await Promise.all([client.close(), direct.close()]);
    }
  });
});

describe("discovery mode with a selection", () => {
  it("finds, describes and calls only the tools served", async () => {
    const server = await startHttpServer(serverPath, ["--allow-private-network", "--discovery", "--read-only"]);
    try {
      const client = await httpClient("modern", server.url);
      try {
        const found = await client.callTool("search_tools", { query: "repository", limit: 25 });
        expect(names((found.structuredContent as { tools: { name: string }[] }).tools).sort()).toEqual([
          "list_issues",
          "list_repos",
        ]);
        const before = upstream.requests.length;
        for (const [tool, args] of [
          ["describe_tool", { name: "delete_repo" }],
          ["call_tool", { name: "delete_repo" }],
        ] as const) {
          const refused = await client.callTool(tool, args);
          expect(refused.isError).toBe(true);
        }
        expect(upstream.requests.length).toBe(before);
        const listed = (await client.listTools()).tools as { name: string; annotations?: { readOnlyHint?: boolean } }[];
        // Every tool served is read-only, so calling through call_tool is too.
        expect(listed.find((t) => t.name === "call_tool")?.annotations?.readOnlyHint).toBe(true);
      } finally {
        await client.close();
      }
    } finally {
      server.child.kill();
    }
  });
});

describe.each(["modern", "legacy"] as Era[])("--schema-profile gemini, %s client", (era) => {
  it("advertises the rewritten schema and still validates with the spec's own", async () => {
    const client = await connect(era, serverPath, {
      serverArgs: ["--allow-private-network", "--schema-profile", "gemini", "--tools", "list_issues"],
    });
    try {
      const [tool] = (await client.listTools()).tools;
      expect((tool!.inputSchema as { properties: Record<string, unknown> }).properties["since"]).toEqual({
        type: "string",
        nullable: true,
      });
      // The advertised schema says nothing against a number here; the spec's schema does, and it decides.
      const refused = await client.callTool("list_issues", { since: 5 });
      expect(refused.isError).toBe(true);
      expect((await client.callTool("list_issues", { since: null })).isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe("--schema-profile with a name it does not know", () => {
  it("stops at start, naming the profiles it has", async () => {
    const { code, stderr } = await runToExit(["--schema-profile", "gemeni"]);
    expect(code).toBe(2);
    expect(stderr).toContain('--schema-profile must be one of gemini, not "gemeni".');
  });
});
