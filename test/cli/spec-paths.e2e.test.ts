/**
 * Issue 13, finding 7: symbolic links among the specs of a folder were skipped without a word. A link to a
 * regular file is built like the file (in a folder as on the command line); a dangling link, a link to a
 * folder, a named pipe, a socket are each refused with KV9009. A named pipe is never opened for a blocking
 * read: kervanc would wait forever for a writer (these tests would then time out).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { withoutFrames } from "../helpers/kervanc.ts";
import { snapshot } from "./tree.ts";

const SPEC = readFileSync(join(REPO, "fixtures/specs/posts.yaml"), "utf8");

let root: string;
const servers: Server[] = [];
beforeAll(async () => {
  root = await tempDir("paths");
});
afterAll(async () => {
  for (const s of servers) s.close();
  await removeDir(root);
});

async function folder(name: string): Promise<string> {
  const dir = join(root, name, "specs");
  await mkdir(dir, { recursive: true });
  return dir;
}

const notAFile = (path: string, what: string): string =>
  `${path}:1:1 - error KV9009: ${path} is ${what}, not a spec file; kervanc reads only regular files.`;

describe("symbolic links and other non-regular files among the specs", () => {
  it("builds a link to a spec in a folder (and one named on the command line) like the spec itself", async () => {
    const specs = await folder("links");
    // The target inside the folder, under a name that is not a spec's: links that stay inside are read.
    await writeFile(join(specs, "real.spec"), SPEC);
    await symlink("real.spec", join(specs, "linked.yaml"));
    await symlink("linked.yaml", join(specs, "chained.yaml"));
    const out = join(root, "links", "out");
    const r = await kervanc(["build", specs, join(specs, "linked.yaml"), "-o", out]);
    expect(r.stderr).toMatch(/^Built 2 servers \(6 tools\) into /);
    expect(r.code).toBe(0);
    expect(existsSync(join(out, "linked", "server.mjs"))).toBe(true);
    expect(existsSync(join(out, "chained", "server.mjs"))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, "linked", "manifest.json"), "utf8")).spec.file).toBe("linked.yaml");
  });

  it("builds a link to a spec outside the folder when it is named on the command line, or with --follow-links-outside", async () => {
    const specs = await folder("outside");
    const shared = join(root, "outside", "shared");
    await mkdir(shared);
    await writeFile(join(shared, "real.yaml"), SPEC);
    await symlink(join(shared, "real.yaml"), join(specs, "linked.yaml"));
    const out = join(root, "outside", "out");
    const named = await kervanc(["build", join(specs, "linked.yaml"), "-o", out]);
    expect(named.code).toBe(0);
    const scanned = await kervanc(["build", specs, "-o", out, "--force"]);
    expect(scanned.code).toBe(1);
    expect(scanned.stderr).toContain("KV9011");
    const followed = await kervanc(["build", specs, "-o", out, "--force", "--follow-links-outside"]);
    expect(followed.code).toBe(0);
  });

  const REFUSED: readonly [
    what: string,
    make: (path: string, dir: string) => Promise<void>,
    message: (path: string) => string,
  ][] = [
    [
      "a dangling link",
      (path, dir) => symlink(join(dir, "missing.yaml"), path),
      (p) => `${p}:1:1 - error KV9009: ${p} is a symbolic link to a file that does not exist.`,
    ],
    [
      "a link loop",
      (path) => symlink(path, path),
      (p) => `${p}:1:1 - error KV9009: ${p} is a symbolic link that cannot be followed (ELOOP).`,
    ],
    ["a link to a folder", (path, dir) => symlink(dir, path), (p) => notAFile(p, "a symbolic link to a folder")],
    ["a named pipe", async (path) => void execFileSync("mkfifo", [path]), (p) => notAFile(p, "a named pipe (fifo)")],
    [
      "a link to a named pipe",
      async (path, dir) => {
        execFileSync("mkfifo", [join(dir, "pipe")]);
        await symlink(join(dir, "pipe"), path);
      },
      (p) => notAFile(p, "a symbolic link to a named pipe (fifo)"),
    ],
    [
      "a socket",
      (path) =>
        new Promise<void>((done) => {
          const server = createServer();
          servers.push(server);
          server.listen(path, done);
        }),
      (p) => notAFile(p, "a socket"),
    ],
  ];

  it.each(REFUSED.map((r, i) => [i, ...r] as const))(
    "#%i refuses %s in a folder, next to a good spec, and writes nothing",
    async (i, _what, make, message) => {
      const specs = await folder(`scan-${i}`);
      await writeFile(join(specs, "good.yaml"), SPEC);
      await make(join(specs, "odd.yaml"), join(root, `scan-${i}`));
      const out = join(root, `scan-${i}`, "out");
      const r = await kervanc(["build", specs, "-o", out]);
      expect(r.code).toBe(1);
      expect(withoutFrames(r.stderr).split("\n")).toEqual([
        message(join(specs, "odd.yaml")),
        "Found 1 error; nothing was written.",
        "",
      ]);
      expect(existsSync(out)).toBe(false);
    },
  );

  // (A link to a folder named on the command line is a folder to search, like the folder itself.)
  it.each(REFUSED.map((r, i) => [i, ...r] as const).filter(([, what]) => what !== "a link to a folder"))(
    "#%i refuses %s named on the command line",
    async (i, _what, make, message) => {
      const specs = await folder(`cli-${i}`);
      await make(join(specs, "odd.yaml"), join(root, `cli-${i}`));
      const out = join(root, `cli-${i}`, "out");
      const r = await kervanc(["build", join(specs, "odd.yaml"), "-o", out]);
      expect(r.code).toBe(1);
      expect(withoutFrames(r.stderr).split("\n")).toEqual([
        message(join(specs, "odd.yaml")),
        "Found 1 error; nothing was written.",
        "",
      ]);
      expect(existsSync(out)).toBe(false);
    },
  );

  it("check refuses a named pipe the same way, without hanging", async () => {
    const specs = await folder("check-fifo");
    execFileSync("mkfifo", [join(specs, "live.yaml")]);
    const r = await kervanc(["check", specs, join(root, "check-fifo", "out")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(notAFile(join(specs, "live.yaml"), "a named pipe (fifo)"));
  });

  it("still skips subfolders of a folder, whatever their name", async () => {
    const specs = await folder("subfolder");
    await mkdir(join(specs, "nested.yaml"));
    const r = await kervanc(["build", specs, "-o", join(root, "subfolder", "out")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error KV9001: No spec files (*.yaml, *.yml) in ${specs}.`);
  });
});

describe("kervanc import and non-regular files", () => {
  const NOTES = join(REPO, "fixtures/openapi/notes.yaml");

  it("refuses a named pipe as the OpenAPI document, without hanging", async () => {
    const dir = join(root, "import-fifo");
    await mkdir(dir);
    execFileSync("mkfifo", [join(dir, "api.yaml")]);
    const r = await kervanc(["import", join(dir, "api.yaml"), "-o", join(dir, "spec.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error KV7001: ${join(dir, "api.yaml")} is a named pipe (fifo), not a file; name an OpenAPI document.`,
    );
    expect(existsSync(join(dir, "spec.yaml"))).toBe(false);
  });

  it.each([
    [
      "a folder",
      (p: string) => mkdir(join(p, "inner"), { recursive: true }),
      "is a folder, not a spec file; choose another -o.",
    ],
    [
      "a named pipe",
      async (p: string) => void execFileSync("mkfifo", [p]),
      "is a named pipe (fifo), not a spec file; choose another -o.",
    ],
    ["a link", (p: string) => symlink("/etc/hostname", p), "is a symbolic link, not a spec file; choose another -o."],
  ])("never replaces %s at -o, even with --force", async (what, make, message) => {
    const dir = join(root, `import-out-${what.replace(/ /g, "-")}`);
    await mkdir(dir);
    const target = join(dir, "spec.yaml");
    await make(target);
    const before = await snapshot(dir);
    const r = await kervanc(["import", NOTES, "-o", target, "--force"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`kervanc: ${target} ${message}`);
    expect(await snapshot(dir)).toEqual(before);
  });
});
