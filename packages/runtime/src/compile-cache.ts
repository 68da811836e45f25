/**
 * Node's compile cache (`NODE_COMPILE_CACHE=DIR`, Node 22.1 and later) lets V8 skip compiling server.mjs on
 * later starts. It is Node's own setting, read before the bundle loads: `module.enableCompileCache()` called
 * from inside the bundle would only cover modules loaded after it, and server.mjs is one module.
 *
 * The cache holds compiled code that Node runs instead of compiling the source. Whoever can write to the
 * directory can therefore run code in this server, so it must be private: owned by the user the server runs as,
 * and not writable by its group or by others. Node has already read the cache when this check runs, so the
 * check cannot stop an entry planted before this start; what it does is refuse every start with such a
 * directory, so the configuration never goes unnoticed into production.
 */
import { statSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";

/** The directory Node caches compiled code in for this process (with its versioned subfolder), if any. */
function cacheDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const named = env["NODE_COMPILE_CACHE"] ?? "";
  // Without the variable there is nothing to check, and node:module is not loaded: under
  // --disallow-code-generation-from-strings every built-in loaded at start is compiled from source.
  if (named === "") return null;
  const module = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("node:module") as
    { getCompileCacheDir?: () => string | undefined } | undefined;
  // Node 22.8 and later say where they cache; 22.1 to 22.7 only read the variable.
  if (module?.getCompileCacheDir !== undefined) return module.getCompileCacheDir() ?? null;
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 22 && (env["NODE_DISABLE_COMPILE_CACHE"] ?? "") === "" ? named : null;
}

/** Why the compile cache in use is unsafe, or null when there is none or it is private. */
export function compileCacheProblem(
  env: Readonly<Record<string, string | undefined>>,
  uid: number | null = typeof process.getuid === "function" ? process.getuid() : null,
): string | null {
  const dir = cacheDir(env);
  // Windows has no mode bits to check.
  if (dir === null || process.platform === "win32") return null;
  const named = env["NODE_COMPILE_CACHE"] ?? dir;
  // The folder the operator named, and the per-version folder Node keeps in it.
  for (const path of new Set([dirname(dir), dir])) {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    if ((stats.mode & 0o022) !== 0)
      return `NODE_COMPILE_CACHE=${named}: ${path} is writable by ${(stats.mode & 0o002) !== 0 ? "every user" : "its group"} (mode ${(stats.mode & 0o777).toString(8)}), and whoever can write there can run code in this server. Use a folder only this user can write to (chmod 700).`;
    if (uid !== null && stats.uid !== uid)
      return `NODE_COMPILE_CACHE=${named}: ${path} belongs to another user (uid ${stats.uid}), who could run code in this server. Use a folder of the user the server runs as.`;
  }
  return null;
}
