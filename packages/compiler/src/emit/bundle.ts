/**
 * Bundling with esbuild (exactly pinned, every option explicit).
 *
 * `server.mjs` is the whole server in one file: the generated modules, the runtime, and the third-party code
 * they import. It has no imports but Node built-ins, so it runs with bare `node server.mjs` and nothing next
 * to it. The SDK's internal shim module is swapped for the runtime's (sdk-shims.ts) so the SDK's run-time
 * Ajv never enters the bundle.
 */
import * as esbuild from "esbuild";
import { join } from "node:path";
import { resolutionPaths, RUNTIME_ROOT } from "./versions.ts";

export interface BundleResult {
  readonly code: string;
  /** Every input file (relative, `/`-separated) that went into the bundle, sorted. */
  readonly inputs: readonly string[];
}

const SHIM = /^@modelcontextprotocol\/server\/_shims$/;

export async function bundleServer(stageDir: string, entry: string, banner: string): Promise<BundleResult> {
  const result = await esbuild.build({
    entryPoints: [join(stageDir, entry)],
    absWorkingDir: stageDir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: true,
    legalComments: "eof",
    charset: "utf8",
    sourcemap: false,
    metafile: true,
    write: false,
    logLevel: "silent",
    nodePaths: resolutionPaths(),
    banner: { js: banner },
    plugins: [
      {
        name: "kervanc-sdk-shims",
        setup(build) {
          build.onResolve({ filter: SHIM }, () => ({ path: join(stageDir, "src", "runtime", "sdk-shims.ts") }));
        },
      },
    ],
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output.");
  return { code: file.text, inputs: Object.keys(result.metafile.inputs).sort() };
}

/** Bundles the Ajv helpers the validators use into one small ES module (not minified, so it can be read). */
export async function bundleAjvRuntime(entrySource: string, banner: string): Promise<string> {
  const result = await esbuild.build({
    stdin: { contents: entrySource, resolveDir: RUNTIME_ROOT, sourcefile: "ajv-runtime-entry.js", loader: "js" },
    absWorkingDir: RUNTIME_ROOT,
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    minify: false,
    legalComments: "inline",
    charset: "utf8",
    write: false,
    logLevel: "silent",
    nodePaths: resolutionPaths(),
    banner: { js: banner },
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no output for the Ajv helpers.");
  // Path comments name where each helper came from; keep them free of machine-specific folders.
  return file.text.replace(/^\/\/ .*node_modules\//gm, "// node_modules/");
}
