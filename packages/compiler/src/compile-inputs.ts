/**
 * Every spec of a command's inputs, compiled (build, check): found, read (regular files only), loaded, then
 * analyzed and planned by compile.ts, imported with the first spec that loads. Every spec is compiled before
 * anything is written, so one run reports every problem in every spec; the package folders' names are checked too.
 */
import { join } from "node:path";
import { type CompiledSpec, notLoaded, specFolder, unchangedSpec, unreadableSpec } from "./compiled-spec.ts";
import {
  compareDiagnostics,
  type Diagnostic,
  hasErrors,
  report,
  toDiagnostic,
  WHOLE_FILE,
} from "./diagnostics/diagnostic.ts";
import { findSpecs } from "./load/find-specs.ts";
import { warmUpPatternAnalysisFor } from "./analyze/regex-backtracking.ts";
import { loadSpec, specSha256 } from "./load/load.ts";
import { readRegularFile } from "./load/regular-file.ts";
import type { ListingSize } from "./plan/budget.ts";
import { folderKey, packageNameProblem } from "./plan/package-name.ts";

/**
 * Whether a spec's package is already what compiling it would give (build.ts: its manifest names this kervanc and
 * the spec file's name and SHA-256): then the tools/list size its manifest records, and the spec is neither
 * parsed nor analyzed again; null otherwise.
 */
export type UpToDate = (
  spec: { readonly file: string; readonly sha256: string },
  folder: string,
) => Promise<ListingSize | null>;

/**
 * Every spec of the inputs, compiled; the packages' folder names are checked too (KV9003, KV9007). A spec that
 * `upToDate` accepts is read but not loaded or analyzed (its result has `unchanged` set, and no plan): loading and
 * analysis are functions of the spec's bytes and kervanc's content, both of which its package's stamp records, so
 * they would find what they found when the package was built. When every spec is unchanged, the analysis stage is
 * never loaded.
 */
export async function compileInputs(
  inputs: readonly string[],
  outDir: string,
  followLinksOutside = false,
  upToDate: UpToDate | null = null,
): Promise<{ diagnostics: Diagnostic[]; compiled: CompiledSpec[]; ok: boolean; sources: Map<string, string> }> {
  const sources = new Map<string, string>();
  const found = await findSpecs(inputs, { followLinksOutside });
  const diagnostics: Diagnostic[] = [...found.diagnostics];
  if (found.files.length === 0 && found.diagnostics.length === 0) {
    diagnostics.push(
      toDiagnostic(
        ".",
        WHOLE_FILE,
        report("KV9001", [], (m) => m.noSpecs),
      ),
    );
  }
  const compiled: CompiledSpec[] = [];
  const folders = new Map<string, string>();
  for (const file of found.files) {
    // Read without blocking and only if still a regular file: the path may have been replaced since findSpecs.
    const read = await readRegularFile(file);
    if (!read.ok) {
      diagnostics.push(unreadableSpec(file, read));
      continue;
    }
    // Only a plain folder name is looked up in the output folder (KV9007 below refuses the others: `..` would
    // name the folder above it).
    const folder = specFolder(file);
    const unchanged =
      upToDate !== null && packageNameProblem(folder) === null
        ? await upToDate({ file, sha256: specSha256(read.bytes) }, folder)
        : null;
    // The analysis stage is loaded with the first spec that loads: a spec refused while loading is reported
    // without it.
    const loaded = unchanged === null ? loadSpec(file, read.bytes) : null;
    // Before the analysis stage loads: the pattern worker's start overlaps that.
    if (loaded?.ok === true) warmUpPatternAnalysisFor(loaded.spec.text);
    const result =
      loaded === null
        ? unchangedSpec(file, read.bytes, unchanged!)
        : !loaded.ok
          ? notLoaded(file, loaded)
          : (await import("./compile.ts")).compileLoaded(file, loaded.spec);
    diagnostics.push(...result.diagnostics);
    if (result.text !== undefined && result.diagnostics.length > 0) sources.set(file, result.text);
    const problem = packageNameProblem(result.folder);
    if (problem !== null) {
      diagnostics.push(
        toDiagnostic(
          file,
          WHOLE_FILE,
          report("KV9007", [], (m) => m.badFolderName({ folder: JSON.stringify(result.folder), problem })),
        ),
      );
    } else {
      const other = folders.get(folderKey(result.folder));
      if (other !== undefined) {
        diagnostics.push(
          toDiagnostic(
            file,
            WHOLE_FILE,
            report("KV9003", [], (m) => m.sameFolder({ file, other, folder: join(outDir, result.folder) })),
          ),
        );
      } else folders.set(folderKey(result.folder), file);
    }
    compiled.push(result);
  }
  diagnostics.sort(compareDiagnostics);
  return { diagnostics, compiled, ok: !hasErrors(diagnostics), sources };
}
