/**
 * Writing a package: every path stays strictly inside its folder (issue 13, finding 1, defence in depth), and
 * replacing a package never leaves none (issue 21, bug 3): the old one is renamed aside, the new one renamed in,
 * and the old one put back when that fails. Failures are injected through writeTree's file system seam.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { rename } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TargetRefusedError, writeTree } from "../../packages/compiler/src/emit/disk/swap.ts";
import { childOf, inside, OutsideOutputError } from "../../packages/compiler/src/emit/disk/inside.ts";
import { writeFiles } from "../../packages/compiler/src/emit/disk/write.ts";
import { removeDir, tempDir } from "../helpers/kervanc.ts";
import { KERVANC_MANIFEST, snapshot } from "../cli/tree.ts";

let root: string;
beforeAll(async () => {
  root = await tempDir("write-tree");
});
afterAll(async () => {
  await removeDir(root);
});

describe("inside and childOf", () => {
  it("accept paths strictly inside the folder", () => {
    expect(inside("/out", "pkg")).toBe(resolve("/out/pkg"));
    expect(inside("/out", "pkg/src/a.ts")).toBe(resolve("/out/pkg/src/a.ts"));
    expect(inside("/out", "./a/../b")).toBe(resolve("/out/b"));
    expect(childOf("/out", "pkg")).toBe(resolve("/out/pkg"));
    expect(childOf("/out", ".pkg.new-")).toBe(resolve("/out/.pkg.new-"));
  });

  it.each(["", ".", "..", "../x", "a/../..", "a/../../x", "/etc/passwd", "/out", "/out/x"])(
    "inside refuses %j",
    (path) => {
      expect(() => inside("/out", path)).toThrow(OutsideOutputError);
    },
  );

  it.each(["", ".", "..", "a/b", "a/", "../out/x", "/out/x"])("childOf refuses %j", (name) => {
    expect(() => childOf("/out", name)).toThrow(OutsideOutputError);
  });
});

describe("writeFiles", () => {
  it.each([["../escaped.txt"], ["a/../../escaped.txt"], ["/tmp/escaped-by-kervanc.txt"]])(
    "refuses %j before writing any file",
    async (bad) => {
      const dir = join(root, `files-${Math.abs(bad.length)}-${bad.charCodeAt(0)}`);
      await mkdir(dir, { recursive: true });
      const parentBefore = await readdir(root);
      const files = new Map([
        ["a.txt", "inside\n"],
        [bad, "outside\n"],
      ]);
      await expect(writeFiles(join(dir, "pkg"), files)).rejects.toThrow(OutsideOutputError);
      expect(existsSync(join(dir, "pkg"))).toBe(false);
      expect(await readdir(root)).toEqual(parentBefore);
      expect(existsSync("/tmp/escaped-by-kervanc.txt")).toBe(false);
    },
  );
});

const OLD = new Map([
  ["manifest.json", KERVANC_MANIFEST],
  ["server.mjs", "// old\n"],
]);
const NEW = new Map([
  ["manifest.json", KERVANC_MANIFEST],
  ["server.mjs", "// new\n"],
  ["src/tools.ts", "export {};\n"],
]);

async function outWithOldPackage(name: string): Promise<string> {
  const out = join(root, name);
  await mkdir(out, { recursive: true });
  await writeTree(out, "pkg", OLD);
  await writeFile(join(out, "sibling.txt"), "mine\n");
  return out;
}

describe("writeTree", () => {
  it("replaces a package and leaves no staging folder behind", async () => {
    const out = await outWithOldPackage("swap-ok");
    await writeTree(out, "pkg", NEW);
    expect(readFileSync(join(out, "pkg", "server.mjs"), "utf8")).toBe("// new\n");
    expect((await readdir(out)).sort()).toEqual(["pkg", "sibling.txt"]);
  });

  it("keeps the old package when moving the new one in fails", async () => {
    const out = await outWithOldPackage("swap-fails");
    const before = await snapshot(out);
    const failing = {
      rename: async (from: string, to: string): Promise<void> => {
        if (from.includes(".pkg.new-"))
          throw Object.assign(new Error("injected"), { code: "EIO", syscall: "rename", path: from });
        await rename(from, to);
      },
    };
    await expect(writeTree(out, "pkg", NEW, failing)).rejects.toThrow("injected");
    expect(await snapshot(out)).toEqual(before);
  });

  it("keeps the old package in place when renaming it aside fails", async () => {
    const out = await outWithOldPackage("aside-fails");
    const before = await snapshot(out);
    const failing = {
      rename: async (from: string): Promise<void> => {
        throw Object.assign(new Error("injected"), { code: "EBUSY", syscall: "rename", path: from });
      },
    };
    await expect(writeTree(out, "pkg", NEW, failing)).rejects.toThrow("injected");
    expect(await snapshot(out)).toEqual(before);
  });

  it("says where the old package is when putting it back fails too", async () => {
    const out = await outWithOldPackage("restore-fails");
    let aside = "";
    const failing = {
      rename: async (from: string, to: string): Promise<void> => {
        if (from.includes(".pkg.new-") || from.includes(".pkg.old-"))
          throw Object.assign(new Error("injected"), { code: "EIO", syscall: "rename", path: from });
        aside = to;
        await rename(from, to);
      },
    };
    const error = (await writeTree(out, "pkg", NEW, failing).then(
      () => ({}),
      (e: unknown) => e,
    )) as { path?: string; message?: string };
    expect(error).toMatchObject({ path: aside, code: "EIO" });
    expect(error.message).toContain(aside);
    expect(readFileSync(join(aside, "server.mjs"), "utf8")).toBe("// old\n");
    expect((await readdir(out)).filter((n) => n.startsWith(".pkg.new-"))).toEqual([]);
  });

  it("refuses, at the moment of writing, a place that is not a kervanc package", async () => {
    const out = join(root, "late-refusal");
    await mkdir(join(out, "pkg"), { recursive: true });
    await writeFile(join(out, "pkg", "index.ts"), "export const mine = 1;\n");
    const before = await snapshot(out);
    await expect(writeTree(out, "pkg", NEW)).rejects.toThrow(TargetRefusedError);
    expect(await snapshot(out)).toEqual(before);
  });

  it("refuses a package name that leaves the output folder", async () => {
    const out = join(root, "bad-name", "out");
    await mkdir(out, { recursive: true });
    for (const name of ["..", ".", "a/b", "../out2"])
      await expect(writeTree(out, name, NEW)).rejects.toThrow(OutsideOutputError);
    expect(await readdir(join(root, "bad-name"))).toEqual(["out"]);
    expect(await readdir(out)).toEqual([]);
  });
});
