/**
 * `kervanc build`, the back half: the specs compiled (compile.ts: load → analyze → plan), then emit each and
 * write. If any spec has an error, nothing is written (a half-updated output folder is worse than none). Each
 * package is written to a staging folder next to its final place and renamed into place.
 *
 * Builds are incremental: a package whose manifest.json records this kervanc version and the spec's sha256 (and
 * file name) is not rebuilt unless `force` is set. review/check.ts builds in memory and compares with the disk.
 */
import { mkdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { compileInputs } from "./compile-inputs.ts";
import { type CompiledSpec, overBudget } from "./compiled-spec.ts";
import {
  compareDiagnostics,
  type Diagnostic,
  type Finding,
  hasErrors,
  report,
  toDiagnostic,
  WHOLE_FILE,
} from "./diagnostics/diagnostic.ts";
// emit.ts (the validators, the prebuilt bundles and the package writers) is imported when a spec is emitted:
// a build that refuses its specs, or skips them as up to date, never loads it.
import type { FileTree } from "./emit/file-tree.ts";
import type { EmitContext } from "./emit/emit.ts";
import { childOf, OutsideOutputError } from "./emit/disk/inside.ts";
import { readStamp, type Stamp } from "./emit/files/manifest.ts";
import { MAX_MANIFEST_BYTES, targetState, type TargetState } from "./emit/disk/package-folder.ts";
import { TargetRefusedError, writeTree } from "./emit/disk/swap.ts";
import { currentToolchain } from "./emit/versions.ts";
import { KERVANC_VERSION } from "./kervanc-package.ts";
import { type LoadedSpec, loadSpec, locate } from "./load/load.ts";
import { readRegularFile } from "./load/regular-file.ts";
import { DEFAULT_TOOLS_BUDGET, listingSize, type ListingSize } from "./plan/budget.ts";

export interface BuildOptions {
  readonly inputs: readonly string[];
  readonly outDir: string;
  /** Rebuild every package, even those whose manifest says they are up to date. */
  readonly force?: boolean;
  /** Warn (KV9006) when a server's tools/list is estimated above this many tokens (default 8000). */
  readonly toolsBudget?: number;
  /** Refuse specs that use kervanc extensions to the format (KV8001 becomes an error). */
  readonly strictKervan?: boolean;
  /** Read specs that a folder holds as links to files outside it (KV9011 refuses them otherwise). */
  readonly followLinksOutside?: boolean;
}

/** The size of a server's tools/list, for every spec given (built or skipped), in spec order. */
export interface ServerSize {
  readonly file: string;
  readonly folder: string;
  readonly size: ListingSize;
}

export interface BuiltServer {
  readonly file: string;
  readonly folder: string;
  readonly name: string;
  readonly tools: number;
  readonly files: FileTree;
}

/** A spec whose package on disk was built by this kervanc version from the same spec bytes. */
export interface SkippedServer {
  readonly file: string;
  readonly folder: string;
}

export interface BuildReport {
  readonly diagnostics: readonly Diagnostic[];
  /** The text of each spec that has diagnostics, for code frames. */
  readonly sources: ReadonlyMap<string, string>;
  readonly servers: readonly BuiltServer[];
  readonly skipped: readonly SkippedServer[];
  readonly sizes: readonly ServerSize[];
  readonly ok: boolean;
}

/** Finds, loads, checks and plans every spec; `ok` is false when any has an error (then nothing may be written). */
/**
 * Whether the package on disk was written by this very kervanc (same version and content identity, so a
 * changed compiler or runtime under an unchanged version number still rebuilds) from exactly these spec bytes.
 */
async function upToDate(spec: CompiledSpec, outDir: string): Promise<boolean> {
  return (await matchingStamp(spec.loaded!, spec.folder, outDir)) !== null;
}

/** An unchanged spec, loaded after all (it loaded when its package was built, from the same bytes). */
function reload(spec: CompiledSpec): LoadedSpec | null {
  const loaded = loadSpec(spec.file, spec.unchanged!.bytes);
  return loaded.ok ? loaded.spec : null;
}

/** The stamp of the package in `folder` if it records this kervanc (version and content) and these spec bytes. */
async function matchingStamp(
  loaded: { readonly file: string; readonly sha256: string },
  folder: string,
  outDir: string,
): Promise<Stamp | null> {
  const read = await readRegularFile(join(childOf(outDir, folder), "manifest.json"), {
    noFollow: true,
    maxBytes: MAX_MANIFEST_BYTES,
  });
  if (!read.ok) return null;
  const stamp = readStamp(new TextDecoder().decode(read.bytes));
  const matches =
    stamp !== null &&
    stamp.kervancVersion === KERVANC_VERSION &&
    stamp.kervancContentSha256 === currentToolchain().content &&
    stamp.specSha256 === loaded.sha256 &&
    stamp.specFile === basename(loaded.file);
  return matches ? stamp : null;
}

function emitContext(spec: CompiledSpec): EmitContext {
  return {
    folder: spec.folder,
    specFile: basename(spec.file),
    sha256: spec.loaded!.sha256,
    toolLines: spec.planned!.tools.map((_, i) => locate(spec.loaded!, ["tools", i]).line),
  };
}

/** Emits one compiled spec's package in memory. */
export async function emitPackage(spec: CompiledSpec): Promise<FileTree> {
  const { emitServer } = await import("./emit/emit.ts");
  return await emitServer(spec.planned!, emitContext(spec));
}

/** The package's server.mjs alone, the same bytes `emitPackage` gives it (for call, test and dev). */
export async function emitServerBundle(spec: CompiledSpec): Promise<string> {
  const { emitNodeBundle } = await import("./emit/emit.ts");
  return await emitNodeBundle(spec.planned!, emitContext(spec));
}

/**
 * Checks every package's place before anything is written: build replaces only a folder kervanc made (or an
 * empty one), so one refused place stops the whole build with nothing written. Returns the packages' states.
 */
async function checkTargets(
  compiled: readonly CompiledSpec[],
  outDir: string,
  diagnostics: Diagnostic[],
): Promise<Map<CompiledSpec, TargetState>> {
  const states = new Map<CompiledSpec, TargetState>();
  for (const spec of compiled) {
    const state = await targetState(childOf(outDir, spec.folder));
    states.set(spec, state);
    if (state.kind === "refused")
      diagnostics.push(toDiagnostic(spec.file, WHOLE_FILE, refusedTarget(join(outDir, spec.folder), state.reason)));
  }
  return states;
}

function refusedTarget(path: string, reason: string): Finding {
  return report("KV9008", [], (m) => m.refused({ path, reason }));
}

export async function build(options: BuildOptions): Promise<BuildReport> {
  // A spec whose package is up to date is not analyzed again. Not under --strict-kervan, which can refuse a spec
  // its package's build accepted (KV8001 becomes an error), nor under --force.
  const unchanged =
    options.force || options.strictKervan
      ? null
      : async (spec: { file: string; sha256: string }, folder: string): Promise<ListingSize | null> => {
          if ((await targetState(childOf(options.outDir, folder))).kind !== "package") return null;
          const stamp = await matchingStamp(spec, folder, options.outDir);
          return stamp?.toolsList ?? null;
        };
  const all = await compileInputs(options.inputs, options.outDir, options.followLinksOutside === true, unchanged);
  const { compiled, sources } = all;
  // --strict-kervan: a spec that uses a kervanc extension (KV8001) is refused, so what is built runs on Kervan too.
  const diagnostics = options.strictKervan
    ? all.diagnostics.map((d) => (d.code === "KV8001" ? { ...d, severity: "error" as const } : d))
    : all.diagnostics;
  const ok = all.ok && !diagnostics.some((d) => d.severity === "error");
  if (!ok) return { diagnostics, sources, servers: [], skipped: [], sizes: [], ok: false };
  const budget = options.toolsBudget ?? DEFAULT_TOOLS_BUDGET;
  const sizes = compiled.map((spec) => ({
    file: spec.file,
    folder: spec.folder,
    size: spec.unchanged?.toolsList ?? listingSize(spec.planned!),
  }));
  for (const [i, { size }] of sizes.entries()) {
    const spec = compiled[i]!;
    // An unchanged spec is loaded only if its warning needs a place in it (it loaded when it was built).
    const loaded = spec.loaded ?? (size.tokens > budget ? reload(spec) : null);
    const warning = loaded === null ? null : overBudget(loaded, size, budget);
    if (warning !== null) {
      diagnostics.push(warning);
      if (spec.unchanged !== undefined && loaded !== null) sources.set(spec.file, loaded.text);
    }
  }
  diagnostics.sort(compareDiagnostics);

  let states: Map<CompiledSpec, TargetState>;
  try {
    states = await checkTargets(compiled, options.outDir, diagnostics);
  } catch (error) {
    diagnostics.push(toDiagnostic(options.outDir, WHOLE_FILE, writeFailure(error, options.outDir)));
  }
  if (hasErrors(diagnostics)) {
    diagnostics.sort(compareDiagnostics);
    return { diagnostics, sources, servers: [], skipped: [], sizes, ok: false };
  }

  const servers: BuiltServer[] = [];
  const skipped: SkippedServer[] = [];
  try {
    await mkdir(options.outDir, { recursive: true });
    for (const spec of compiled) {
      if (
        spec.unchanged !== undefined ||
        (!options.force && states!.get(spec)!.kind === "package" && (await upToDate(spec, options.outDir)))
      ) {
        skipped.push({ file: spec.file, folder: spec.folder });
        continue;
      }
      const files = await emitPackage(spec);
      await writeTree(options.outDir, spec.folder, files);
      servers.push({
        file: spec.file,
        folder: spec.folder,
        name: spec.planned!.plan.name,
        tools: spec.planned!.tools.length,
        files,
      });
    }
  } catch (error) {
    diagnostics.push(toDiagnostic(options.outDir, WHOLE_FILE, writeFailure(error, options.outDir)));
    return { diagnostics, sources, servers, skipped, sizes, ok: false };
  }
  return { diagnostics, sources, servers, skipped, sizes, ok: true };
}

/**
 * A file system refusal (permissions, a file where a folder should be, a full disk), a place that changed into
 * something build must not replace, or a path outside the output folder is the user's to see: say which path
 * and why. Anything else is a bug and propagates.
 */
function writeFailure(error: unknown, outDir: string): Finding {
  if (error instanceof TargetRefusedError) return refusedTarget(error.target, error.reason);
  if (error instanceof OutsideOutputError) return report("KV9004", [], (m) => m.outside({ reason: error.message }));
  const fsError = error as { code?: unknown; path?: unknown; syscall?: unknown };
  if (typeof fsError.code !== "string" || typeof fsError.syscall !== "string") throw error;
  const where = typeof fsError.path === "string" ? fsError.path : outDir;
  return report("KV9004", [], (m) => m.cannotWrite({ where, code: String(fsError.code) }));
}
