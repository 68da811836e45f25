/**
 * Bundling with esbuild (exactly pinned, every option explicit).
 *
 * A package has one bundle of the same server per runtime target (targets.ts: `server.mjs` for Node,
 * `worker.mjs` for the fetch handler). In each, the SDK's internal shim module is swapped for the target's
 * runtime shim so the SDK's run-time Ajv never enters the bundle.
 *
 * The output must not depend on where the sources were staged: bare imports in the staged sources are
 * resolved from kervanc's own libraries (`RESOLVE_FROM` in versions.ts: the vendored copy when installed, the
 * runtime workspace in the repository), never by walking up from the staging folder, where an unrelated node_modules (in the user's project above the output folder) could supply a
 * different version; and the tsconfig is the staged package's own, named explicitly so esbuild does not
 * look for one in parent folders.
 */
import * as esbuild from "esbuild";
import { isAbsolute, join, resolve, sep } from "node:path";
import { escapeInvisible } from "./code/code.ts";
import type { RuntimeTarget } from "./targets.ts";
import { LIBRARY_BASE, RESOLVE_FROM, resolutionPaths, VENDOR_MODULES } from "./versions.ts";

/**
 * Every file the bundler reads from a library, for `scripts/pack/prepack.ts`: it builds a probe spec with a
 * collector set here and vendors exactly those files into the tarball. Unset in normal use.
 */
let readsCollector: Set<string> | null = null;
export function collectBundlerReads(into: Set<string> | null): void {
  readsCollector = into;
}

/**
 * Records every file esbuild loads while a collector is set. The metafile is not enough: it leaves out
 * re-export-only modules of side-effect-free packages (zod's `v4/index.js`), which resolution still needs.
 */
function recordLoads(build: esbuild.PluginBuild): void {
  if (readsCollector === null) return;
  const reads = readsCollector;
  build.onLoad({ filter: /.*/ }, (args) => {
    if (args.namespace === "file") reads.add(args.path);
    return undefined;
  });
}

/** One input file that contributed code to a bundle, as esbuild's metafile reports it. */
export interface BundledInput {
  /** Absolute path of the file that was read. */
  readonly path: string;
  readonly bytesInOutput: number;
}

export interface BundleResult {
  readonly code: string;
  /** The input files that contributed code to the output, by absolute path, sorted. */
  readonly inputs: readonly BundledInput[];
}

const SHIM = /^@modelcontextprotocol\/server\/_shims$/;

/** A bare module specifier (not relative, not absolute). esbuild's filters are Go regexps: no lookahead. */
const BARE = /^[^./]/;
const FROM_RUNTIME = Symbol("kervanc: resolve from the runtime package");

/** Bundles the staged sources for one runtime target; `header` goes on top, after the target's banner prefix. */
export async function bundleServer(stageDir: string, target: RuntimeTarget, header: string): Promise<BundleResult> {
  const result = await esbuild.build({
    entryPoints: [join(stageDir, target.entry.path)],
    absWorkingDir: stageDir,
    tsconfig: join(stageDir, "tsconfig.json"),
    bundle: true,
    ...target.platform,
    format: "esm",
    minify: true,
    legalComments: "eof",
    charset: "utf8",
    sourcemap: false,
    metafile: true,
    write: false,
    logLevel: "silent",
    nodePaths: resolutionPaths(),
    banner: { js: `${target.bannerPrefix}${header}` },
    plugins: [
      {
        name: "kervanc-resolution",
        setup(build) {
          recordLoads(build);
          build.onResolve({ filter: SHIM }, () => ({ path: join(stageDir, "src", "runtime", target.shim) }));
          build.onResolve({ filter: BARE }, async (args) => {
            // Third-party code resolves its own imports from where it is installed; only the staged sources
            // are redirected.
            if (
              args.pluginData === FROM_RUNTIME ||
              args.path.startsWith("node:") ||
              !args.importer.startsWith(stageDir + sep)
            )
              return undefined;
            const found = await build.resolve(args.path, {
              kind: args.kind,
              resolveDir: RESOLVE_FROM,
              importer: args.importer,
              pluginData: FROM_RUNTIME,
            });
            if (found.errors.length > 0) return { errors: found.errors };
            return {
              path: found.path,
              external: found.external,
              namespace: found.namespace,
              sideEffects: found.sideEffects,
            };
          });
        },
      },
    ],
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output.");
  if (target.importsNothing) {
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    if (imports.length > 0)
      throw new Error(`The ${target.file} bundle must import nothing, but it imports ${imports.join(", ")}.`);
  }
  return { code: visibleBundle(file.text), inputs: contributions(result.metafile, stageDir, null, stageDir) };
}

/**
 * esbuild's output with invisible characters written as `\uXXXX` (code.ts, `escapeInvisible`). The sources hold
 * such characters only as escapes, but with `charset: "utf8"` esbuild prints a string's characters as they are,
 * so a bidirectional override in an enum value came back raw in `server.mjs` (U+2028, U+2029 and U+FEFF it keeps
 * escaped). In esbuild's output they can only be inside strings, template and regular expression literals and
 * comments, where an escape has the same value. (The runtime and the bundled libraries hold none: the golden
 * bundles are the same with and without this; a tagged template's raw text would be the one place it shows.)
 */
function visibleBundle(code: string): string {
  return escapeInvisible(code);
}

/** The name esbuild gives the in-memory entry of the Ajv helpers (it is only re-exports, generated here). */
const AJV_ENTRY = "ajv-runtime-entry.js";

/** Bundles the Ajv helpers the validators use into one small ES module (not minified, so it can be read). */
export async function bundleAjvRuntime(entrySource: string, banner: string): Promise<BundleResult> {
  const result = await esbuild.build({
    stdin: { contents: entrySource, resolveDir: LIBRARY_BASE, sourcefile: AJV_ENTRY, loader: "js" },
    absWorkingDir: LIBRARY_BASE,
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    minify: false,
    legalComments: "inline",
    charset: "utf8",
    metafile: true,
    write: false,
    logLevel: "silent",
    nodePaths: resolutionPaths(),
    banner: { js: banner },
    plugins: [{ name: "kervanc-reads", setup: recordLoads }],
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output for the Ajv helpers.");
  // Path comments name where each helper came from; keep them free of machine-specific folders.
  const code = visibleBundle(file.text.replace(/^\/\/ .*node_modules\//gm, "// node_modules/"));
  return { code, inputs: contributions(result.metafile, LIBRARY_BASE, AJV_ENTRY, null) };
}

/**
 * The files that put at least one byte into the output. esbuild also lists files it parsed and then dropped
 * entirely (tree-shaken re-export modules, unused locales); those are not part of what ships.
 */
function contributions(
  metafile: esbuild.Metafile,
  workingDir: string,
  stdinName: string | null,
  stageDir: string | null,
): BundledInput[] {
  const outputs = Object.values(metafile.outputs);
  if (outputs.length !== 1) throw new Error(`esbuild produced ${outputs.length} outputs; expected one.`);
  const inputs: BundledInput[] = [];
  for (const [path, { bytesInOutput }] of Object.entries(outputs[0]!.inputs)) {
    if (path === stdinName) continue;
    if (path.includes(":") && !isAbsolute(path))
      throw new Error(`esbuild reported an input outside the file system: ${path}`);
    const absolute = resolve(workingDir, path);
    readsCollector?.add(absolute);
    // Installed from its tarball, kervanc bundles only its own vendored libraries: a file from anywhere else
    // (the user's node_modules) would make the output depend on the user's installation.
    if (
      VENDOR_MODULES !== null &&
      !absolute.startsWith(VENDOR_MODULES + sep) &&
      (stageDir === null || !absolute.startsWith(stageDir + sep))
    ) {
      throw new Error(`kervanc's vendored libraries are incomplete: the bundle read ${absolute}. Please report this.`);
    }
    if (bytesInOutput === 0) continue;
    inputs.push({ path: absolute, bytesInOutput });
  }
  return inputs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
