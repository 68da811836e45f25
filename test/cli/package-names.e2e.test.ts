/**
 * Issue 13, findings 1 and 9: a spec's file name decides the folder build replaces. `...yaml` once made build
 * delete the parent of the output folder, `..yaml` the output folder itself. Every name that is not one plain
 * folder name on every system is refused with KV9007 before anything is written, through the real CLI, and
 * nothing in the project around the output folder changes.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { withoutFrames } from "../helpers/kervanc.ts";
import { kervancInProcess } from "../helpers/kervanc-in-process.ts";
import { oneLine } from "../../packages/compiler/src/diagnostics/diagnostic.ts";
import { KERVANC_MANIFEST, snapshot } from "./tree.ts";

const SPEC = readFileSync(join(REPO, "fixtures/specs/posts.yaml"), "utf8");

let root: string;
beforeAll(async () => {
  root = await tempDir("names");
});
afterAll(async () => {
  await removeDir(root);
});

/** A project: sources, a package.json, and an output folder with another package and a user file in it. */
async function project(name: string, specFile: string): Promise<{ proj: string; specs: string; out: string }> {
  const proj = join(root, name);
  const specs = join(proj, "specs");
  const out = join(proj, "out");
  await mkdir(join(proj, "src"), { recursive: true });
  await writeFile(join(proj, "src", "index.ts"), "export const mine = 1;\n");
  await writeFile(join(proj, "package.json"), '{ "name": "mine" }\n');
  await mkdir(join(out, "other"), { recursive: true });
  await writeFile(join(out, "other", "manifest.json"), KERVANC_MANIFEST);
  await writeFile(join(out, "notes.txt"), "mine\n");
  await mkdir(specs);
  await writeFile(join(specs, specFile), SPEC);
  return { proj, specs, out };
}

const REFUSED: readonly [file: string, folder: string, why: string][] = [
  ["...yaml", "..", "names the folder above the output folder"],
  ["..yaml", ".", "names the output folder itself, not a folder inside it"],
  [".yaml", ".yaml", "starts with a dot"],
  [".hidden.yaml", ".hidden", "starts with a dot"],
  ["CON.yaml", "CON", "is the Windows device name CON"],
  ["con.txt.yaml", "con.txt", "is the Windows device name CON"],
  ["Nul.yaml", "Nul", "is the Windows device name NUL"],
  ["aux.json.yaml", "aux.json", "is the Windows device name AUX"],
  ["COM1.yaml", "COM1", "is the Windows device name COM1"],
  ["lpt9.yaml", "lpt9", "is the Windows device name LPT9"],
  ["trailing..yaml", "trailing.", "ends with a dot or a space"],
  ["space .yaml", "space ", "ends with a dot or a space"],
  ["back\\slash.yaml", "back\\slash", "contains a path separator"],
  ["a:b.yaml", "a:b", "contains a character Windows refuses"],
  ["what?.yaml", "what?", "contains a character Windows refuses"],
  ["esc\u001b[2J.yaml", "esc\u001b[2J", "contains a control or invisible character"],
  ["bell\u0007.yaml", "bell\u0007", "contains a control or invisible character"],
  ["new\nline.yaml", "new\nline", "contains a control or invisible character"],
  ["tab\tname.yaml", "tab\tname", "contains a control or invisible character"],
  ["c1\u009b31m.yaml", "c1\u009b31m", "contains a control or invisible character"],
  ["rtl\u202eyaml.yaml", "rtl\u202eyaml", "contains a control or invisible character"],
];

describe("kervanc build refuses a spec whose file name is not a plain folder name (KV9007)", () => {
  // The two reported attacks run as processes; the rest of the table through the CLI's run() in this process
  // (about 2 s of start-up saved per case; the folder scans below are processes too).
  it.each(REFUSED.map((r, i) => [i, ...r] as const))(
    "#%i %j: named on the command line",
    async (i, file, folder, why) => {
      const { proj, specs, out } = await project(`cli-${i}`, file);
      const before = await snapshot(proj);
      const args = ["build", join(specs, file), "-o", out];
      const r = i < 2 ? await kervanc(args) : await kervancInProcess(args);
      expect(r.code).toBe(1);
      const expected = `${oneLine(join(specs, file))}:1:1 - error KV9007: This spec's package folder would be ${oneLine(JSON.stringify(folder))}, which ${why}`;
      expect(withoutFrames(r.stderr).split("\n")[0]!.startsWith(expected), r.stderr).toBe(true);
      expect(r.stderr).toContain("nothing was written.");
      expect(await snapshot(proj)).toEqual(before);
    },
  );

  it.each([["...yaml"], ["..yaml"], [".hidden.yaml"], ["CON.yaml"], ["esc\u001b[2J.yaml"]])(
    "%j: found by a folder scan",
    async (file) => {
      const { proj, specs, out } = await project(`scan-${REFUSED.findIndex((r) => r[0] === file)}`, file);
      await writeFile(join(specs, "fine.yaml"), SPEC);
      const before = await snapshot(proj);
      const r = await kervanc(["build", specs, "-o", out]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${oneLine(join(specs, file))}:1:1 - error KV9007: `);
      // Nothing is written for any spec, the good one included.
      expect(await snapshot(proj)).toEqual(before);
    },
  );

  it("refuses `...yaml` with -o pointing into the project: the project survives (the reported attack)", async () => {
    const { proj, specs } = await project("attack", "...yaml");
    const before = await snapshot(proj);
    const r = await kervanc(["build", join(specs, "...yaml"), "-o", join(proj, "out")], { cwd: proj });
    expect(r.code).toBe(1);
    expect(await snapshot(proj)).toEqual(before);
  });

  it("reports names that differ only in case or Unicode normalisation as one folder (KV9003)", async () => {
    const { proj, specs, out } = await project("nfc", "caf\u00e9.yaml");
    await writeFile(join(specs, "CAFE\u0301.yaml"), SPEC);
    const before = await snapshot(proj);
    const r = await kervanc(["build", specs, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error KV9003: .* would both be written to /);
    expect(await snapshot(proj)).toEqual(before);
  });

  it("prints the refusal as one escaped line in text, and the raw name in JSON", async () => {
    const file = "x\u001b]0;pwned\u0007\nBuilt 9 servers.yaml";
    const { specs, out } = await project("escape", file);
    const text = await kervanc(["build", specs, "-o", out]);
    expect(text.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const lines = withoutFrames(text.stderr)
      .split("\n")
      .filter((l) => l !== "");
    expect(lines).toEqual([
      `${oneLine(join(specs, file))}:1:1 - error KV9007: This spec's package folder would be "x\\u001b]0;pwned\\u0007\\nBuilt 9 servers", which contains a control or invisible character; rename the spec file.`,
      "Found 1 error; nothing was written.",
    ]);
    expect(lines[0]).toContain("x\\u001B]0;pwned\\u0007\\u000ABuilt 9 servers.yaml:1:1");
    const json = await kervanc(["build", specs, "-o", out, "--format", "json"]);
    const [d] = JSON.parse(json.stdout) as { code: string; file: string }[];
    expect(d).toMatchObject({ code: "KV9007", file: join(specs, file) });
  });
});
