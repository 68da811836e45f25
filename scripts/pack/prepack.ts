/**
 * `prepack` of the kervanc package (run by `npm pack -w kervanc` in packages/compiler): turns the workspace into
 * the one tarball a user installs.
 *
 * 1. `dist/`: the compiler's TypeScript compiled to plain ES modules by esbuild (bundled, split at the commands'
 *    dynamic imports so `kervanc --help` loads none of the compiler; the runtime's select signatures inlined;
 *    the registry dependencies left as imports).
 * 2. `runtime/`: the runtime sources copied into every generated package, with their package.json and LICENSE.
 * 3. `vendor/node_modules/`: every library file a generated bundle can contain (the SDK, zod, ipaddr.js, jose, proxy-from-env and the
 *    Ajv helpers), found by building a probe spec and recording what the bundler read, with each package's
 *    package.json files and licenses. Installed kervanc bundles only these, so its output never depends on
 *    what else a user has installed.
 * 4. `dist/toolchain.json`: the versions a generated package pins, and the content identity of this kervanc.
 * 5. `docs/diagnostics.md`, `schema/kervan-spec.schema.json` and `schema/kervan-test.schema.json`.
 *
 * esbuild rather than tsc: the sources import with `.ts` extensions and the runtime by package name, which a
 * bundler resolves in one step, and one process-wide bundle starts faster than ~60 separate modules.
 */
import * as esbuild from "esbuild";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { collectBundlerReads } from "../../packages/compiler/src/emit/bundle.ts";
import { emitServer } from "../../packages/compiler/src/emit/emit.ts";
import { contentIdentity, repositoryToolchain, type Toolchain } from "../../packages/compiler/src/emit/versions.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const PKG = join(REPO, "packages", "compiler");
const RUNTIME = join(REPO, "packages", "runtime");
const MODULES = join(REPO, "node_modules");
export const GENERATED = ["dist", "runtime", "vendor", "docs", "schema"] as const;

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
});

// 2. The runtime copied into generated packages.
// Only the sources a package is built from (runtime/src/README.md is for the repository's readers).
await cp(join(RUNTIME, "src"), join(PKG, "runtime", "src"), {
  recursive: true,
  filter: (path) => !path.endsWith(".md"),
});
for (const file of ["package.json", "LICENSE"]) await cp(join(RUNTIME, file), join(PKG, "runtime", file));

// 3. The vendored libraries: build a probe spec that uses every Ajv helper, record what the bundler reads.
const reads = new Set<string>();
collectBundlerReads(reads);
const probe = compileSpec(
  "probe.yaml",
  new TextEncoder().encode(await readFile(join(import.meta.dirname, "probe.yaml"), "utf8")),
);
if (probe.planned === null) throw new Error(`The probe spec does not build: ${JSON.stringify(probe.diagnostics)}`);
const stage = await mkdtemp(join(tmpdir(), "kervanc-prepack-"));
try {
  const files = await emitServer(probe.planned, {
    folder: "probe",
    specFile: "probe.yaml",
    sha256: "0".repeat(64),
    stageDir: stage,
  });
  if (!files.get("src/validators/ajv-runtime.js")?.includes("ucs2length"))
    throw new Error("The probe spec no longer uses every Ajv helper.");
} finally {
  collectBundlerReads(null);
  await rm(stage, { recursive: true, force: true });
}
const vendored = new Set<string>();
for (const file of reads) {
  if (!file.startsWith(MODULES + sep)) continue;
  vendored.add(file);
  // The package.json files between the file and its package's root tell the bundler how to resolve it.
  const root = packageRoot(file);
  for (let dir = dirname(file); dir.startsWith(root); dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) vendored.add(join(dir, "package.json"));
    if (dir === root) break;
  }
  for (const entry of await readdir(root))
    if (/^(licen[cs]e|copying|notice)/i.test(entry)) vendored.add(join(root, entry));
}
for (const file of [...vendored].sort()) {
  const target = join(PKG, "vendor", "node_modules", relative(MODULES, file));
  await mkdir(dirname(target), { recursive: true });
  await cp(file, target);
}

// 4. Pins and content identity.
const { pins } = repositoryToolchain();
const content = contentIdentity(
  [
    { label: "dist", dir: join(PKG, "dist") },
    { label: "runtime", dir: join(PKG, "runtime") },
    { label: "vendor", dir: join(PKG, "vendor") },
  ],
  pins,
);
const toolchain: Toolchain = { pins, content };
await writeFile(join(PKG, "dist", "toolchain.json"), `${JSON.stringify(toolchain, null, 2)}\n`);

// 5. The reference documents.
await mkdir(join(PKG, "docs"));
await cp(join(REPO, "docs", "diagnostics.md"), join(PKG, "docs", "diagnostics.md"));
await mkdir(join(PKG, "schema"));
await cp(join(REPO, "schema", "kervan-spec.schema.json"), join(PKG, "schema", "kervan-spec.schema.json"));
await cp(join(REPO, "schema", "kervan-test.schema.json"), join(PKG, "schema", "kervan-test.schema.json"));

process.stderr.write(
  `prepack: dist, runtime, ${vendored.size} vendored library files, toolchain ${content.slice(0, 12)}\n`,
);

/** `.../node_modules/<name>` or `.../node_modules/@scope/<name>` above `file`. */
function packageRoot(file: string): string {
  const parts = file.split(sep);
  const at = parts.lastIndexOf("node_modules");
  const length = parts[at + 1]!.startsWith("@") ? at + 3 : at + 2;
  const root = parts.slice(0, length).join(sep);
  if (basename(root) === "node_modules") throw new Error(`No package root above ${file}`);
  return root;
}
