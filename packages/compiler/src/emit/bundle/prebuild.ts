/**
 * Bundles the fixed part of every generated server with esbuild (exactly pinned, every option explicit): once
 * when kervanc is packed (`scripts/pack/prepack.ts` writes the record into `dist/`), and in the repository once
 * per content identity (prebuilt.ts keeps it in a cache). A user's build never loads this module, so esbuild is
 * a development dependency of kervanc, not a dependency of what users install.
 *
 * One chunk per runtime target (targets.ts): the runtime's entry and `define.ts` with everything they import,
 * the SDK's internal `_shims` module swapped for the target's own (so the SDK's run-time Ajv never enters), as an
 * IIFE that binds `RUNTIME_GLOBAL`. An IIFE rather than a module: its minified names stay inside its function, so
 * the spec's code composed after it (compose.ts) cannot collide with them, and it needs no `export` to strip.
 * The Ajv helpers a validator may need are bundled for each combination, readable for `src/validators/` and as
 * an IIFE for the bundles.
 */
import * as esbuild from "esbuild";
import { readdir, readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { escapeInvisible } from "../code/code.ts";
import { compareStrings, sha256 } from "../code/hash.ts";
import { TARGETS, type RuntimeTarget, type TargetName } from "../targets.ts";
import { TSCONFIG } from "../files/package-json.ts";
import { AJV_HELPER_NAMES, ajvHelpersKey, ajvRuntimeEntry, type AjvHelpers } from "../validators/validators.ts";
import { RUNTIME_ROOT, RUNTIME_SRC } from "../versions.ts";
import { bundleViewRenderer } from "../view/renderer-bundle.ts";
import {
  PREBUILT_FORMAT,
  RUNTIME_GLOBAL,
  type LibraryFile,
  type LibraryPackage,
  type Prebuilt,
  type PrebuiltAjvRuntime,
  type PrebuiltChunk,
  type RuntimePackage,
} from "./prebuilt-format.ts";

const SHIM = /^@modelcontextprotocol\/server\/_shims$/;

/** What each target's chunk exports: the two definers the spec's modules call, and the target's entry. */
const CHUNK_ENTRY: Readonly<Record<TargetName, { source: string; exports: readonly string[] }>> = {
  node: {
    source: `export { defineServer, defineTool } from "./define.ts";\nexport { main } from "./entry/node-main.ts";\n`,
    exports: ["defineServer", "defineTool", "main"],
  },
  fetch: {
    source: `export { defineServer, defineTool } from "./define.ts";\nexport { createFetchHandler } from "./entry/fetch-main.ts";\n`,
    exports: ["createFetchHandler", "defineServer", "defineTool"],
  },
};

/** The chunk entry's name in esbuild's metafile (it is only re-exports). */
const CHUNK_ENTRY_NAME = "kervanc-chunk-entry.ts";

/** The first line of the legal comments esbuild collects at the end of a bundle (`legalComments: "eof"`). */
const LEGAL_START = "/*! Bundled license information:";

/** Builds the whole record. `content` is the identity of the kervanc it belongs to (versions.ts). */
export async function prebuild(content: string): Promise<Prebuilt> {
  const packages = new PackageTable();
  const chunks = {} as Record<TargetName, PrebuiltChunk>;
  for (const target of TARGETS) chunks[target.name] = await buildChunk(target, packages);
  const ajvRuntimes: Record<string, PrebuiltAjvRuntime> = {};
  for (const helpers of everyHelperSet())
    ajvRuntimes[ajvHelpersKey(helpers)] = await buildAjvRuntime(helpers, packages);
  const viewRenderer = await bundleViewRenderer(
    (path) => packages.add(path),
    (metafile, workingDir) => contributions(metafile, workingDir),
  );
  const runtimePkg = JSON.parse(await readFile(join(RUNTIME_ROOT, "package.json"), "utf8")) as Record<string, unknown>;
  const runtimePackage: RuntimePackage = {
    name: String(runtimePkg["name"]),
    version: String(runtimePkg["version"]),
    license: licenseField(runtimePkg["license"]),
    licenseFiles: await licenseFiles(RUNTIME_ROOT),
  };
  return {
    format: PREBUILT_FORMAT,
    content,
    chunks,
    ajvRuntimes,
    viewRenderer: { ...viewRenderer, libraries: sortFiles([...viewRenderer.libraries]) },
    packages: await packages.describe(),
    runtimePackage,
  };
}

async function buildChunk(target: RuntimeTarget, packages: PackageTable): Promise<PrebuiltChunk> {
  const entry = CHUNK_ENTRY[target.name];
  const result = await esbuild.build({
    stdin: { contents: entry.source, resolveDir: RUNTIME_SRC, sourcefile: CHUNK_ENTRY_NAME, loader: "ts" },
    absWorkingDir: RUNTIME_SRC,
    tsconfigRaw: TSCONFIG,
    bundle: true,
    ...target.platform,
    format: "iife",
    globalName: RUNTIME_GLOBAL,
    minify: true,
    legalComments: "eof",
    charset: "utf8",
    sourcemap: false,
    metafile: true,
    write: false,
    logLevel: "silent",
    plugins: [
      {
        name: "kervanc-shim",
        setup(build) {
          build.onResolve({ filter: SHIM }, () => ({ path: join(RUNTIME_SRC, target.shim) }));
        },
      },
    ],
  });
  const text = onlyOutput(result).text;
  const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  if (imports.length > 0)
    throw new Error(`The ${target.file} runtime chunk must import nothing, but it imports ${imports.join(", ")}.`);
  const at = text.indexOf(LEGAL_START);
  // The tsconfig's strict mode makes esbuild open an IIFE with a "use strict" prologue; the bundles are ES
  // modules, strict already, and the chunk is not at their top.
  const code = escapeInvisible((at < 0 ? text : text.slice(0, at)).replace(/^"use strict";/, "").replace(/\s+$/, ""));
  if (!code.startsWith(`var ${RUNTIME_GLOBAL}=`))
    throw new Error(`esbuild's IIFE no longer starts by binding ${RUNTIME_GLOBAL}: ${code.slice(0, 80)}`);
  const legalComments = at < 0 ? "" : escapeInvisible(text.slice(at).replace(/\s+$/, ""));
  const libraries: LibraryFile[] = [];
  const runtime: string[] = [];
  for (const path of contributions(result.metafile, RUNTIME_SRC, CHUNK_ENTRY_NAME)) {
    const inRuntime = relative(RUNTIME_SRC, path);
    if (!inRuntime.startsWith("..") && !isAbsolute(inRuntime) && !inRuntime.split(sep).includes("node_modules"))
      runtime.push(inRuntime.split(sep).join("/"));
    else libraries.push(packages.add(path));
  }
  return { code, legalComments, exports: entry.exports, libraries: sortFiles(libraries), runtime: runtime.sort() };
}

/** The entry's name in esbuild's output (only re-exports and kervanc's own helper). */
const AJV_ENTRY = "ajv-runtime-entry.js";

async function buildAjvRuntime(helpers: AjvHelpers, packages: PackageTable): Promise<PrebuiltAjvRuntime> {
  const build = (format: "esm" | "iife") =>
    esbuild.build({
      stdin: { contents: ajvRuntimeEntry(helpers), resolveDir: RUNTIME_SRC, sourcefile: AJV_ENTRY, loader: "js" },
      absWorkingDir: RUNTIME_SRC,
      bundle: true,
      platform: "neutral",
      format,
      ...(format === "iife" ? { globalName: "__kervanc_ajv" } : {}),
      target: "es2022",
      minify: format === "iife",
      legalComments: format === "iife" ? "none" : "inline",
      charset: "utf8",
      metafile: true,
      write: false,
      logLevel: "silent",
    });
  const readable = await build("esm");
  const compact = await build("iife");
  // Path comments name where each helper came from; keep them free of machine-specific folders.
  const module = escapeInvisible(onlyOutput(readable).text.replace(/^\/\/ .*node_modules\//gm, "// node_modules/"));
  const iife = escapeInvisible(onlyOutput(compact).text.replace(/\s+$/, ""));
  const libraries = contributions(readable.metafile, RUNTIME_SRC, AJV_ENTRY).map((path) => packages.add(path));
  return { code: module, iife, libraries: sortFiles(libraries) };
}

/** Every non-empty combination of the helpers. */
function everyHelperSet(): AjvHelpers[] {
  const sets: AjvHelpers[] = [];
  for (let mask = 1; mask < 1 << AJV_HELPER_NAMES.length; mask++)
    sets.push(
      Object.fromEntries(AJV_HELPER_NAMES.map((name, i) => [name, (mask & (1 << i)) !== 0])) as unknown as AjvHelpers,
    );
  return sets;
}

function onlyOutput(result: esbuild.BuildResult & { outputFiles: esbuild.OutputFile[] }): esbuild.OutputFile {
  if (result.outputFiles.length !== 1) throw new Error(`esbuild produced ${result.outputFiles.length} outputs.`);
  return result.outputFiles[0]!;
}

/**
 * The files that put at least one byte into the output, as absolute paths. esbuild also lists files it parsed
 * and then dropped entirely (tree-shaken re-export modules, unused locales); those are not part of what ships.
 */
function contributions(metafile: esbuild.Metafile, workingDir: string, stdinName?: string): string[] {
  const outputs = Object.values(metafile.outputs);
  if (outputs.length !== 1) throw new Error(`esbuild produced ${outputs.length} outputs; expected one.`);
  const paths: string[] = [];
  for (const [path, { bytesInOutput }] of Object.entries(outputs[0]!.inputs)) {
    if (path === stdinName || path.startsWith("<stdin>")) continue;
    if (path.includes(":") && !isAbsolute(path))
      throw new Error(`esbuild reported an input outside the file system: ${path}`);
    if (bytesInOutput > 0) paths.push(resolve(workingDir, path));
  }
  return paths.sort(compareStrings);
}

function sortFiles(files: LibraryFile[]): LibraryFile[] {
  const key = (f: LibraryFile): string => `${f.package}\0${f.path}`;
  const unique = new Map(files.map((f) => [key(f), f]));
  return [...unique.values()].sort((a, b) => compareStrings(key(a), key(b)));
}

const LICENSE_FILE = /^(?:licen[cs]e|copying|notice)(?:[.-][a-z0-9.-]*)?$/i;

/** The packages the chunks read from, each attributed by the folder under the last `node_modules/` in a path. */
class PackageTable {
  readonly #roots = new Map<string, { root: string; files: Set<string> }>();

  add(absolute: string): LibraryFile {
    const normalized = absolute.split(sep).join("/");
    const at = normalized.lastIndexOf("/node_modules/");
    if (at < 0) throw new Error(`Cannot attribute a bundled file to a package: ${absolute}`);
    const after = normalized.slice(at + "/node_modules/".length).split("/");
    const nameParts = after[0]?.startsWith("@") ? after.slice(0, 2) : after.slice(0, 1);
    const name = nameParts.join("/");
    const root = `${normalized.slice(0, at)}/node_modules/${name}`;
    const entry = this.#roots.get(name) ?? { root, files: new Set<string>() };
    // One copy per package across every chunk, so one version and one hash describe it.
    if (entry.root !== root)
      throw new Error(`Two copies of ${name} went into the bundles (${entry.root} and ${root}).`);
    const path = after.slice(nameParts.length).join("/");
    entry.files.add(path);
    this.#roots.set(name, entry);
    return { package: name, path };
  }

  async describe(): Promise<Record<string, LibraryPackage>> {
    const out: Record<string, LibraryPackage> = {};
    for (const name of [...this.#roots.keys()].sort(compareStrings)) {
      const { root, files } = this.#roots.get(name)!;
      const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as Record<string, unknown>;
      if (pkg["name"] !== name || typeof pkg["version"] !== "string")
        throw new Error(`${root}/package.json does not describe ${name}.`);
      const fileHashes: Record<string, string> = {};
      for (const path of [...files].sort(compareStrings)) fileHashes[path] = sha256(await readFile(join(root, path)));
      out[name] = {
        version: pkg["version"],
        license: licenseField(pkg["license"]),
        fileHashes,
        licenseFiles: await licenseFiles(root),
      };
    }
    return out;
  }
}

export function licenseField(value: unknown): string | null {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  // The legacy `{ "type": "MIT" }` form.
  if (value !== null && typeof value === "object" && typeof (value as { type?: unknown }).type === "string")
    return (value as { type: string }).type;
  return null;
}

export async function licenseFiles(root: string): Promise<{ name: string; text: string }[]> {
  const names = (await readdir(root, { withFileTypes: true }))
    .filter((e) => e.isFile() && LICENSE_FILE.test(e.name))
    .map((e) => e.name)
    .sort(compareStrings);
  const out: { name: string; text: string }[] = [];
  for (const name of names) {
    const text = (await readFile(join(root, name), "utf8")).replace(/\r\n?/g, "\n").replace(/\s+$/, "");
    out.push({ name, text });
  }
  return out;
}
