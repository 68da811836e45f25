/**
 * The prebuilt record (prebuilt-format.ts) a build composes bundles from, read once per process.
 *
 * - Installed from its tarball: `dist/prebuilt.json`, written by `scripts/pack/prepack.ts`. Nothing is bundled,
 *   and nothing is read from the user's `node_modules`, so two users get byte-identical output.
 * - In the repository: built by prebuild.ts (esbuild, a development dependency) the first time a content
 *   identity is seen, and kept in `node_modules/.cache/kervanc/`; the test suites' many builds share it. The file is
 *   written under a temporary name and renamed, so processes building it at once never read half of it.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { COMPILER_ROOT, PACKED } from "../../kervanc-package.ts";
import { currentToolchain } from "../versions.ts";
import { ajvHelpersKey, type AjvHelpers } from "../validators/validators.ts";
import { ajvRuntimeOf, PREBUILT_FORMAT, type Prebuilt } from "./prebuilt-format.ts";

/** Where the packed layout keeps the record. */
export const PACKED_PREBUILT = join(COMPILER_ROOT, "dist", "prebuilt.json");

let loading: Promise<Prebuilt> | null = null;

export function loadPrebuilt(): Promise<Prebuilt> {
  loading ??= PACKED ? readPacked() : readOrBuildCached();
  return loading;
}

async function readPacked(): Promise<Prebuilt> {
  const record = JSON.parse(await readFile(PACKED_PREBUILT, "utf8")) as Prebuilt;
  if (record.format !== PREBUILT_FORMAT)
    throw new Error(`${PACKED_PREBUILT} has format ${record.format}; this kervanc reads ${PREBUILT_FORMAT}.`);
  return record;
}

async function readOrBuildCached(): Promise<Prebuilt> {
  const content = currentToolchain().content;
  const dir = join(COMPILER_ROOT, "..", "..", "node_modules", ".cache", "kervanc");
  const file = join(dir, `prebuilt-${PREBUILT_FORMAT}-${content}.json`);
  try {
    const record = JSON.parse(await readFile(file, "utf8")) as Prebuilt;
    if (record.format === PREBUILT_FORMAT && record.content === content) return record;
  } catch {
    // Not built yet for these sources (or unreadable): build it.
  }
  const { prebuild } = await import("./prebuild.ts");
  const record = await prebuild(content);
  await mkdir(dir, { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temporary, JSON.stringify(record));
  await rename(temporary, file);
  return record;
}

/** `src/validators/ajv-runtime.js` (without the generated-file header) for a set of helpers. */
export async function ajvRuntimeModule(helpers: AjvHelpers): Promise<string> {
  return ajvRuntimeOf(await loadPrebuilt(), ajvHelpersKey(helpers)).code;
}
