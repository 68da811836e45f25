/**
 * Regenerates the files derived from the compiler's sources of truth:
 * - docs/diagnostics.md from the code table (packages/compiler/src/diagnostics/codes.ts);
 * - schema/kervan-spec.schema.json, the editor JSON Schema, from the spec format's shapes (analyze/spec-format.ts);
 * - schema/kervan-test.schema.json, the editor JSON Schema of spec-test files, from spectest/format.ts.
 *
 * Run with `npm run docs`. test/analyze/generated-files.test.ts fails when a committed copy differs.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { renderEditorSchema } from "../packages/compiler/src/analyze/editor-schema.ts";
import { renderTestEditorSchema } from "../packages/compiler/src/spectest/editor-schema.ts";
import { renderDiagnosticsDoc } from "../packages/compiler/src/diagnostics/docs.ts";

const ROOT = resolve(import.meta.dirname, "..");

export const GENERATED: readonly { readonly path: string; readonly render: () => string }[] = [
  { path: "docs/diagnostics.md", render: renderDiagnosticsDoc },
  { path: "schema/kervan-spec.schema.json", render: renderEditorSchema },
  { path: "schema/kervan-test.schema.json", render: renderTestEditorSchema },
];

if (process.argv[1] !== undefined && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  for (const { path, render } of GENERATED) {
    const file = join(ROOT, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, render());
    process.stdout.write(`wrote ${path}\n`);
  }
}
