/**
 * Node's compile cache (`NODE_COMPILE_CACHE=DIR`, Node 22.1 and later) lets V8 skip compiling server.mjs on
 * later starts. It is Node's own setting, read before the bundle loads: `module.enableCompileCache()` called
 * from inside the bundle would only cover modules loaded after it, and server.mjs is one module.
 *
 * The cache holds compiled code that Node runs instead of compiling the source. Whoever can write to the
 * directory, to a cache file in it, or to a folder above it (and so swap the directory for another) can
 * therefore run code in this server. So every one of them must be owned by the user the server runs as or by
 * root, and not writable by anyone else; a folder above may also be a sticky one such as /tmp, whose entries
 * only their owners can move. Root-owned is what the generated Dockerfile builds: a cache made at image build
 * time that the running server reads and cannot change. Node has already read the cache when this check runs,
 * so the check cannot stop an entry planted before this start; what it does is refuse every start with such a
 * directory, so the configuration never goes unnoticed into production.
 */
import type { Stats } from "node:fs";

/** The directory Node caches compiled code in for this process (with its versioned subfolder), if any. */
function cacheDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const named = env["NODE_COMPILE_CACHE"] ?? "";
  // Without the variable there is nothing to check, and node:module is not loaded: under
  // --disallow-code-generation-from-strings every built-in loaded at start is compiled from source.
  if (named === "") return null;
  const module = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("node:module") as
    { getCompileCacheDir?: () => string | undefined } | undefined;
  // Node 22.8 and later say where they cache (nothing when the folder could not be made, say for another user
  // id than the one a cache was built for); 22.1 to 22.7 only read the variable.
  if (module?.getCompileCacheDir !== undefined) return module.getCompileCacheDir() ?? null;
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 22 && (env["NODE_DISABLE_COMPILE_CACHE"] ?? "") === "" ? named : null;
}

/** At most this many entries of Node's folder are looked at (it holds one file per cached module). */
const MAX_ENTRIES = 1_000;

/** Why the compile cache in use is unsafe, or null when there is none or it is private. */
export function compileCacheProblem(
  env: Readonly<Record<string, string | undefined>>,
  given?: number | null,
): string | null {
  const dir = cacheDir(env);
  // Windows has no mode bits to check.
  if (dir === null || process.platform === "win32") return null;
  // Asked only when a cache is configured: Deno answers process.getuid() only with --allow-sys, and server.mjs
  // runs there over stdio with --allow-net and --allow-env alone.
  const uid = given !== undefined ? given : typeof process.getuid === "function" ? process.getuid() : null;
  const named = env["NODE_COMPILE_CACHE"] ?? dir;
  const { lstatSync, readdirSync, statSync } = process.getBuiltinModule("node:fs");
  const path = process.getBuiltinModule("node:path");
  const owners = uid === null ? null : new Set([uid, 0]);
  const problem = (where: string, stats: Stats, what: string, stickyOk: boolean): string | null => {
    const sticky = stickyOk && (stats.mode & 0o1000) !== 0;
    if ((stats.mode & 0o022) !== 0 && !sticky)
      return `NODE_COMPILE_CACHE=${named}: ${what} ${where} is writable by ${(stats.mode & 0o002) !== 0 ? "every user" : "its group"} (mode ${(stats.mode & 0o777).toString(8)}), and whoever can write there can run code in this server. Use a folder only this user (or root) can write to, in folders only they can write to (chmod 700).`;
    if (owners !== null && !owners.has(stats.uid))
      return `NODE_COMPILE_CACHE=${named}: ${what} ${where} belongs to another user (uid ${stats.uid}), who could run code in this server. Use a folder of the user the server runs as, or of root.`;
    return null;
  };
  // Node's per-version folder, the folder the operator named, and every folder above them up to the root.
  const folders: string[] = [];
  for (let folder = dir; ; folder = path.dirname(folder)) {
    folders.push(folder);
    if (path.dirname(folder) === folder) break;
  }
  for (const [index, folder] of folders.entries()) {
    let stats;
    try {
      stats = statSync(folder);
    } catch {
      continue;
    }
    // The cache folders themselves must be private; a folder above them may be sticky (/tmp).
    const found = problem(folder, stats, index < 2 ? "the folder" : "the folder above it,", index >= 2);
    if (found !== null) return found;
  }
  // The cache files: a writable file would do what a writable folder does.
  let entries;
  try {
    entries = readdirSync(dir).slice(0, MAX_ENTRIES);
  } catch {
    return null;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry);
    let stats;
    try {
      stats = lstatSync(file);
    } catch {
      continue;
    }
    if (!stats.isFile())
      return `NODE_COMPILE_CACHE=${named}: ${file} is not a plain file (Node writes only files there), and what it leads to could run code in this server. Remove it.`;
    const found = problem(file, stats, "the cache file", false);
    if (found !== null) return found;
  }
  return null;
}
