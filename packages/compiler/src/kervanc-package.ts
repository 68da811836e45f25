/**
 * kervanc's own package: where it is installed, its version and the editor schema it ships. Every stage may
 * read these (the version goes into manifests, the editor schema and the CLI's banner); what a generated
 * server is made of is emit/versions.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The compiled layout: this module was bundled into `dist/` (the repository runs the `.ts` source). */
export const PACKED = !import.meta.url.endsWith(".ts");

/** The kervanc package's own folder: the nearest folder above this module with kervanc's package.json. */
export const COMPILER_ROOT = findPackageRoot(here);

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file) && readJson(file).name === "kervanc") return dir;
    if (dirname(dir) === dir) throw new Error(`kervanc cannot find its own package.json above ${start}.`);
  }
}

export function readJson(path: string): { version: string; name: string; license?: string } {
  return JSON.parse(readFileSync(path, "utf8")) as { version: string; name: string; license?: string };
}

/** The editor JSON Schema of the spec format: shipped in the package, generated into the repository's schema/. */
export const SCHEMA_FILE = PACKED
  ? join(COMPILER_ROOT, "schema", "kervan-spec.schema.json")
  : join(COMPILER_ROOT, "..", "..", "schema", "kervan-spec.schema.json");

export const KERVANC_VERSION = readJson(join(COMPILER_ROOT, "package.json")).version;
