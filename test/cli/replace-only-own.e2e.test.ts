/**
 * Issue 13, finding 4: build replaced anything at <out>/<name>; with `-o .` and a spec named `src.yaml` the
 * project's `src/` was deleted. Now it replaces only a folder whose manifest.json kervanc wrote (or an empty
 * one), checks every package's place before writing anything, and refuses the rest with KV9008 naming the path.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { withoutFrames } from "../helpers/kervanc.ts";
import { KERVANC_MANIFEST, snapshot } from "./tree.ts";

const SPEC = readFileSync(join(REPO, "fixtures/specs/posts.yaml"), "utf8");

let root: string;
beforeAll(async () => {
  root = await tempDir("own");
});
afterAll(async () => {
  await removeDir(root);
});

/** A project built with `-o <proj>`: specs/src.yaml (whose package would be <proj>/src) and specs/ok.yaml. */
async function project(name: string): Promise<{ proj: string; specs: string; elsewhere: string }> {
  const proj = join(root, name);
  const specs = join(proj, "specs");
  const elsewhere = join(root, `${name}-elsewhere`);
  await mkdir(specs, { recursive: true });
  await writeFile(join(specs, "src.yaml"), SPEC);
  await writeFile(join(specs, "ok.yaml"), SPEC);
  await writeFile(join(proj, "package.json"), '{ "name": "mine" }\n');
  await mkdir(join(elsewhere, "pkg"), { recursive: true });
  await writeFile(join(elsewhere, "pkg", "manifest.json"), KERVANC_MANIFEST);
  await writeFile(join(elsewhere, "pkg", "server.mjs"), "// someone else's\n");
  return { proj, specs, elsewhere };
}

const PLACES: readonly [what: string, make: (src: string, elsewhere: string) => Promise<void>, reason: string][] = [
  [
    "a folder without a manifest.json",
    async (src) => {
      await mkdir(join(src, "lib"), { recursive: true });
      await writeFile(join(src, "index.ts"), "export const mine = 1;\n");
    },
    "is a folder kervanc did not build (it has no manifest.json)",
  ],
  [
    "a folder whose manifest.json is not kervanc's",
    async (src) => {
      await mkdir(src);
      await writeFile(join(src, "manifest.json"), '{ "name": "a web app manifest" }\n');
    },
    "is a folder kervanc did not build (its manifest.json is not one kervanc writes)",
  ],
  [
    "a folder whose manifest.json is a folder",
    async (src) => {
      await mkdir(join(src, "manifest.json"), { recursive: true });
    },
    "is a folder kervanc did not build (its manifest.json is not one kervanc writes)",
  ],
  ["a plain file", (src) => writeFile(src, "not a folder\n"), "is a file, not a package folder kervanc built"],
  [
    "a symbolic link to a kervanc package",
    (src, elsewhere) => symlink(join(elsewhere, "pkg"), src),
    "is a symbolic link, not a package folder kervanc built",
  ],
  [
    "a symbolic link to a folder",
    (src, elsewhere) => symlink(elsewhere, src),
    "is a symbolic link, not a package folder kervanc built",
  ],
  [
    "a dangling symbolic link",
    (src, elsewhere) => symlink(join(elsewhere, "nothing"), src),
    "is a symbolic link, not a package folder kervanc built",
  ],
  [
    "a named pipe",
    async (src) => void execFileSync("mkfifo", [src]),
    "is a named pipe (fifo), not a package folder kervanc built",
  ],
];

describe("kervanc build replaces only packages it made (KV9008)", () => {
  it.each(PLACES.map((p, i) => [i, ...p] as const))(
    "#%i refuses %s, and writes no package at all",
    async (i, _what, make, reason) => {
      const { proj, specs, elsewhere } = await project(`refuse-${i}`);
      await make(join(proj, "src"), elsewhere);
      const before = { proj: await snapshot(proj), elsewhere: await snapshot(elsewhere) };
      const r = await kervanc(["build", specs, "-o", proj]);
      expect(r.code).toBe(1);
      expect(withoutFrames(r.stderr).split("\n")).toEqual([
        `${join(specs, "src.yaml")}:1:1 - error KV9008: ${join(proj, "src")} ${reason}; build replaces only packages it made. Move it away, or choose another -o.`,
        "Found 1 error; nothing was written.",
        "",
      ]);
      // Checked before writing: ok.yaml's package is not written either, and nothing anywhere changed.
      expect(existsSync(join(proj, "ok"))).toBe(false);
      expect(await snapshot(proj)).toEqual(before.proj);
      expect(await snapshot(elsewhere)).toEqual(before.elsewhere);
    },
  );

  it("refuses with --force too", async () => {
    const { proj, specs } = await project("force");
    await mkdir(join(proj, "src"));
    await writeFile(join(proj, "src", "index.ts"), "export const mine = 1;\n");
    const before = await snapshot(proj);
    const r = await kervanc(["build", specs, "-o", proj, "--force"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error KV9008: ${join(proj, "src")} is a folder kervanc did not build`);
    expect(await snapshot(proj)).toEqual(before);
  });

  it("takes over an empty folder, and replaces a kervanc package, leaving its siblings and no staging folders", async () => {
    const { proj, specs } = await project("replace");
    await mkdir(join(proj, "src"));
    await mkdir(join(proj, "ok"));
    await writeFile(join(proj, "ok", "manifest.json"), KERVANC_MANIFEST);
    await writeFile(join(proj, "ok", "stale.txt"), "from an older build\n");
    await writeFile(join(proj, "notes.txt"), "mine\n");
    const r = await kervanc(["build", specs, "-o", proj]);
    expect(r.stderr).toMatch(/^Built 2 servers/);
    expect(r.code).toBe(0);
    expect(existsSync(join(proj, "src", "server.mjs"))).toBe(true);
    expect(existsSync(join(proj, "ok", "server.mjs"))).toBe(true);
    expect(existsSync(join(proj, "ok", "stale.txt"))).toBe(false);
    expect(readFileSync(join(proj, "notes.txt"), "utf8")).toBe("mine\n");
    expect((await readdir(proj)).sort()).toEqual(["notes.txt", "ok", "package.json", "specs", "src"]);
    // And the packages it built are its own to replace next time.
    const again = await kervanc(["build", specs, "-o", proj, "--force"]);
    expect(again.code).toBe(0);
    expect((await readdir(proj)).sort()).toEqual(["notes.txt", "ok", "package.json", "specs", "src"]);
  });
});
