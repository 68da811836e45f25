/**
 * The front half every command shares: find specs, then load → analyze → plan each, with no file written and
 * nothing of emit loaded (import, call, dev and test use it too; build.ts and review/check.ts go on to emit).
 *
 * Every spec is loaded and analyzed before anything is written, so one run reports every problem in every spec.
 */
import { basename, extname, join } from "node:path";
import { analyzeSpec } from "./analyze/analyze.ts";
import { capDiagnostics, MAX_DIAGNOSTICS_PER_FILE } from "./diagnostics/cap.ts";
import {
  compareDiagnostics,
  type Diagnostic,
  formatPath,
  hasErrors,
  report,
  type SpecPath,
  toDiagnostic,
  toDiagnostics,
  WHOLE_FILE,
} from "./diagnostics/diagnostic.ts";
import { findSpecs } from "./load/find-specs.ts";
import { type LoadedSpec, loadSpec, locate, sourceText, specLocator } from "./load/load.ts";
import { readRegularFile } from "./load/regular-file.ts";
import type { ListingSize } from "./plan/budget.ts";
import { folderKey, packageNameProblem } from "./plan/package-name.ts";
import { type PlannedServer, planServer } from "./plan/plan.ts";

export { findSpecs, MAX_DIAGNOSTICS_PER_FILE };

export interface CompiledSpec {
  readonly file: string;
  readonly folder: string;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The spec's text, decoded once by the load stage, for code frames; undefined when it is not UTF-8 within the
   * size limit, or not a YAML mapping at its root (then it is no spec, and its lines are not printed).
   */
  readonly text: string | undefined;
  readonly loaded: LoadedSpec | null;
  readonly planned: PlannedServer | null;
}

/** Load, check and plan one spec (no file system access): the part every command shares. */
export function compileSpec(
  file: string,
  bytes: Uint8Array,
  options: { readonly devLoopbackHttp?: boolean } = {},
): CompiledSpec {
  const folder = basename(file, extname(file));
  const loaded = loadSpec(file, bytes);
  if (!loaded.ok) {
    const diagnostics = toDiagnostics(file, WHOLE_FILE, loaded.findings);
    return { file, folder, diagnostics, text: loaded.text, loaded: null, planned: null };
  }
  const spec = loaded.spec;
  const analysis = analyzeSpec(spec.value, {
    sourceOf: (path) => sourceText(spec, path),
    devLoopbackHttp: options.devLoopbackHttp === true,
  });
  const diagnostics = capDiagnostics(
    file,
    toDiagnostics(file, specLocator(spec), analysis.findings).sort(compareDiagnostics),
  );
  // The file's base name, as manifest.json records it: the generated server must not depend on where it was built.
  const placeOf = (path: SpecPath): string => {
    const { line, column } = locate(spec, path);
    return `${basename(file)}:${line}:${column} ${formatPath(path)}`;
  };
  const planned = analysis.analyzed && !hasErrors(diagnostics) ? planServer(analysis.analyzed, placeOf) : null;
  // A file that is not a mapping at its root is no spec (a credentials file behind a link, say): no code frames.
  const value = spec.value;
  const text = typeof value === "object" && value !== null && !Array.isArray(value) ? spec.text : undefined;
  return { file, folder, diagnostics, text, loaded: spec, planned };
}

/** Why a spec file was not read: not a regular file (KV9009) or a read error (KV1010); for build, check and dev. */
export function unreadableSpec(file: string, read: { readonly what?: string; readonly code?: string }): Diagnostic {
  const { what } = read;
  const finding =
    what !== undefined
      ? report("KV9009", [], (m) => m.notRegularFile({ file, what }))
      : report("KV1010", [], (m) => m.unreadable({ code: String(read.code) }));
  return toDiagnostic(file, WHOLE_FILE, finding);
}

/**
 * KV9006 when a server's tools/list is estimated above `budget` tokens, placed at the spec's `tools` key: the one
 * place it is made, for build and for import (which checks the spec it writes).
 */
export function overBudget(spec: LoadedSpec, size: ListingSize, budget: number): Diagnostic | null {
  if (size.tokens <= budget) return null;
  const { characters, tokens } = size;
  return toDiagnostic(
    spec.file,
    specLocator(spec),
    report("KV9006", ["tools"], (m) => m.overBudget({ characters, tokens, budget }), { atKey: true }),
  );
}

/** Every spec of the inputs, compiled; the packages' folder names are checked too (KV9003, KV9007). */
export async function compileInputs(
  inputs: readonly string[],
  outDir: string,
  followLinksOutside = false,
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
    const result = compileSpec(file, read.bytes);
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
