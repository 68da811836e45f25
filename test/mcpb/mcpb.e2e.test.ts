/**
 * `kervanc mcpb`: a generated package as an MCP Bundle. The bundle is checked with the `mcpb` tool itself
 * (`validate` on its manifest, `info` and `unpack` on the archive), unpacked into an empty folder and run as a
 * client runs it: the `mcp_config` it declares with `${__dirname}` and the `user_config` values substituted,
 * under the real SDK client, against a local HTTPS upstream that checks the secret. Two builds are compared byte
 * for byte.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "../helpers/clients.ts";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";

const exec = promisify(execFile);
const MCPB = join(REPO, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const TOKEN = "mcpb-test-token-5b7e2c91";

let root: string;
let upstream: Upstream;
let pkg: string;
let bundle: string;

const spec = (origin: string, port: number): string => `specVersion: 1
name: notes-api
version: "2.3.0"
description: Read notes from the notes API.
secrets:
  - name: NOTES_TOKEN
    hosts: ["localhost:${port}"]
tools:
  - name: get_note
    description: One note by id.
    input:
      type: object
      properties:
        id: { type: integer, minimum: 1 }
      required: [id]
    http:
      url: ${origin}/notes/{{input.id}}
      headers:
        Authorization: "Bearer {{secrets.NOTES_TOKEN}}"
    output:
      select: "{id: id, text: text}"
  - name: list_notes
    description: The newest notes.
    http:
      url: ${origin}/notes
    output:
      select: "[].id"
`;

async function mcpb(args: readonly string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [MCPB, ...args], { cwd: root });
    return { code: 0, out: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

beforeAll(async () => {
  upstream = await startUpstream(
    (req, res) => {
      if (req.headers["authorization"] !== `Bearer ${TOKEN}`) json(res, 401, { error: "no token" });
      else if (req.path === "/notes/7") json(res, 200, { id: 7, text: "buy milk", owner: "ada" });
      else json(res, 404, { error: "not found" });
    },
    { tls: true, hostname: "localhost" },
  );
  root = await tempDir("mcpb");
  await mkdir(join(root, "specs"));
  await writeFile(join(root, "specs", "notes.yaml"), spec(upstream.origin, upstream.port));
  const built = await kervanc(["build", join(root, "specs"), "-o", join(root, "out")]);
  expect(built.code, built.stderr).toBe(0);
  pkg = join(root, "out", "notes");
  bundle = join(root, "notes.mcpb");
  const r = await kervanc(["mcpb", pkg, "-o", bundle, "--author", "Ada Lovelace <ada@example.com>"]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(
    /^Wrote .*notes\.mcpb \([\d,]+ bytes\): 2 tools; the client asks for NOTES_TOKEN and keeps it in the keychain\.\n$/,
  );
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

describe("kervanc mcpb", () => {
  let unpacked: string;
  let manifest: {
    manifest_version: string;
    name: string;
    display_name: string;
    version: string;
    author: unknown;
    server: {
      type: string;
      entry_point: string;
      mcp_config: { command: string; args: string[]; env: Record<string, string> };
    };
    tools: { name: string; description: string }[];
    user_config: Record<
      string,
      { type: string; sensitive: boolean; required: boolean; title: string; description: string }
    >;
    compatibility: { runtimes: { node: string } };
  };

  beforeAll(async () => {
    unpacked = join(root, "unpacked");
    const r = await mcpb(["unpack", bundle, unpacked]);
    expect(r.code, r.out).toBe(0);
    manifest = JSON.parse(await readFile(join(unpacked, "manifest.json"), "utf8")) as typeof manifest;
  });

  it("passes mcpb validate and mcpb info", async () => {
    const validate = await mcpb(["validate", join(unpacked, "manifest.json")]);
    expect(validate.code, validate.out).toBe(0);
    expect(validate.out).toContain("Manifest schema validation passes");
    const info = await mcpb(["info", bundle]);
    expect(info.code, info.out).toBe(0);
    expect(info.out).toContain("notes.mcpb");
  });

  it("uses the newest manifest version the pinned mcpb tool validates", async () => {
    const constants = (await import(
      join(REPO, "node_modules", "@anthropic-ai", "mcpb", "dist", "shared", "constants.js")
    )) as { LATEST_MANIFEST_VERSION: string };
    expect(manifest.manifest_version).toBe(constants.LATEST_MANIFEST_VERSION);
  });

  it("holds only what the server needs", async () => {
    expect((await readdir(unpacked)).sort()).toEqual([
      "README.md",
      "THIRD_PARTY_NOTICES.md",
      "manifest.json",
      "server.mjs",
    ]);
    expect(await readFile(join(unpacked, "server.mjs"))).toEqual(await readFile(join(pkg, "server.mjs")));
  });

  it("describes the server, its tools and each secret as a sensitive, required user_config field naming its hosts", () => {
    expect(manifest).toMatchObject({
      name: "notes",
      display_name: "notes-api",
      version: "2.3.0",
      author: { name: "Ada Lovelace", email: "ada@example.com" },
      server: {
        type: "node",
        entry_point: "server.mjs",
        mcp_config: {
          command: "node",
          args: ["--disallow-code-generation-from-strings", "${__dirname}/server.mjs"],
          env: { NOTES_TOKEN: "${user_config.NOTES_TOKEN}" },
        },
      },
      tools: [
        { name: "get_note", description: "One note by id." },
        { name: "list_notes", description: "The newest notes." },
      ],
      compatibility: { runtimes: { node: ">=20.19.0" } },
    });
    expect(manifest.user_config).toEqual({
      NOTES_TOKEN: {
        type: "string",
        title: "NOTES_TOKEN",
        description: `Sent only to localhost:${upstream.port} (by get_note). Kept by the client as a secret.`,
        required: true,
        sensitive: true,
      },
    });
  });

  it("runs from an empty folder with the mcp_config it declares, as a client substitutes it", async () => {
    const substitute = (text: string): string =>
      text
        .replaceAll("${__dirname}", unpacked)
        .replace(/\$\{user_config\.(\w+)\}/g, (_, name: string) => (name === "NOTES_TOKEN" ? TOKEN : ""));
    const { command, args, env } = manifest.server.mcp_config;
    expect(command).toBe("node");
    const resolved = args.map(substitute);
    const client = await connect("modern", resolved.at(-1)!, {
      nodeArgs: resolved.slice(0, -1),
      // The upstream of this test is on loopback, which generated servers refuse unless told; the test CA
      // stands in for a public one.
      serverArgs: ["--allow-private-network"],
      env: {
        ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, substitute(v)])),
        NODE_EXTRA_CA_CERTS: TEST_CA,
      },
    });
    try {
      const result = await client.callTool("get_note", { id: 7 });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.content?.[0]?.text).toBe('{"id":7,"text":"buy milk"}');
    } finally {
      await client.close();
    }
    expect(upstream.requests.at(-1)!.headers["authorization"]).toBe(`Bearer ${TOKEN}`);
  });

  it("writes the same bytes for the same package", async () => {
    const again = join(root, "again.mcpb");
    expect((await kervanc(["mcpb", pkg, "-o", again, "--author", "Ada Lovelace <ada@example.com>"])).code).toBe(0);
    const hash = async (f: string): Promise<string> =>
      createHash("sha256")
        .update(await readFile(f))
        .digest("hex");
    expect(await hash(again)).toBe(await hash(bundle));
  });

  it("refuses a package whose server.mjs is not the one kervanc built, a folder that is no package, and a bad author", async () => {
    const edited = join(root, "edited");
    await mkdir(edited);
    for (const f of ["manifest.json", "package.json", "README.md", "THIRD_PARTY_NOTICES.md"])
      await writeFile(join(edited, f), await readFile(join(pkg, f)));
    await writeFile(join(edited, "server.mjs"), `${await readFile(join(pkg, "server.mjs"), "utf8")}\n// edited\n`);
    const r = await kervanc(["mcpb", edited, "-o", join(root, "edited.mcpb")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not the bundle kervanc built");
    const none = await kervanc(["mcpb", join(root, "specs"), "-o", join(root, "none.mcpb")]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("is not a package this kervanc built");
    const author = await kervanc(["mcpb", pkg, "-o", join(root, "a.mcpb"), "--author", "<>"]);
    expect(author.code).toBe(2);
    const suffix = await kervanc(["mcpb", pkg, "-o", join(root, "a.zip")]);
    expect(suffix.stderr).toBe(
      'kervanc mcpb: the bundle\'s file name must end in .mcpb, not "a.zip".\nSee kervanc mcpb --help.\n',
    );
  });
});
