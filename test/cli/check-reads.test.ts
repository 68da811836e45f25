/**
 * `kervanc check` reads a package folder that may come from a pull request. It must not follow a symbolic link
 * out of it (a README.md linked to a file on the CI machine would be printed as a diff) and must not block on
 * a named pipe (the same class as issue 13, finding 7, on the reading side).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

let root: string;
let specs: string;
let out: string;
beforeAll(async () => {
  root = await tempDir("check-reads");
  specs = join(root, "specs");
  out = join(root, "out");
  await mkdir(specs);
  await writeFile(join(specs, "posts.yaml"), readFileSync(join(REPO, "fixtures/specs/posts.yaml")));
  const r = await kervanc(["build", specs, "-o", out]);
  expect(r.code).toBe(0);
});
afterAll(async () => {
  await removeDir(root);
});

describe("kervanc check on a package with links and pipes in it", () => {
  it("reports a linked file as changed without reading through the link", async () => {
    const secret = join(root, "ci-secret.txt");
    await writeFile(secret, "TOKEN=do-not-print-me\n");
    await rm(join(out, "posts", "README.md"));
    await symlink(secret, join(out, "posts", "README.md"));
    const r = await kervanc(["check", specs, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  changed README.md (a symbolic link on disk, not a file)");
    expect(r.stdout + r.stderr).not.toContain("do-not-print-me");
    await rm(join(out, "posts", "README.md"));
  });

  it("reports a named pipe as changed without waiting on it", async () => {
    execFileSync("mkfifo", [join(out, "posts", "README.md")]);
    const r = await kervanc(["check", specs, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  changed README.md (a named pipe (fifo) on disk, not a file)");
  });

  it("does not count a folder whose manifest.json is a link as a kervanc package", async () => {
    await mkdir(join(out, "stray"));
    await symlink(join(out, "posts", "manifest.json"), join(out, "stray", "manifest.json"));
    const r = await kervanc(["check", specs, "-o", out]);
    expect(r.stdout).not.toContain("stray holds a kervanc package");
  });
});
