/**
 * Where the pieces a generated server is made of live, and their exact versions.
 *
 * kervanc runs in one of two layouts:
 *
 * - **From the repository** (the TypeScript sources through tsx): the runtime is the `packages/runtime`
 *   workspace and the libraries bundled into servers are the repository's installed ones, fixed by its lockfile.
 * - **Installed from its tarball** (the compiled `dist/`): `scripts/pack/prepack.ts` copied the runtime into
 *   `runtime/`, bundled the fixed part of every server into `dist/prebuilt.json` (bundle/prebuilt-format.ts), and
 *   wrote `dist/toolchain.json` with the versions a generated package pins and the content identity of this
 *   kervanc. Nothing is then read from the user's `node_modules`, so two users with different installed packages
 *   get byte-identical output.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { COMPILER_ROOT, PACKED, readJson } from "../kervanc-package.ts";

const requireFromCompiler = createRequire(join(COMPILER_ROOT, "package.json"));
export const RUNTIME_ROOT = PACKED
  ? join(COMPILER_ROOT, "runtime")
  : dirname(requireFromCompiler.resolve("@kervanc/runtime/package.json"));
export const RUNTIME_SRC = join(RUNTIME_ROOT, "src");
/** The packages whose versions a generated package.json pins. */
export const RUNTIME_DEPENDENCIES = ["@modelcontextprotocol/server", "ipaddr.js", "jose", "proxy-from-env"] as const;
export const DEV_DEPENDENCIES = ["@types/node", "typescript"] as const;
export type PinnedPackage = (typeof RUNTIME_DEPENDENCIES)[number] | (typeof DEV_DEPENDENCIES)[number];

/** What `prepack` records in `dist/toolchain.json`. */
export interface Toolchain {
  /** Exact versions of the packages a generated package.json names. */
  readonly pins: Readonly<Record<PinnedPackage, string>>;
  /** SHA-256 over every file of this kervanc that can change what it writes (see `contentIdentity`). */
  readonly content: string;
}

let toolchain: Toolchain | null = null;

/** The pins and content identity: recorded at pack time, or worked out from the repository's files. */
export function currentToolchain(): Toolchain {
  toolchain ??= PACKED
    ? (JSON.parse(readFileSync(join(COMPILER_ROOT, "dist", "toolchain.json"), "utf8")) as Toolchain)
    : repositoryToolchain();
  return toolchain;
}

/** The exact version a generated package pins for `name`. */
export function pinnedVersion(name: PinnedPackage): string {
  const version = currentToolchain().pins[name];
  if (typeof version !== "string") throw new Error(`kervanc's toolchain record has no version for ${name}.`);
  return version;
}

/** In the repository: the installed versions (fixed by the lockfile) and a hash of the sources. */
export function repositoryToolchain(): Toolchain {
  const pins = Object.fromEntries(
    [...RUNTIME_DEPENDENCIES, ...DEV_DEPENDENCIES].map((name) => [name, installedVersion(name)]),
  ) as Record<PinnedPackage, string>;
  // The stages that decide what is written (the command line, the importer and the diagnostics texts do not),
  // so that editing a message does not make every committed package stale.
  const roots = [
    ...["load", "analyze", "plan", "emit"].map((stage) => ({
      label: `compiler/${stage}`,
      dir: join(COMPILER_ROOT, "src", stage),
    })),
    { label: "runtime", dir: RUNTIME_SRC },
  ];
  return { pins, content: contentIdentity(roots, pins) };
}

/**
 * A SHA-256 over the given folders' files (by label and relative path, in a fixed order) and the pins: any
 * change to the compiler, the runtime or a pinned version gives a new identity, so an incremental build never
 * keeps a package a different kervanc wrote.
 */
export function contentIdentity(
  roots: readonly { label: string; dir: string }[],
  pins: Readonly<Record<string, string>>,
): string {
  const hash = createHash("sha256");
  for (const { label, dir } of roots) {
    for (const file of listFiles(dir)) {
      const bytes = readFileSync(join(dir, file));
      hash.update(`${label}/${file}\0${bytes.length}\0`).update(bytes);
    }
  }
  hash.update(JSON.stringify(Object.entries(pins).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  return hash.digest("hex");
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The version of a package as the runtime (or, failing that, the compiler) resolves it in the repository. */
function installedVersion(name: string): string {
  const requireFromRuntime = createRequire(join(RUNTIME_ROOT, "package.json"));
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
