/**
 * `kervanc check` as CI runs it: exit 0 when the committed output is exactly what a build writes, exit 1 with
 * the file named (and a short diff for text files) when a byte was edited, a file was deleted or added, or the
 * spec changed; exit 2 on usage errors.
 */
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliResult, FIXTURES, kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";

let root: string;
let specDir: string;
let pristine: string;

beforeAll(async () => {
  root = await tempDir("check");
  specDir = join(root, "specs");
  pristine = join(root, "pristine");
  await mkdir(specDir);
  await cp(join(FIXTURES, "specs", "open-meteo.yaml"), join(specDir, "open-meteo.yaml"));
  const r = await kervanc(["build", specDir, "-o", pristine]);
  expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  if (root) await removeDir(root);
});

/** A fresh copy of the built output, changed by `edit`, then checked. */
async function checkAfter(name: string, edit: (out: string) => Promise<void>, specs = specDir): Promise<CliResult> {
  const out = join(root, name);
  await cp(pristine, out, { recursive: true });
  await edit(out);
  return kervanc(["check", specs, "-o", out]);
}

describe("kervanc check", () => {
  it("exits 0 when the output is what a build writes", async () => {
    const r = await checkAfter("unchanged", async () => {});
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Checked 1 server: .*unchanged is up to date \(\d+\.\d\d s\)\.\n$/);
  });

  it("finds a one-byte edit and shows it as a diff", async () => {
    const r = await checkAfter("edited", async (out) => {
      const file = join(out, "open-meteo", "src", "tools", "get_current_weather.ts");
      const text = await readFile(file, "utf8");
      expect(text).toContain('"maximum": 90');
      await writeFile(file, text.replace('"maximum": 90', '"maximum": 91'));
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  changed src/tools/get_current_weather.ts\n");
    expect(r.stdout).toMatch(/\n-.*"maximum": 91.*\n\+.*"maximum": 90/);
    // A hand edit of a tool module changes nothing the manifest describes.
    expect(r.stdout).toMatch(/open-meteo: 0 surface changes, 1 file differs\n/);
    expect(r.stdout).toMatch(/Stale: 1 of 1 package differs \(1 file\) in .*\. Rebuild with: kervanc build/);
  });

  it("names a changed bundle without printing it", async () => {
    const r = await checkAfter("bundle", async (out) => {
      const file = join(out, "open-meteo", "server.mjs");
      const bytes = await readFile(file);
      bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 1;
      await writeFile(file, bytes);
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ {2}changed server\.mjs \(the minified bundle; \d+ bytes on disk, \d+ expected\)\n/);
    expect(r.stdout).not.toContain("+++");
  });

  it("finds a deleted file", async () => {
    const r = await checkAfter("deleted", (out) => rm(join(out, "open-meteo", "sbom.cdx.json")));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("    added   sbom.cdx.json\n");
  });

  it("finds an extra file", async () => {
    const r = await checkAfter("extra", (out) =>
      writeFile(join(out, "open-meteo", "src", "tools", "notes.md"), "mine\n"),
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("    removed src/tools/notes.md\n");
  });

  it("finds a changed spec", async () => {
    const changed = join(root, "changed-specs");
    await mkdir(changed);
    const spec = await readFile(join(specDir, "open-meteo.yaml"), "utf8");
    await writeFile(
      join(changed, "open-meteo.yaml"),
      spec.replace("wind speed and weather code", "wind speed and weather"),
    );
    const r = await checkAfter("changed-spec", async () => {}, changed);
    expect(r.code).toBe(1);
    for (const file of ["manifest.json", "README.md", "server.mjs", "src/tools/get_current_weather.ts"])
      expect(r.stdout).toMatch(new RegExp(`  changed ${file.replace(".", "\\.")}`));
    expect(r.stdout).toContain("  tool get_current_weather: description changed\n");
  });

  it("finds a missing package and a package whose spec is gone", async () => {
    const r = await checkAfter("orphan", async (out) => {
      await cp(join(out, "open-meteo"), join(out, "old-api"), { recursive: true });
      await rm(join(out, "open-meteo"), { recursive: true });
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /open-meteo \(new package\): 2 surface changes \(1 security-relevant\), \d+ files differ\n/,
    );
    expect(r.stdout).toContain("  [security] egress added: https://api.open-meteo.com:443 (GET)\n");
    expect(r.stdout).toMatch(/old-api holds a kervanc package that no given spec builds/);
  });

  it("reports the drift as JSON with --format json", async () => {
    const out = join(root, "json");
    await cp(pristine, out, { recursive: true });
    await rm(join(out, "open-meteo", "README.md"));
    const r = await kervanc(["check", specDir, "-o", out, "--format", "json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      packages: { folder: string; drift: { path: string; status: string }[] }[];
    };
    expect(report.ok).toBe(false);
    expect(report.packages.map((p) => [p.folder, p.drift.map((d) => [d.path, d.status])])).toEqual([
      ["open-meteo", [["README.md", "missing"]]],
    ]);
  });

  it("exits 2 on usage errors", async () => {
    const noOut = await kervanc(["check", specDir]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toBe("kervanc check: missing -o <out>.\nSee kervanc check --help.\n");
    const force = await kervanc(["check", specDir, "-o", pristine, "--force"]);
    expect(force.code).toBe(2);
    expect(force.stderr).toContain("--force applies to build and import only.");
  });
});

describe("kervanc check <specs>... <out>", () => {
  it("takes the output folder as the last argument when -o is not given", async () => {
    const r = await kervanc(["check", "fixtures/specs", "fixtures/golden"]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout + r.stderr).toContain("fixtures/golden is up to date");
  });
});
