/**
 * Regenerates the golden packages: `fixtures/golden/<spec>/` for every spec in `fixtures/specs/`.
 *
 *   npm run goldens
 *
 * The goldens are what `kervanc build` writes for the fixture specs, committed so that a change to the
 * compiler or the runtime shows up as a reviewable diff; `test/emit/golden.e2e.test.ts` runs `kervanc check`
 * against them and type-checks each one. Run this after such a change and commit the result.
 *
 * Every package is rebuilt (`--force`: the kervanc version does not change with every commit), and a golden
 * package whose spec was removed is deleted.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import process from "node:process";
import { run } from "../packages/compiler/src/cli.ts";

const REPO = resolve(import.meta.dirname, "..");
const SPECS = join(REPO, "fixtures", "specs");
const GOLDEN = join(REPO, "fixtures", "golden");

const specs = new Set(
  (await readdir(SPECS))
    .filter((name) => [".yaml", ".yml"].includes(extname(name).toLowerCase()))
    .map((name) => name.slice(0, -extname(name).length)),
);

const existing = await readdir(GOLDEN, { withFileTypes: true }).catch(() => []);
for (const entry of existing) {
  if (!entry.isDirectory() || specs.has(entry.name)) continue;
  // Only delete what kervanc wrote: a folder with a manifest.
  const manifest = await readFile(join(GOLDEN, entry.name, "manifest.json"), "utf8").catch(() => null);
  if (manifest === null) continue;
  await rm(join(GOLDEN, entry.name), { recursive: true });
  process.stderr.write(`Removed fixtures/golden/${entry.name} (its spec is gone).\n`);
}

// Relative paths, so the summary line names the repository's folders.
process.chdir(REPO);
process.exitCode = await run(["build", "fixtures/specs", "-o", "fixtures/golden", "--force"]);
