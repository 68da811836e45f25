/**
 * Bundles the view renderer (renderer/view-app.ts with the ext-apps App client) with esbuild: called by
 * prebuild.ts only, when kervanc is packed and once per content identity in the repository, so a user's build
 * runs no bundler (renderer-script.ts reads the result from the prebuilt record).
 *
 * The script goes inside a `<script>` element of a page served under a CSP with no `unsafe-eval`: zod (under the
 * App client) is made jitless before anything else runs, so it never probes `new Function`; zod's locales other
 * than English are left out (the App never picks one), which halves the script. The script must not contain
 * text that would end its element early.
 */
import * as esbuild from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { escapeInvisible } from "../code/code.ts";
import { sha256Base64 } from "../code/hash.ts";
import type { LibraryFile, PrebuiltViewRenderer } from "../bundle/prebuilt-format.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const ENTRY = join(HERE, "renderer", "view-app.ts");
/** zod's table of locales, from zod/v4/classic and zod/v4/core: only English is kept. */
const ZOD_LOCALES = /^\.\.\/locales\/index\.js$/;

export async function bundleViewRenderer(
  addLibrary: (absolutePath: string) => LibraryFile,
  contributions: (metafile: esbuild.Metafile, workingDir: string) => string[],
): Promise<PrebuiltViewRenderer> {
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    absWorkingDir: HERE,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    minify: true,
    legalComments: "none",
    charset: "ascii",
    sourcemap: false,
    metafile: true,
    write: false,
    logLevel: "silent",
    banner: { js: "globalThis.__zod_globalConfig={...globalThis.__zod_globalConfig,jitless:true};" },
    plugins: [
      {
        name: "kervanc-zod-en",
        setup(build) {
          build.onResolve({ filter: ZOD_LOCALES }, (args) =>
            args.importer.includes(`${"/"}zod${"/"}`)
              ? { path: join(dirname(args.importer), "..", "locales", "index.js"), namespace: "kervanc-zod-en" }
              : undefined,
          );
          build.onLoad({ filter: /.*/, namespace: "kervanc-zod-en" }, (args) => ({
            contents: `export { default as en } from "./en.js";\n`,
            resolveDir: dirname(args.path),
            loader: "js",
          }));
        },
      },
    ],
  });
  if (result.outputFiles.length !== 1) throw new Error(`esbuild produced ${result.outputFiles.length} outputs.`);
  const code = escapeInvisible(result.outputFiles[0]!.text.replace(/\s+$/, ""));
  if (/<\/script|<!--|<script/i.test(code))
    throw new Error("The view renderer contains text that would end or open a <script> element.");
  // The stand-in for zod's locale table is not a file; zod's English locale, which it re-exports, is.
  for (const output of Object.values(result.metafile.outputs))
    for (const input of Object.keys(output.inputs))
      if (input.startsWith("kervanc-zod-en:")) delete output.inputs[input];
  const libraries = contributions(result.metafile, HERE)
    .filter((path) => path.includes("/node_modules/"))
    .map((path) => addLibrary(path));
  return { code, sha256: sha256Base64(code), libraries };
}
