/**
 * The set-up lines every generated README prints for MCP clients, run as written: the Claude Desktop / Cursor
 * JSON, `code --add-mcp`, `claude mcp add` and the MCP Inspector CLI. Each is read from the README, the
 * placeholders (the absolute path, the secret) filled in as the README tells the user to, and the resulting
 * command run with the real SDK client (or the Inspector on Node 22) against a local HTTPS upstream.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { packageBin, runNode22 } from "../helpers/node22.ts";
import { readmeCommands, shellWords } from "../helpers/runtimes.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const TOKEN = "setup-test-token-81c4f0";
let root: string;
let upstream: Upstream;
let pkg: string;
let readme: string;

beforeAll(async () => {
  upstream = await startUpstream(
    (req, res) => {
      if (req.headers["x-api-key"] !== TOKEN) json(res, 401, { error: "no key" });
      else json(res, 200, { items: [{ id: 1, name: "first_item" }] });
    },
    { tls: true, hostname: "localhost" },
  );
  ({ root, packageDir: pkg } = await buildOneSpec(
    "client-setup",
    "items_api.yaml",
    `specVersion: 1
name: items
version: "1.0.0"
secrets:
  - name: ITEMS_KEY
    hosts: ["localhost:${upstream.port}"]
tools:
  - name: list_items
    description: Every item.
    http:
      url: ${upstream.origin}/items
      headers: { X-Api-Key: "{{secrets.ITEMS_KEY}}" }
    output:
      select: "items[].name"
`,
  ));
  readme = await readFile(join(pkg, "README.md"), "utf8");
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

/** What the README asks the user to fill in. */
function fill(text: string): string {
  return text.replaceAll("/absolute/path/to/items_api", pkg).replaceAll("<your ITEMS_KEY>", TOKEN);
}

interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

async function callWith(server: ServerCommand): Promise<void> {
  expect(server.command).toBe("node");
  const client = await connect("modern", server.args.at(-1)!, {
    nodeArgs: server.args.slice(0, -1),
    serverArgs: ["--allow-private-network"],
    env: { ...server.env, NODE_EXTRA_CA_CERTS: TEST_CA },
  });
  try {
    const result = await client.callTool("list_items", {});
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(result.content?.[0]?.text).toBe('["first_item"]');
  } finally {
    await client.close();
  }
}

function jsonBlockAfter(heading: string): unknown {
  const at = readme.indexOf(`\n${heading}\n`);
  const open = readme.indexOf("\n```json\n", at);
  const close = readme.indexOf("\n```\n", open + 1);
  expect(at).toBeGreaterThan(0);
  return JSON.parse(fill(readme.slice(open + "\n```json\n".length, close)));
}

describe("the README's client set-up lines", () => {
  it("names the package and writes code spans without backslashes", () => {
    expect(readme).toContain("### `list_items`");
    expect(readme).not.toContain("list\\_items`");
  });

  it("Claude Desktop and Cursor: the JSON configuration", async () => {
    const config = jsonBlockAfter("### Claude Desktop, Cursor and other clients: JSON") as {
      mcpServers: Record<string, ServerCommand>;
    };
    expect(Object.keys(config.mcpServers)).toEqual(["items_api"]);
    await callWith(config.mcpServers["items_api"]!);
  });

  it("VS Code: code --add-mcp", async () => {
    const [line] = readmeCommands(readme, "### VS Code");
    const words = shellWords(fill(line!));
    expect(words.slice(0, 2)).toEqual(["code", "--add-mcp"]);
    const server = JSON.parse(words[2]!) as ServerCommand & { name: string };
    expect(server.name).toBe("items_api");
    await callWith(server);
  });

  it("Claude Code: claude mcp add", async () => {
    const [line] = readmeCommands(readme, "### Claude Code");
    const words = shellWords(fill(line!));
    expect(words.slice(0, 5)).toEqual(["claude", "mcp", "add", "--transport", "stdio"]);
    const dashes = words.indexOf("--");
    const env: Record<string, string> = {};
    for (let i = 5; i < dashes - 1; i += 2) {
      expect(words[i]).toBe("--env");
      const [key, ...value] = words[i + 1]!.split("=");
      env[key!] = value.join("=");
    }
    expect(words[dashes - 1]).toBe("items_api");
    await callWith({ command: words[dashes + 1]!, args: words.slice(dashes + 2), env });
  });

  it("the MCP Inspector CLI lists the tools", async () => {
    const [line] = readmeCommands(readme, "### A first try with the MCP Inspector");
    const words = shellWords(fill(line!));
    expect(words.slice(0, 3)).toEqual(["npx", "@modelcontextprotocol/inspector", "--cli"]);
    const rest = words.slice(3);
    const node = rest.indexOf("node");
    // The server runs on the tests' Node (the Inspector itself needs Node 22); loopback needs the test allowance.
    const server = [process.execPath, ...rest.slice(node + 1, rest.indexOf("--method")), "--allow-private-network"];
    const run = await runNode22(
      [
        packageBin("@modelcontextprotocol/inspector", "mcp-inspector"),
        "--cli",
        "--quiet",
        "--format",
        "json",
        ...rest.slice(0, node),
        "-e",
        `NODE_EXTRA_CA_CERTS=${TEST_CA}`,
        ...server,
        ...rest.slice(rest.indexOf("--method")),
      ],
      { env: { PATH: process.env["PATH"] ?? "", HOME: join(root, "home") }, timeoutMs: 45_000 },
    );
    expect(run.code, `${run.stdout}${run.stderr}`).toBe(0);
    const { tools } = (JSON.parse(run.stdout) as { result: { tools: { name: string }[] } }).result;
    expect(tools.map((t) => t.name)).toEqual(["list_items"]);
  });
});
