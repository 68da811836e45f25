/**
 * The pipeline: find specs, then load → check → plan → emit each, then write.
 *
 * Every spec is loaded and checked before anything is written, so one run reports every problem in every
 * spec; if any spec has an error, nothing is written (a half-updated output folder is worse than none).
 * Each package is written to a staging folder next to its final place and renamed into place.
 *
 * Builds are incremental: a package whose manifest.json records this kervanc version and the spec's sha256 (and
 * file name) is not rebuilt unless `force` is set. `check` builds in memory and compares with what is on disk.
 */
import type { Dirent } from "node:fs";
import { lstat, mkdtemp, mkdir, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { analyzeSpec } from "./analyze/analyze.ts";
import {
  compareDiagnostics,
  type Diagnostic,
  formatPath,
  type Finding,
  report,
  hasErrors,
  type SpecPath,
  toDiagnostic,
  toDiagnostics,
  WHOLE_FILE,
} from "./diagnostics/diagnostic.ts";
import { comparePackage, type FileDrift } from "./emit/drift.ts";
// emit.ts (prettier, esbuild and the package writers, half a second to load) is imported when a spec is emitted:
// a build that refuses its specs, or skips them as up to date, never loads it.
import type { FileTree } from "./emit/emit.ts";
import { childOf, inside, OutsideOutputError } from "./emit/inside.ts";
import { parseManifest, readStamp } from "./emit/manifest.ts";
import { folderKey, packageNameProblem } from "./emit/package-name.ts";
import { TargetRefusedError, writeTree } from "./emit/swap.ts";
import { targetState, type TargetState } from "./emit/package-folder.ts";
import { currentToolchain, KERVANC_VERSION } from "./emit/versions.ts";
import { findSpecs } from "./load/find-specs.ts";
import { fileKind, readRegularFile } from "./load/regular-file.ts";
import { MAX_MANIFEST_BYTES } from "./emit/package-folder.ts";
import { compareManifests, type SurfaceChange } from "./review/surface.ts";

export { findSpecs };
import { type LoadedSpec, loadSpec, locate, sourceText, specLocator } from "./load/load.ts";
import { type PlannedServer, planServer } from "./plan/plan.ts";
import { DEFAULT_TOOLS_BUDGET, listingSize, type ListingSize } from "./plan/budget.ts";
import { capDiagnostics, MAX_DIAGNOSTICS_PER_FILE } from "./diagnostics/cap.ts";

export { MAX_DIAGNOSTICS_PER_FILE };

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
  const checked = analyzeSpec(spec.value, {
    sourceOf: (path) => sourceText(spec, path),
    devLoopbackHttp: options.devLoopbackHttp === true,
  });
  const diagnostics = capDiagnostics(
    file,
    toDiagnostics(file, specLocator(spec), checked.findings).sort(compareDiagnostics),
  );
  // The file's base name, as manifest.json records it: the generated server must not depend on where it was built.
  const placeOf = (path: SpecPath): string => {
    const { line, column } = locate(spec, path);
    return `${basename(file)}:${line}:${column} ${formatPath(path)}`;
  };
  const planned = checked.checked && !hasErrors(diagnostics) ? planServer(checked.checked, placeOf) : null;
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
async function compileAll(
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

/**
 * Whether the package on disk was written by this very kervanc (same version and content identity, so a
 * changed compiler or runtime under an unchanged version number still rebuilds) from exactly these spec bytes.
 */
async function upToDate(spec: CompiledSpec, outDir: string): Promise<boolean> {
  const read = await readRegularFile(join(childOf(outDir, spec.folder), "manifest.json"), {
    noFollow: true,
    maxBytes: MAX_MANIFEST_BYTES,
  });
  if (!read.ok) return false;
  const stamp = readStamp(new TextDecoder().decode(read.bytes));
  return (
    stamp !== null &&
    stamp.kervancVersion === KERVANC_VERSION &&
    stamp.kervancContentSha256 === currentToolchain().content &&
    stamp.specSha256 === spec.loaded!.sha256 &&
    stamp.specFile === basename(spec.file)
  );
}

/** Emits one compiled spec's package in memory, staging the sources for the bundler in `stageParent`. */
export async function emitSpec(spec: CompiledSpec, stageParent: string): Promise<FileTree> {
  const stageDir = await mkdtemp(inside(stageParent, `.${spec.folder}.stage-`));
  try {
    const toolLines = spec.planned!.tools.map((_, i) => locate(spec.loaded!, ["tools", i]).line);
    const { emitServer } = await import("./emit/emit.ts");
    return await emitServer(spec.planned!, {
      folder: spec.folder,
      specFile: basename(spec.file),
      sha256: spec.loaded!.sha256,
      stageDir,
      toolLines,
    });
  } finally {
    await rm(stageDir, { recursive: true, force: true });
  }
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
  const all = await compileAll(options.inputs, options.outDir, options.followLinksOutside === true);
  const { compiled, sources } = all;
  // --strict-kervan: a spec that uses a kervanc extension (KV8001) is refused, so what is built runs on Kervan too.
  const diagnostics = options.strictKervan
    ? all.diagnostics.map((d) => (d.code === "KV8001" ? { ...d, severity: "error" as const } : d))
    : all.diagnostics;
  const ok = all.ok && !diagnostics.some((d) => d.severity === "error");
  if (!ok) return { diagnostics, sources, servers: [], skipped: [], sizes: [], ok: false };
  const budget = options.toolsBudget ?? DEFAULT_TOOLS_BUDGET;
  const sizes = compiled.map((spec) => ({ file: spec.file, folder: spec.folder, size: listingSize(spec.planned!) }));
  for (const [i, { size }] of sizes.entries()) {
    const warning = overBudget(compiled[i]!.loaded!, size, budget);
    if (warning !== null) diagnostics.push(warning);
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
      if (!options.force && states!.get(spec)!.kind === "package" && (await upToDate(spec, options.outDir))) {
        skipped.push({ file: spec.file, folder: spec.folder });
        continue;
      }
      const files = await emitSpec(spec, options.outDir);
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

export interface CheckOptions {
  readonly inputs: readonly string[];
  readonly outDir: string;
  readonly followLinksOutside?: boolean;
}

export interface PackageCheck {
  readonly file: string;
  readonly folder: string;
  /** Whether the package folder exists at all. */
  readonly exists: boolean;
  /** Empty when the package on disk is exactly what a build writes. */
  readonly drift: readonly FileDrift[];
  /**
   * What the differences do to the server's surface (tools, egress, secrets), from the committed manifest to the
   * one a build writes; null when the committed manifest cannot be read. Empty when there is no drift.
   */
  readonly surface: readonly SurfaceChange[] | null;
}

export interface CheckReport {
  readonly diagnostics: readonly Diagnostic[];
  /** The text of each spec that has diagnostics, for code frames. */
  readonly sources: ReadonlyMap<string, string>;
  /** False when a spec has errors: then nothing was compared. */
  readonly ok: boolean;
  readonly packages: readonly PackageCheck[];
  /** Folders in the output folder that hold a kervanc package (a manifest.json) but match no given spec. */
  readonly orphans: readonly string[];
}

/**
 * Builds every spec in memory and compares each package with the folder on disk, byte for byte. Nothing is
 * written to the output folder; the bundler's staging happens in the system's temp folder.
 */
export async function check(options: CheckOptions): Promise<CheckReport> {
  const { diagnostics, compiled, ok, sources } = await compileAll(
    options.inputs,
    options.outDir,
    options.followLinksOutside === true,
  );
  if (!ok) return { diagnostics, sources, ok: false, packages: [], orphans: [] };
  const packages: PackageCheck[] = [];
  const stageParent = await mkdtemp(join(tmpdir(), "kervanc-check-"));
  try {
    for (const spec of compiled) {
      const files = await emitSpec(spec, stageParent);
      const dir = childOf(options.outDir, spec.folder);
      // Not through a link: a committed `servers/<name>` linked to a folder elsewhere on the CI machine must not
      // get that folder's files printed as diffs (every read below goes through `dir`). Build refuses such a
      // place; here it is a difference, and nothing in it is read.
      const place = await lstat(dir).catch(() => null);
      if (place !== null && !place.isDirectory()) {
        const note = `${fileKind(place)} on disk, not a package folder; kervanc does not read through it`;
        packages.push({
          file: spec.file,
          folder: spec.folder,
          exists: true,
          drift: [{ path: ".", status: "changed", diff: null, note }],
          surface: null,
        });
        continue;
      }
      const exists = place !== null;
      const drift = await comparePackage(files, dir);
      let surface: SurfaceChange[] | null = [];
      if (drift.length > 0) {
        // Read without following a link: a committed manifest.json is not to lead kervanc elsewhere.
        const read = exists
          ? await readRegularFile(join(dir, "manifest.json"), { noFollow: true, maxBytes: MAX_MANIFEST_BYTES })
          : null;
        const committed = read?.ok === true ? parseManifest(new TextDecoder().decode(read.bytes)) : null;
        const built = parseManifest(files.get("manifest.json") ?? "");
        surface = (exists && committed === null) || built === null ? null : compareManifests(committed, built);
      }
      packages.push({ file: spec.file, folder: spec.folder, exists, drift, surface });
    }
  } finally {
    await rm(stageParent, { recursive: true, force: true });
  }
  const known = new Set(compiled.map((c) => c.folder));
  const orphans: string[] = [];
  let entries: Dirent[] = [];
  try {
    entries = await readdir(options.outDir, { withFileTypes: true });
  } catch {
    // No output folder: every package is reported missing above.
  }
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith(".") || known.has(e.name)) continue;
    const manifest = await readRegularFile(join(options.outDir, e.name, "manifest.json"), {
      noFollow: true,
      maxBytes: MAX_MANIFEST_BYTES,
    });
    if (manifest.ok && readStamp(new TextDecoder().decode(manifest.bytes)) !== null) orphans.push(e.name);
  }
  return { diagnostics, sources, ok: true, packages, orphans: orphans.sort() };
}
