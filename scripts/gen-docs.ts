/**
 * Regenerates the files derived from the compiler's sources of truth:
 * - docs/diagnostics.md from the code table (packages/compiler/src/diagnostics/codes.ts).
 *
 * Run with `npm run docs`. test/check/generated-files.test.ts fails when a committed copy differs.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { renderDiagnosticsDoc } from "../packages/compiler/src/diagnostics/docs.ts";

const ROOT = resolve(import.meta.dirname, "..");

export const GENERATED: readonly { readonly path: string; readonly render: () => string }[] = [
  { path: "docs/diagnostics.md", render: renderDiagnosticsDoc },
];

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  for (const { path, render } of GENERATED) {
    const file = join(ROOT, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, render());
    process.stdout.write(`wrote ${path}\n`);
  }
}
