/**
 * `kervanc mcpb` on a package folder from a cloned repository: a file linked elsewhere must not be packed into a
 * bundle that gets published, a named pipe must not hang it, and a hand-made manifest.json (the bundle's hash in
 * it proves nothing about the rest) must not reach the terminal raw or stop kervanc with an exception. Nothing
 * but the named archive is ever written.
 */
import { execFileSync } from "node:child_process";
import { cp, lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";

let root: string;
let pkg: string;
const PRIVATE = "PRIVATE KEY OF THE USER, never to be packed";

beforeAll(async () => {
  root = await tempDir("mcpb-hostile");
  await mkdir(join(root, "specs"));
  await writeFile(
    join(root, "specs", "notes.yaml"),
    `specVersion: 1
name: notes
version: "1.0.0"
secrets:
  - NOTES_TOKEN
tools:
  - name: get_note
    description: One note.
    input:
      type: object
      properties: {}
    http:
      url: https://api.notes.example.com/note
      headers:
        Authorization: "Bearer {{secrets.NOTES_TOKEN}}"
    output:
      raw: true
`,
  );
  const built = await kervanc(["build", join(root, "specs"), "-o", join(root, "out")]);
  expect(built.code, built.stderr).toBe(0);
  pkg = join(root, "out", "notes");
  await writeFile(join(root, "id_ed25519"), PRIVATE);
}, 120_000);
afterAll(() => removeDir(root));

/** A copy of the package, spoiled by `edit`, in a folder of its own with nothing else in it. */
async function spoiled(name: string, edit: (dir: string) => Promise<void>): Promise<{ dir: string; out: string }> {
  const folder = join(root, name);
  await mkdir(folder);
  const dir = join(folder, "notes");
  await cp(pkg, dir, { recursive: true });
  await edit(dir);
  return { dir, out: join(folder, "notes.mcpb") };
}

describe("kervanc mcpb and a hostile package folder", () => {
  it("refuses a README.md linked to a file elsewhere, and packs nothing", async () => {
    const { dir, out } = await spoiled("linked", async (d) => {
      await rm(join(d, "README.md"));
      await symlink(join(root, "id_ed25519"), join(d, "README.md"));
    });
    const r = await kervanc(["mcpb", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `kervanc mcpb: ${join(dir, "README.md")} is a symbolic link, not a file; nothing was written.\n`,
    );
    await expect(lstat(out)).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readdir(join(root, "linked"))).toEqual(["notes"]);
  });

  it.skipIf(process.platform === "win32")("does not wait on a manifest.json that is a named pipe", async () => {
    const { dir, out } = await spoiled("fifo", async (d) => {
      await rm(join(d, "manifest.json"));
      execFileSync("mkfifo", [join(d, "manifest.json")]);
    });
    // Without the fix, mcpb opens the pipe and never returns.
    const r = await kervanc(["mcpb", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("manifest.json is a named pipe (fifo), not a file; nothing was written.");
  });

  it("refuses a hand-made manifest whose secret name would drive the terminal, or whose hosts are not a list", async () => {
    for (const [name, secret] of [
      ["escape", { name: "TOKEN\u001b[2J\u001b[31mFAKE", hosts: null }],
      ["hosts", { name: "NOTES_TOKEN", hosts: 5 }],
    ] as const) {
      const { dir, out } = await spoiled(`manifest-${name}`, async (d) => {
        const manifest = JSON.parse(await readFile(join(d, "manifest.json"), "utf8")) as { secrets: unknown[] };
        manifest.secrets = [secret];
        await writeFile(join(d, "manifest.json"), JSON.stringify(manifest, null, 2));
      });
      const r = await kervanc(["mcpb", dir, "-o", out]);
      expect(r.stderr).not.toContain("internal error");
      expect(r.stdout + r.stderr).not.toContain("\u001b");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("is not a package this kervanc built");
      await expect(lstat(out)).rejects.toMatchObject({ code: "ENOENT" });
    }
  });

  it("still packs the package as built, leaving only the archive", async () => {
    const { dir, out } = await spoiled("plain", async () => {});
    const r = await kervanc(["mcpb", dir, "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    expect((await readdir(join(root, "plain"))).sort()).toEqual(["notes", "notes.mcpb"]);
    expect((await readFile(out)).includes(Buffer.from(PRIVATE))).toBe(false);
  });
});
