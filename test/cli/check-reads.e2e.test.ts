/**
 * `kervanc check` reads a package folder that may come from a pull request. It must not follow a symbolic link
 * out of it (a README.md linked to a file on the CI machine would be printed as a diff) and must not block on
 * a named pipe (the same class as issue 13, finding 7, on the reading side).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

let root: string;
let specs: string;
let out: string;
/** A second build that no test changes, copied by the tests that need a package to spoil. */
let pristine: string;
beforeAll(async () => {
  root = await tempDir("check-reads");
  specs = join(root, "specs");
  out = join(root, "out");
  await mkdir(specs);
  await writeFile(join(specs, "posts.yaml"), readFileSync(join(REPO, "fixtures/specs/posts.yaml")));
  const r = await kervanc(["build", specs, "-o", out]);
  expect(r.code).toBe(0);
  pristine = join(root, "pristine");
  await cp(out, pristine, { recursive: true });
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

  it("reports a linked package folder as changed without reading through it, in every format", async () => {
    // A pull request can commit servers/<name> as a link to another checkout on the CI machine.
    const elsewhere = join(root, "elsewhere");
    await cp(join(pristine, "posts"), elsewhere, { recursive: true });
    await writeFile(join(elsewhere, "README.md"), "AWS_SECRET_ACCESS_KEY=do-not-print-me\n");
    const linked = join(root, "linked-out");
    await mkdir(linked);
    await symlink(elsewhere, join(linked, "posts"));
    for (const format of ["text", "markdown", "json"]) {
      const r = await kervanc(["check", specs, "-o", linked, "--format", format]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain("do-not-print-me");
      expect(r.stdout).toContain("a symbolic link on disk, not a package folder; kervanc does not read through it");
    }
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

// A sparse file: gigabytes long at no cost on disk. Reading one whole exhausts memory, or fails past 2 GiB.
const HUGE = 3 * 1024 ** 3;

describe("kervanc check and diff on a package with a huge file in it", () => {
  it("check reports a file of gigabytes as changed by its size, without reading it (was: an internal error)", async () => {
    const folder = join(root, "huge-check");
    await cp(pristine, folder, { recursive: true });
    await rm(join(folder, "posts", "README.md"));
    await writeFile(join(folder, "posts", "README.md"), "");
    await truncate(join(folder, "posts", "README.md"), HUGE);
    const r = await kervanc(["check", specs, "-o", folder]);
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`  changed README\\.md \\(${HUGE} bytes on disk, \\d+ expected\\)`));
  });

  it("diff shows a file of gigabytes as too large to compare, without reading it", async () => {
    const before = join(root, "small-diff");
    await cp(pristine, before, { recursive: true });
    await writeFile(join(before, "posts", "README.md"), "short\n");
    const folder = join(root, "huge-diff");
    await cp(pristine, folder, { recursive: true });
    await writeFile(join(folder, "posts", "README.md"), "");
    await truncate(join(folder, "posts", "README.md"), HUGE);
    const r = await kervanc(["diff", before, folder]);
    expect(r.stderr).not.toContain("internal error");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`-short\n+(a file of ${HUGE} bytes, too large to compare)`);
  });
});

describe("kervanc diff on output folders with pipes in them", () => {
  it.skipIf(process.platform === "win32")(
    "does not wait on a manifest.json that is a named pipe: the package shows with its surface unknown",
    async () => {
      const folder = join(root, "fifo-diff");
      await cp(pristine, folder, { recursive: true });
      await rm(join(folder, "posts", "manifest.json"));
      execFileSync("mkfifo", [join(folder, "posts", "manifest.json")]);
      // Without the fix, diff opens the pipe to see whether a package is there and never returns.
      const r = await kervanc(["diff", pristine, folder]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain("posts: surface unknown (a manifest.json could not be read)");
      expect(r.stdout).toContain("    changed manifest.json");
    },
  );
});

describe("kervanc diff --format markdown and control characters", () => {
  it("shows a file name's and a file's escape sequences as \\uXXXX, never raw", async () => {
    const folder = join(root, "escapes");
    await cp(pristine, folder, { recursive: true });
    await writeFile(join(folder, "posts", "x\u001b[2J\nforged"), "hi\n");
    await writeFile(
      join(folder, "posts", "README.md"),
      `${readFileSync(join(pristine, "posts", "README.md"), "utf8")}evil \u001b]0;title\u0007 line\n`,
    );
    const r = await kervanc(["diff", pristine, folder, "--format", "markdown"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/[\u001b\u0007]/);
    expect(r.stdout).toContain("+evil \\u001B]0;title\\u0007 line");
    expect(r.stdout).toContain("x\\u001B[2J");
  });
});
