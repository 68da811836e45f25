/**
 * Load, analyze and plan one spec, in memory: the part every command shares, with nothing of emit loaded. This is
 * the module that brings in the analysis stage (Ajv and its formats, JMESPath, every rule, the planner), so the
 * commands that read many specs (compile-inputs.ts, for build and check) import it only once a spec has loaded:
 * a spec refused while loading is reported without it (issue 37).
 */
import { basename } from "node:path";
import { analyzeSpec } from "./analyze/analyze.ts";
import { warmUpPatternAnalysisFor } from "./analyze/regex-backtracking.ts";
import { type CompiledSpec, notLoaded, specFolder } from "./compiled-spec.ts";
import { capDiagnostics, MAX_DIAGNOSTICS_PER_FILE } from "./diagnostics/cap.ts";
import { compareDiagnostics, formatPath, hasErrors, type SpecPath, toDiagnostics } from "./diagnostics/diagnostic.ts";
import { findSpecs } from "./load/find-specs.ts";
import { type LoadedSpec, loadSpec, locate, sourceText, specLocator } from "./load/load.ts";
import { planServer } from "./plan/plan.ts";

export type { CompiledSpec };
export { findSpecs, MAX_DIAGNOSTICS_PER_FILE };

/** Load, check and plan one spec (no file system access): the part every command shares. */
export function compileSpec(
  file: string,
  bytes: Uint8Array,
  options: { readonly devLoopbackHttp?: boolean } = {},
): CompiledSpec {
  // Before loading: the worker's start then overlaps the YAML parse too.
  warmUpPatternAnalysisFor(bytes);
  const loaded = loadSpec(file, bytes);
  return loaded.ok ? compileLoaded(file, loaded.spec, options) : notLoaded(file, loaded);
}

/** Analyze and plan a spec the load stage accepted. */
export function compileLoaded(
  file: string,
  spec: LoadedSpec,
  options: { readonly devLoopbackHttp?: boolean } = {},
): CompiledSpec {
  const folder = specFolder(file);
  warmUpPatternAnalysisFor(spec.text);
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
