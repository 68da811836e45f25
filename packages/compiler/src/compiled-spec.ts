/**
 * What compiling one spec gives (`CompiledSpec`), the result for a spec the load stage refused, and the findings
 * about a spec as a whole. Apart from compile.ts, which does the compiling, so that a spec refused while loading is
 * reported without the analysis stage.
 */
import { basename, extname } from "node:path";
import { type Diagnostic, report, toDiagnostic, toDiagnostics, WHOLE_FILE } from "./diagnostics/diagnostic.ts";
import { type LoadedSpec, type LoadResult, specLocator } from "./load/load.ts";
import type { ListingSize } from "./plan/budget.ts";
import type { PlannedServer } from "./plan/plan.ts";

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
  /**
   * Read but neither loaded nor analyzed: its package is what compiling it would give (compile-inputs.ts,
   * `UpToDate`). The size of its tools/list as the package's manifest records it, and the bytes, should a warning
   * need a place in the spec.
   */
  readonly unchanged?: { readonly toolsList: ListingSize; readonly bytes: Uint8Array };
}

/** The package folder a spec file builds into: its name without the extension. */
export function specFolder(file: string): string {
  return basename(file, extname(file));
}

/** The result for a spec the load stage refused: its load findings, at the places the load stage gave them. */
export function notLoaded(file: string, loaded: Extract<LoadResult, { ok: false }>): CompiledSpec {
  const diagnostics = toDiagnostics(file, WHOLE_FILE, loaded.findings);
  return { file, folder: specFolder(file), diagnostics, text: loaded.text, loaded: null, planned: null };
}

/** The result for a spec whose package is up to date: read, neither loaded nor analyzed, nothing to report. */
export function unchangedSpec(file: string, bytes: Uint8Array, toolsList: ListingSize): CompiledSpec {
  const folder = specFolder(file);
  return {
    file,
    folder,
    diagnostics: [],
    text: undefined,
    loaded: null,
    planned: null,
    unchanged: { toolsList, bytes },
  };
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
