/**
 * `kervanc check`: build every spec in memory and compare with the packages on disk, file by file and in the
 * security-relevant surface (review/surface.ts), so CI fails when a committed package is stale or edited.
 */
import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { emitPackage } from "../build.ts";
import { compileInputs } from "../compile-inputs.ts";
import type { Diagnostic } from "../diagnostics/diagnostic.ts";
import { comparePackage, type FileDrift } from "../emit/disk/drift.ts";
import { childOf } from "../emit/disk/inside.ts";
import { parseManifest, readStamp } from "../emit/files/manifest.ts";
import { MAX_MANIFEST_BYTES } from "../emit/disk/package-folder.ts";
import { fileKind, readRegularFile } from "../load/regular-file.ts";
import { compareManifests, type SurfaceChange } from "./surface.ts";
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
 * written anywhere.
 */
export async function check(options: CheckOptions): Promise<CheckReport> {
  const { diagnostics, compiled, ok, sources } = await compileInputs(
    options.inputs,
    options.outDir,
    options.followLinksOutside === true,
  );
  if (!ok) return { diagnostics, sources, ok: false, packages: [], orphans: [] };
  const packages: PackageCheck[] = [];
  {
    for (const spec of compiled) {
      const files = await emitPackage(spec);
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
