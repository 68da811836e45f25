/**
 * The pipeline: find specs, then load → check → plan → emit each, then write.
 *
 * Every spec is loaded and checked before anything is written, so one run reports every problem in every
 * spec; if any spec has an error, nothing is written (a half-updated output folder is worse than none).
 * Each package is written to a staging folder next to its final place and renamed into place.
 */
import { mkdtemp, mkdir, readFile, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { checkSpec } from "./check/check.ts";
import { compareDiagnostics, type Diagnostic, finding, formatPath, type Finding, hasErrors, severityOf } from "./diagnostics/diagnostic.ts";
import { emitServer, type FileTree } from "./emit/emit.ts";
import { type LoadedSpec, loadSpec, locate } from "./load/load.ts";
import { type PlannedServer, planServer } from "./plan/plan.ts";

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
  const checked = checkSpec(spec.value);
  const diagnostics = checked.findings.map((f) => place(spec, f)).sort(compareDiagnostics);
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
}

export interface BuiltServer {
  readonly file: string;
  readonly folder: string;
  readonly name: string;
  readonly tools: number;
  readonly files: FileTree;
}

export interface BuildReport {
  readonly diagnostics: readonly Diagnostic[];
  readonly servers: readonly BuiltServer[];
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

export async function build(options: BuildOptions): Promise<BuildReport> {
  const found = await findSpecs(options.inputs);
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
      diagnostics.push(placeAt(file, 1, 1, finding("KV9003", [], `${file} and ${other} would both be written to ${join(options.outDir, result.folder)}; rename one.`)));
    } else folders.set(result.folder.toLowerCase(), file);
    compiled.push(result);
  }
  diagnostics.sort(compareDiagnostics);
  if (hasErrors(diagnostics)) return { diagnostics, servers: [], ok: false };

  const servers: BuiltServer[] = [];
  await mkdir(options.outDir, { recursive: true });
  for (const spec of compiled) {
    const planned = spec.planned!;
    const stageDir = await mkdtemp(join(options.outDir, `.${spec.folder}.stage-`));
    try {
      const files = await emitServer(planned, { folder: spec.folder, specFile: basename(spec.file), sha256: spec.loaded!.sha256, stageDir });
      await writeTree(join(options.outDir, spec.folder), files);
      servers.push({ file: spec.file, folder: spec.folder, name: planned.plan.name, tools: planned.tools.length, files });
    } finally {
      await rm(stageDir, { recursive: true, force: true });
    }
  }
  return { diagnostics, servers, ok: true };
}

/** Writes a package next to its final place, then swaps it in, so readers never see half a package. */
export async function writeTree(target: string, files: FileTree): Promise<void> {
  const temp = await mkdtemp(join(dirname(target), `.${basename(target)}.new-`));
  try {
    for (const [path, text] of files) {
      const file = join(temp, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text, path === "server.mjs" ? { mode: 0o755 } : {});
    }
    await rm(target, { recursive: true, force: true });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}
