/**
 * A spec built for the inner loop: loaded, checked with the development relaxation, planned, and its server.mjs
 * emitted into a private temp folder, the same bytes `build` writes, so it runs the same runtime code a generated
 * server runs. Nothing is written next to the spec.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileSpec } from "../compile.ts";
import { type CompiledSpec, unreadableSpec } from "../compiled-spec.ts";
import { emitServerBundle } from "../build.ts";
import type { Diagnostic } from "../diagnostics/diagnostic.ts";
import { hasErrors } from "../diagnostics/diagnostic.ts";
import { readRegularFile } from "../load/regular-file.ts";
import { TARGET } from "../emit/targets.ts";
import { writeFiles } from "../emit/disk/write.ts";
import type { PlannedServer } from "../plan/plan.ts";

export type DevCompile =
  | {
      readonly ok: true;
      readonly diagnostics: readonly Diagnostic[];
      /** The spec's text, for code frames (empty when it is not UTF-8 text). */
      readonly sources: ReadonlyMap<string, string>;
      readonly compiled: CompiledSpec & { readonly planned: PlannedServer };
    }
  | {
      readonly ok: false;
      readonly diagnostics: readonly Diagnostic[];
      readonly sources: ReadonlyMap<string, string>;
    };

/** Reads and compiles one spec with the development relaxation (plain http to loopback hosts, secrets included). */
export async function compileDev(file: string): Promise<DevCompile> {
  const read = await readRegularFile(file);
  if (!read.ok) return { ok: false, diagnostics: [unreadableSpec(file, read)], sources: new Map() };
  const compiled = compileSpec(file, read.bytes, { devLoopbackHttp: true });
  const sources = new Map(compiled.text !== undefined ? [[file, compiled.text]] : []);
  if (hasErrors(compiled.diagnostics) || compiled.planned === null)
    return { ok: false, diagnostics: compiled.diagnostics, sources };
  return {
    ok: true,
    diagnostics: compiled.diagnostics,
    sources,
    compiled: compiled as CompiledSpec & { planned: PlannedServer },
  };
}

export interface DevPackage {
  /** The folder holding the package; server.mjs is its entry. */
  readonly dir: string;
  readonly serverFile: string;
  remove(): Promise<void>;
}

/**
 * Emits the package's server.mjs into a new private temp folder (mkdtemp: mode 0700, a fresh name). The bundle is
 * self-contained and the same bytes `build` writes; the rest of the package (sources, worker bundle, SBOM,
 * manifest) is not needed to run it, and `call` made and wrote all of it before the server could start.
 */
export async function emitDevPackage(compiled: CompiledSpec): Promise<DevPackage> {
  const root = await mkdtemp(join(tmpdir(), "kervanc-dev-"));
  try {
    const files = new Map([[TARGET.node.file, await emitServerBundle(compiled)]]);
    const dir = join(root, "package");
    await writeFiles(dir, files);
    return { dir, serverFile: join(dir, TARGET.node.file), remove: () => rm(root, { recursive: true, force: true }) };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
