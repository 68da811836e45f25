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
import { chmod, mkdtemp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, extname, join } from "node:path";
import { checkSpec } from "./check/check.ts";
import { compareDiagnostics, type Diagnostic, finding, formatPath, type Finding, hasErrors, severityOf } from "./diagnostics/diagnostic.ts";
import { comparePackage, type FileDrift } from "./emit/drift.ts";
import { emitServer, type FileTree } from "./emit/emit.ts";
import { writeFiles } from "./emit/write.ts";
import { readStamp } from "./emit/manifest.ts";
import { currentToolchain, KERVANC_VERSION } from "./emit/versions.ts";
import { type LoadedSpec, loadSpec, locate, sourceText } from "./load/load.ts";
import { type PlannedServer, planServer } from "./plan/plan.ts";
import { DEFAULT_TOOLS_BUDGET, listingSize, type ListingSize, overBudgetMessage } from "./import/budget.ts";
import { capDiagnostics, MAX_DIAGNOSTICS_PER_FILE } from "./diagnostics/cap.ts";

export { MAX_DIAGNOSTICS_PER_FILE };

export interface CompiledSpec {
  readonly file: string;
  readonly folder: string;
  readonly diagnostics: readonly Diagnostic[];
  readonly loaded: LoadedSpec | null;
  readonly planned: PlannedServer | null;
}

/** Load, check and plan one spec (no file system access): the part every command shares. */
export function compileSpec(file: string, bytes: Uint8Array): CompiledSpec {
  const folder = basename(file, extname(file));
  const loaded = loadSpec(file, bytes);
  if (!loaded.ok) {
    const diagnostics = loaded.findings.map((f) => placeAt(file, f.line, f.column, f));
    return { file, folder, diagnostics, loaded: null, planned: null };
  }
  const spec = loaded.spec;
  const checked = checkSpec(spec.value, { sourceOf: (path) => sourceText(spec, path) });
  const diagnostics = capDiagnostics(file, checked.findings.map((f) => place(spec, f)).sort(compareDiagnostics));
  const planned = checked.checked && !hasErrors(diagnostics) ? planServer(checked.checked) : null;
  return { file, folder, diagnostics, loaded: spec, planned };
}

function place(spec: LoadedSpec, f: Finding): Diagnostic {
  const { line, column } = locate(spec, f.path, f.offset, f.atKey);
  return placeAt(spec.file, line, column, f);
}

function placeAt(file: string, line: number, column: number, f: Finding): Diagnostic {
  return { code: f.code, severity: severityOf(f), file, line, column, path: formatPath(f.path), message: f.message };
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
  readonly servers: readonly BuiltServer[];
  readonly skipped: readonly SkippedServer[];
  readonly sizes: readonly ServerSize[];
  readonly ok: boolean;
}

const SPEC_EXTENSIONS = new Set([".yaml", ".yml"]);

/** Expands the inputs: files as given, folders to their `*.yaml`/`*.yml` files (not recursive), sorted. */
export async function findSpecs(inputs: readonly string[]): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  const cliDiagnostic = (code: "KV9001" | "KV9002", file: string, message: string): Diagnostic => placeAt(file, 1, 1, finding(code, [], message));
  for (const input of inputs) {
    let info;
    try {
      info = await stat(input);
    } catch {
      diagnostics.push(cliDiagnostic("KV9002", input, `${input} does not exist.`));
      continue;
    }
    if (info.isDirectory()) {
      const entries = (await readdir(input, { withFileTypes: true })).filter((e) => e.isFile() && SPEC_EXTENSIONS.has(extname(e.name).toLowerCase()));
      if (entries.length === 0) diagnostics.push(cliDiagnostic("KV9001", input, `No spec files (*.yaml, *.yml) in ${input}.`));
      for (const e of entries) files.add(join(input, e.name));
    } else files.add(input);
  }
  return { files: [...files].sort(), diagnostics };
}

/** Finds, loads, checks and plans every spec; `ok` is false when any has an error (then nothing may be written). */
async function compileAll(inputs: readonly string[], outDir: string): Promise<{ diagnostics: Diagnostic[]; compiled: CompiledSpec[]; ok: boolean }> {
  const found = await findSpecs(inputs);
  const diagnostics: Diagnostic[] = [...found.diagnostics];
  if (found.files.length === 0 && found.diagnostics.length === 0) {
    diagnostics.push(placeAt(".", 1, 1, finding("KV9001", [], "No spec files were given.")));
  }
  const compiled: CompiledSpec[] = [];
  const folders = new Map<string, string>();
  for (const file of found.files) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(file);
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "error";
      diagnostics.push(placeAt(file, 1, 1, finding("KV1010", [], `The spec file cannot be read (${code}).`)));
      continue;
    }
    const result = compileSpec(file, bytes);
    diagnostics.push(...result.diagnostics);
    const other = folders.get(result.folder.toLowerCase());
    if (other !== undefined) {
      diagnostics.push(placeAt(file, 1, 1, finding("KV9003", [], `${file} and ${other} would both be written to ${join(outDir, result.folder)}; rename one.`)));
    } else folders.set(result.folder.toLowerCase(), file);
    compiled.push(result);
  }
  diagnostics.sort(compareDiagnostics);
  return { diagnostics, compiled, ok: !hasErrors(diagnostics) };
}

/**
 * Whether the package on disk was written by this very kervanc (same version and content identity, so a
 * changed compiler or runtime under an unchanged version number still rebuilds) from exactly these spec bytes.
 */
async function upToDate(spec: CompiledSpec, outDir: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(join(outDir, spec.folder, "manifest.json"), "utf8");
  } catch {
    return false;
  }
  const stamp = readStamp(text);
  return (
    stamp !== null &&
    stamp.kervancVersion === KERVANC_VERSION &&
    stamp.kervancContentSha256 === currentToolchain().content &&
    stamp.specSha256 === spec.loaded!.sha256 && stamp.specFile === basename(spec.file)
  );
}

/** Emits one compiled spec's package in memory, staging the sources for the bundler in `stageParent`. */
async function emitSpec(spec: CompiledSpec, stageParent: string): Promise<FileTree> {
  const stageDir = await mkdtemp(join(stageParent, `.${spec.folder}.stage-`));
  try {
    return await emitServer(spec.planned!, { folder: spec.folder, specFile: basename(spec.file), sha256: spec.loaded!.sha256, stageDir });
  } finally {
    await rm(stageDir, { recursive: true, force: true });
  }
}

export async function build(options: BuildOptions): Promise<BuildReport> {
  const all = await compileAll(options.inputs, options.outDir);
  const { compiled } = all;
  // --strict-kervan: a spec that uses a kervanc extension (KV8001) is refused, so what is built runs on Kervan too.
  const diagnostics = options.strictKervan ? all.diagnostics.map((d) => (d.code === "KV8001" ? { ...d, severity: "error" as const } : d)) : all.diagnostics;
  const ok = all.ok && !diagnostics.some((d) => d.severity === "error");
  if (!ok) return { diagnostics, servers: [], skipped: [], sizes: [], ok: false };
  const budget = options.toolsBudget ?? DEFAULT_TOOLS_BUDGET;
  const sizes = compiled.map((spec) => ({ file: spec.file, folder: spec.folder, size: listingSize(spec.planned!) }));
  for (const [i, { size }] of sizes.entries()) {
    if (size.tokens > budget) diagnostics.push(place(compiled[i]!.loaded!, finding("KV9006", ["tools"], overBudgetMessage(size, budget), { atKey: true })));
  }
  diagnostics.sort(compareDiagnostics);

  const servers: BuiltServer[] = [];
  const skipped: SkippedServer[] = [];
  try {
    await mkdir(options.outDir, { recursive: true });
    for (const spec of compiled) {
      if (!options.force && (await upToDate(spec, options.outDir))) {
        skipped.push({ file: spec.file, folder: spec.folder });
        continue;
      }
      const files = await emitSpec(spec, options.outDir);
      await writeTree(join(options.outDir, spec.folder), files);
      servers.push({ file: spec.file, folder: spec.folder, name: spec.planned!.plan.name, tools: spec.planned!.tools.length, files });
    }
  } catch (error) {
    // A file system refusal (permissions, a file where a folder should be, a full disk) is the user's to fix:
    // say which path and why. Anything else is a bug and propagates.
    const fsError = error as { code?: unknown; path?: unknown; syscall?: unknown };
    if (typeof fsError.code !== "string" || typeof fsError.syscall !== "string") throw error;
    const where = typeof fsError.path === "string" ? fsError.path : options.outDir;
    diagnostics.push(placeAt(options.outDir, 1, 1, finding("KV9004", [], `Cannot write ${where} (${fsError.code}); nothing more was written.`)));
    return { diagnostics, servers, skipped, sizes, ok: false };
  }
  return { diagnostics, servers, skipped, sizes, ok: true };
}

export interface CheckOptions {
  readonly inputs: readonly string[];
  readonly outDir: string;
}

export interface PackageCheck {
  readonly file: string;
  readonly folder: string;
  /** Whether the package folder exists at all. */
  readonly exists: boolean;
  /** Empty when the package on disk is exactly what a build writes. */
  readonly drift: readonly FileDrift[];
}

export interface CheckReport {
  readonly diagnostics: readonly Diagnostic[];
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
  const { diagnostics, compiled, ok } = await compileAll(options.inputs, options.outDir);
  if (!ok) return { diagnostics, ok: false, packages: [], orphans: [] };
  const packages: PackageCheck[] = [];
  const stageParent = await mkdtemp(join(tmpdir(), "kervanc-check-"));
  try {
    for (const spec of compiled) {
      const files = await emitSpec(spec, stageParent);
      const dir = join(options.outDir, spec.folder);
      const exists = await stat(dir).then((s) => s.isDirectory(), () => false);
      packages.push({ file: spec.file, folder: spec.folder, exists, drift: await comparePackage(files, dir) });
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
    const manifest = await readFile(join(options.outDir, e.name, "manifest.json"), "utf8").catch(() => null);
    if (manifest !== null && readStamp(manifest) !== null) orphans.push(e.name);
  }
  return { diagnostics, ok: true, packages, orphans: orphans.sort() };
}

/** Writes a package next to its final place, then swaps it in, so readers never see half a package. */
export async function writeTree(target: string, files: FileTree): Promise<void> {
  const temp = await mkdtemp(join(dirname(target), `.${basename(target)}.new-`));
  // mkdtemp makes the folder private (0700); a package is meant to be read like any other source folder.
  await chmod(temp, 0o755);
  try {
    await writeFiles(temp, files, (path) => (path === "server.mjs" ? 0o755 : undefined));
    await rm(target, { recursive: true, force: true });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}
