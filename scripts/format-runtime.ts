/**
 * Formats packages/runtime/src with the compiler's own prettier settings (scripts/prettier-style.ts).
 *
 * Every generated package carries a verbatim copy of the runtime, so the runtime's sources are kept in exactly
 * the form the compiler would give them: the build then copies them instead of formatting them again (which
 * cost most of a second per build). test/emit/runtime-formatted.test.ts fails when a file drifts.
 *
 *   npm run format:runtime
 */
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { format } from "./prettier-style.ts";
import { RUNTIME_SRC } from "../packages/compiler/src/emit/versions.ts";

const files = (await readdir(RUNTIME_SRC, { recursive: true })).filter((f) => f.endsWith(".ts")).sort();
let changed = 0;
for (const file of files) {
  const path = join(RUNTIME_SRC, file);
  const source = await readFile(path, "utf8");
  const formatted = await format(source, "typescript");
  if (formatted !== source) {
    await writeFile(path, formatted);
    changed++;
    console.log(`formatted ${file}`);
  }
}
console.log(`${changed} of ${files.length} runtime files changed.`);
