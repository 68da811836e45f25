/**
 * Where the pieces a generated server is made of live on this machine, and their exact versions.
 *
 * The generated package pins exactly the versions that went into its bundle, read from the installed
 * packages (which `npm ci` fixes from the lockfile), so the package.json never claims something else.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const COMPILER_ROOT = join(here, "..", "..");
const requireFromCompiler = createRequire(join(COMPILER_ROOT, "package.json"));
export const RUNTIME_ROOT = dirname(requireFromCompiler.resolve("@kervanc/runtime/package.json"));
export const RUNTIME_SRC = join(RUNTIME_ROOT, "src");
const requireFromRuntime = createRequire(join(RUNTIME_ROOT, "package.json"));

function readJson(path: string): { version: string; name: string; license?: string } {
  return JSON.parse(readFileSync(path, "utf8")) as { version: string; name: string; license?: string };
}

export const KERVANC_VERSION = readJson(join(COMPILER_ROOT, "package.json")).version;

/** The version of a package as the runtime (or, failing that, the compiler) resolves it. */
export function installedVersion(name: string): string {
  for (const req of [requireFromRuntime, requireFromCompiler]) {
    try {
      return readJson(req.resolve(`${name}/package.json`)).version;
    } catch {
      // Some packages do not export package.json; fall back to the folder next to the resolved entry.
    }
    try {
      let dir = dirname(req.resolve(name));
      while (!dir.endsWith(join("node_modules", name)) && dirname(dir) !== dir) dir = dirname(dir);
      return readJson(join(dir, "package.json")).version;
    } catch {
      continue;
    }
  }
  throw new Error(`Cannot find the installed version of ${name}.`);
}

/** The node_modules folders the bundler resolves third-party imports from. */
export function resolutionPaths(): string[] {
  const paths: string[] = [];
  for (let dir = RUNTIME_ROOT; ; dir = dirname(dir)) {
    paths.push(join(dir, "node_modules"));
    if (dirname(dir) === dir) break;
  }
  for (let dir = COMPILER_ROOT; ; dir = dirname(dir)) {
    const p = join(dir, "node_modules");
    if (!paths.includes(p)) paths.push(p);
    if (dirname(dir) === dir) break;
  }
  return paths;
}
