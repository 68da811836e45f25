/**
 * Security round 2, finding 1: a symbolic link in a spec folder that leads to a file outside it (a credentials
 * file, the checkout's .git/config with its token, /proc/self/environ) is not read by build, check or test, and
 * nothing of that file reaches the output in any format; a file that is not a YAML mapping (or, for import, not an
 * OpenAPI document) gets no code frame even when it is read. `--follow-links-outside` reads such links, by
 * name of the risk. In process (the CLI's own run()); one case runs the bin as a process.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervancInProcess } from "../helpers/kervanc-in-process.ts";
import { getThingSpec, kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";

const CANARY = "Q0FOQVJZOnNlY3JldA";
let dir: string;
let specs: string;
let out: string;

beforeAll(async () => {
  dir = await tempDir("links-outside");
  specs = join(dir, "specs");
  out = join(dir, "out");
  await mkdir(join(dir, "secret"));
  await mkdir(specs);
  // An INI credentials file (not YAML), a .git/config-like file, and one line that YAML reads as a mapping.
  await writeFile(join(dir, "secret", "credentials"), `[default]\naws_secret_access_key = ${CANARY}/abc\n`);
  await writeFile(join(dir, "secret", "config"), `[http]\n\textraheader = AUTHORIZATION: basic ${CANARY}==\n`);
  await writeFile(join(dir, "secret", "header"), `AUTHORIZATION: basic ${CANARY}==\n`);
  for (const name of ["credentials", "config", "header"])
    await symlink(join("..", "secret", name), join(specs, `${name}.yaml`));
  // A link inside the folder is read as before.
  await writeFile(join(specs, "thing.real"), getThingSpec("thing"));
  await symlink("thing.real", join(specs, "thing.yaml"));
  // A spec test in a folder of its own whose spec is a link out.
  await mkdir(join(dir, "tests"));
  await symlink(join("..", "secret", "header"), join(dir, "tests", "api.yaml"));
  await writeFile(join(dir, "tests", "api.test.yaml"), "cases: []\n");
});

afterAll(async () => {
  if (dir) await removeDir(dir);
});

describe("a spec folder's links to files outside it", () => {
  it.each(["text", "json", "sarif", "github"])(
    "are refused by build (%s), naming the link, printing nothing of the target",
    async (format) => {
      const r = await kervancInProcess(["build", specs, "-o", out, "--format", format]);
      expect(r.code).toBe(1);
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(CANARY);
      expect(all).not.toContain("aws_secret_access_key");
      for (const name of ["credentials", "config", "header"]) expect(all).toContain(`${name}.yaml`);
      expect(all).toContain("KV9011");
      // The link that stays inside the folder is a spec like any other: no KV9011 for it.
      expect(all).not.toMatch(/thing\.yaml[^\n]*KV9011/);
    },
  );

  it("are refused by check", async () => {
    const r = await kervancInProcess(["check", specs, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    expect(r.stderr).toContain("KV9011");
  });

  it("are refused by test, for a folder's specs", async () => {
    const r = await kervancInProcess(["test", join(dir, "tests")]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    expect(r.stdout + r.stderr).toContain("KV9011");
  });

  it("are read with --follow-links-outside, and a file that is no mapping still gets no frame", async () => {
    const r = await kervancInProcess(["build", specs, "-o", out, "--follow-links-outside"]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("KV9011");
    // credentials.yaml and config.yaml are not YAML mappings: positions and one-line messages, no lines of theirs.
    const [credentials] = r.stderr.split("\n").filter((line) => line.includes("credentials.yaml"));
    expect(credentials).toMatch(/credentials\.yaml:\d+:\d+ - error KV1004/);
    expect(r.stderr).not.toContain("aws_secret_access_key");
    expect(r.stderr).not.toContain("extraheader");
  });

  it("are refused by the installed command too (the bin, as a process)", async () => {
    const r = await kervanc(["build", specs, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain(CANARY);
    expect(r.stderr.match(/KV9011/g)).toHaveLength(3);
  });
});

describe("kervanc import of a file that is no OpenAPI document", () => {
  it.each(["credentials", "header"])("shows %s by position only", async (name) => {
    const r = await kervancInProcess(["import", join(dir, "secret", name), "-o", join(dir, "spec.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain(CANARY);
    expect(r.stderr).toMatch(/ - error KV700[23]: /);
  });
});
