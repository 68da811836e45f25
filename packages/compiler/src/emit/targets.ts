/**
 * The runtime targets a package is bundled for, as data. Every module that handles a bundle (emit, bundle,
 * drift, sbom, swap, the README's run commands) iterates this table or names a target from it, so adding a
 * runtime target means: an entry here, its entry module (modules.ts) and its SDK shim (packages/runtime/src).
 *
 * Each target is the whole server in one file (the generated modules, the runtime, and the third-party code
 * they import):
 *
 * - `node`, `server.mjs` (entry src/main.ts): the Node entry. It imports nothing: the runtime takes the Node
 *   built-ins it needs with `process.getBuiltinModule` where it needs them (see runtime/entry/node-main.ts for why),
 *   so it runs with bare `node server.mjs` and nothing next to it.
 * - `fetch`, `worker.mjs` (entry src/worker.ts): the web-standard fetch handler (`export default { fetch }`)
 *   for workerd, Deno and Bun. It imports nothing at all (not even a Node built-in, which workerd without
 *   `nodejs_compat` cannot load); the build fails if esbuild leaves any import in it.
 *
 * The bundles' file names are what users run and deploy, so they never change (`worker.mjs` keeps its name);
 * everywhere else the target is called fetch: its runtime entry is `entry/fetch-main.ts` (`createFetchHandler`)
 * and its shim `entry/sdk-shims-fetch.ts`.
 */
import type * as esbuild from "esbuild";
import type { Code } from "./code/code.ts";
import { FETCH_ENTRY, NODE_ENTRY } from "./modules.ts";

export type TargetName = "node" | "fetch";

export interface RuntimeTarget {
  readonly name: TargetName;
  /** The bundle's file name in the package. */
  readonly file: string;
  /** The generated entry module: its path in the package and its source. */
  readonly entry: { readonly path: string; readonly code: Code };
  /** What goes above the generated-file header at the top of the bundle (the Node entry's `#!` line). */
  readonly bannerPrefix: string;
  /** esbuild's platform options for this target. */
  readonly platform: esbuild.BuildOptions;
  /** The runtime module (in src/runtime/) that replaces the SDK's `_shims` module, keeping the SDK's Ajv out. */
  readonly shim: string;
  /** Whether the bundle must import nothing at all (the build fails if esbuild leaves an import in it). */
  readonly importsNothing: boolean;
  /** Whether the bundle is written executable (it has a `#!` line and is the package's `bin`). */
  readonly executable: boolean;
  /** What the bundle is, for the SBOM. */
  readonly description: string;
}

const NODE: RuntimeTarget = {
  name: "node",
  file: "server.mjs",
  entry: { path: "src/main.ts", code: NODE_ENTRY },
  bannerPrefix: "#!/usr/bin/env node\n",
  platform: { platform: "node", target: "node20" },
  shim: "entry/sdk-shims.ts",
  importsNothing: false,
  executable: true,
  description: "The Node entry: stdio, or Streamable HTTP with --http.",
};

const FETCH: RuntimeTarget = {
  name: "fetch",
  file: "worker.mjs",
  entry: { path: "src/worker.ts", code: FETCH_ENTRY },
  bannerPrefix: "",
  // Built for no platform in particular: esbuild then treats no import as built in, so anything Node-only fails
  // to resolve here instead of failing to load on workerd.
  platform: { platform: "neutral", target: "es2022", mainFields: ["module", "main"], conditions: [] },
  shim: "entry/sdk-shims-fetch.ts",
  importsNothing: true,
  executable: false,
  description: "The web-standard fetch handler (export default { fetch }) for workerd, Deno and Bun.",
};

/** Every target, by name. */
export const TARGET: Readonly<Record<TargetName, RuntimeTarget>> = { node: NODE, fetch: FETCH };

/** Every target, in the order the package lists its bundles (manifest.json, the SBOM, the notices). */
export const TARGETS: readonly RuntimeTarget[] = [NODE, FETCH];

/** The target whose bundle `path` (a package-relative path, possibly under a folder) is, or undefined. */
export function targetOfFile(path: string): RuntimeTarget | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return TARGETS.find((t) => t.file === base);
}
