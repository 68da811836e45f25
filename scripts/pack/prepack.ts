/**
 * `prepack` of the kervanc package (run by `npm pack -w kervanc` in packages/compiler): turns the workspace into
 * the one tarball a user installs.
 *
 * 1. `dist/`: the compiler's TypeScript compiled to plain ES modules by esbuild (bundled, split at the commands'
 *    dynamic imports so `kervanc --help` loads none of the compiler; the runtime's select signatures inlined;
 *    the registry dependencies left as imports).
 * 2. `runtime/`: the runtime sources copied into every generated package, with their package.json and LICENSE.
 * 3. `dist/toolchain.json`: the versions a generated package pins, and the content identity of this kervanc.
 * 4. `dist/prebuilt.json`: the fixed part of every generated bundle (the runtime, the SDK, zod and the network
 *    libraries, one chunk per target) and the Ajv helpers, bundled now so that a user's build runs no bundler
 *    (emit/bundle/prebuild.ts). Installed kervanc reads nothing from the user's `node_modules`, so its output
 *    never depends on what else a user has installed, and esbuild is not among its dependencies.
 *    With it, `dist/meta-schema-validator.cjs`: the JSON Schema 2020-12 meta-schema compiled by Ajv
 *    (analyze/rules/meta-schema.ts), so no command compiles it.
 * 5. `docs/diagnostics.md`, `schema/kervan-spec.schema.json` and `schema/kervan-test.schema.json`.
 *
 * esbuild rather than tsc: the sources import with `.ts` extensions and the runtime by package name, which a
 * bundler resolves in one step, and one process-wide bundle starts faster than ~60 separate modules.
 */
import * as esbuild from "esbuild";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { META_VALIDATOR_FILE, metaSchemaValidatorCode } from "../../packages/compiler/src/analyze/rules/meta-schema.ts";
import { prebuild } from "../../packages/compiler/src/emit/bundle/prebuild.ts";
import { contentIdentity, repositoryToolchain, type Toolchain } from "../../packages/compiler/src/emit/versions.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const PKG = join(REPO, "packages", "compiler");
const RUNTIME = join(REPO, "packages", "runtime");
export const GENERATED = ["dist", "runtime", "docs", "schema"] as const;

for (const dir of GENERATED) await rm(join(PKG, dir), { recursive: true, force: true });

// 1. The compiled CLI and API.
const pkg = JSON.parse(await readFile(join(PKG, "package.json"), "utf8")) as { dependencies: Record<string, string> };
await esbuild.build({
  entryPoints: { cli: join(PKG, "src", "cli.ts"), index: join(PKG, "src", "index.ts") },
  outdir: join(PKG, "dist"),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  external: Object.keys(pkg.dependencies),
  chunkNames: "chunks/[name]-[hash]",
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
  banner: { js: "// kervanc, compiled from its TypeScript sources by scripts/pack/prepack.ts." },
  plugins: [
    {
      // The bundler that wrote dist/prebuilt.json stays here: installed kervanc reads the record (emit/bundle/
      // prebuilt.ts) and never loads esbuild, which is not one of its dependencies.
      name: "kervanc-no-prebuild",
      setup(build) {
        build.onResolve({ filter: /\/prebuild\.ts$/ }, (args) => ({
          path: args.path,
          namespace: "kervanc-no-prebuild",
        }));
        build.onLoad({ filter: /.*/, namespace: "kervanc-no-prebuild" }, () => ({
          contents:
            'export function prebuild() { throw new Error("Installed kervanc reads dist/prebuilt.json; it does not bundle."); }',
          loader: "js",
        }));
      },
    },
  ],
});

// The 2020-12 meta-schema's validator, compiled now (analyze/rules/meta-schema.ts): about 60 ms less per command.
await writeFile(join(PKG, "dist", META_VALIDATOR_FILE), `${await metaSchemaValidatorCode()}\n`);

// 2. The runtime copied into generated packages.
// Only the sources a package is built from (runtime/src/README.md is for the repository's readers).
await cp(join(RUNTIME, "src"), join(PKG, "runtime", "src"), {
  recursive: true,
  filter: (path) => !path.endsWith(".md"),
});
for (const file of ["package.json", "LICENSE"]) await cp(join(RUNTIME, file), join(PKG, "runtime", file));

// 3. Pins and content identity (of what prepack wrote so far: the record below is a function of it).
const { pins } = repositoryToolchain();
const content = contentIdentity(
  [
    { label: "dist", dir: join(PKG, "dist") },
    { label: "runtime", dir: join(PKG, "runtime") },
  ],
  pins,
);
const toolchain: Toolchain = { pins, content };
await writeFile(join(PKG, "dist", "toolchain.json"), `${JSON.stringify(toolchain, null, 2)}\n`);

// 4. The fixed part of every bundle.
const prebuilt = await prebuild(content);
await writeFile(join(PKG, "dist", "prebuilt.json"), `${JSON.stringify(prebuilt)}\n`);

// 5. The reference documents.
await mkdir(join(PKG, "docs"));
await cp(join(REPO, "docs", "diagnostics.md"), join(PKG, "docs", "diagnostics.md"));
await mkdir(join(PKG, "schema"));
await cp(join(REPO, "schema", "kervan-spec.schema.json"), join(PKG, "schema", "kervan-spec.schema.json"));
await cp(join(REPO, "schema", "kervan-test.schema.json"), join(PKG, "schema", "kervan-test.schema.json"));

process.stderr.write(
  `prepack: dist, runtime, prebuilt bundles of ${Object.keys(prebuilt.packages).length} libraries, toolchain ${content.slice(0, 12)}\n`,
);
