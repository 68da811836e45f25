/**
 * tools/list from the listing texts (runtime/define.ts, mcp.ts): what a client receives is, byte for byte, the
 * compact JSON of the planned listings, the same as when the runtime served them as object literals, whatever
 * the spec's strings hold (backquotes, `${`, backslashes, non-ASCII).
 */
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileInProcess } from "../helpers/inprocess.ts";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { modernMessage } from "../helpers/mcp-http.ts";

const SPEC = `specVersion: 1
name: listing-bytes
version: "1.0.0"
tools:
  - name: tricky
    title: "Back \`quotes\` and \${substitutions}"
    description: "A backslash \\\\ and \\\\\` and \\"quotes\\", ü and 😀, \${process.exit(1)}."
    input:
      type: object
      properties:
        "a\`b": { type: string, description: "\\\\u0041 is not A" }
        "$x": { type: string, pattern: "^[a-z\\\\\\\\]*$" }
    http:
      url: https://api.example.com/items
    output:
      select: "@"
  - name: plain
    description: Nothing special.
    http:
      url: https://api.example.com/plain
    output:
      select: "@"
`;

let root: string;
let server: string;
beforeAll(async () => {
  root = await tempDir("listing-bytes");
  await writeFile(join(root, "listing-bytes.yaml"), SPEC);
  const built = await kervanc(["build", join(root, "listing-bytes.yaml"), "-o", join(root, "out")]);
  expect(built.code, built.stderr).toBe(0);
  server = join(root, "out", "listing-bytes", "server.mjs");
});
afterAll(async () => {
  await removeDir(root);
});

describe("tools/list from pre-serialised listings", () => {
  it("sends exactly the compact JSON of the planned listings", async () => {
    const planned = compileInProcess(SPEC, "listing-bytes.yaml").tools.map((tool) => tool.plan.listing);
    // The tool module holds the texts with the spec's strings in them, escaped for a template literal.
    expect(await readFile(join(root, "out", "listing-bytes", "src", "tools", "tricky.ts"), "utf8")).toContain(
      "\\${substitutions}",
    );
    // Twice: the first answer is made for it alone, later ones come from the one kept, frozen result (mcp.ts).
    const list = (id: number): string => `${JSON.stringify(modernMessage(id, "tools/list"))}\n`;
    const run = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", server], {
      input: list(1) + list(2) + list(3),
      env: { PATH: process.env["PATH"] ?? "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line).toContain(`"tools":${JSON.stringify(planned)}`);
      expect((JSON.parse(line) as { result: { tools: unknown } }).result.tools).toEqual(planned);
    }
  });

  it("bundles the texts as compact JSON in string literals, while the reviewed module keeps them laid out", async () => {
    const plain = JSON.stringify({ name: "plain", description: "Nothing special." }).slice(0, -1);
    const module = await readFile(join(root, "out", "listing-bytes", "src", "tools", "plain.ts"), "utf8");
    expect(module).toContain('listing: `{\n  "name": "plain",\n  "description": "Nothing special.",');
    // In the bundle, a string literal of the compact text (JSON.stringify's quoting of it).
    expect(await readFile(server, "utf8")).toContain(JSON.stringify(`${plain},`).slice(0, -1));
  });
});
