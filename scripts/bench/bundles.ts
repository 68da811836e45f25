/**
 * Bundling the baselines exactly as kervanc bundles a generated server (packages/compiler/src/emit/bundle.ts):
 * the same esbuild (the compiler's exact-pinned copy), the same options, and the same swap of the SDK's shim
 * module for the runtime's, which keeps the SDK's run-time Ajv out. Cold start then compares like with like: one
 * minified file each, only Node built-ins imported.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import * as esbuild from "esbuild";

export const REPO = resolve(import.meta.dirname, "..", "..");
const BENCH = join(REPO, "scripts", "bench");
const SDK_SHIMS = join(REPO, "packages", "runtime", "src", "entry", "sdk-shims.ts");
const SHIM = /^@modelcontextprotocol\/server\/_shims$/;

/** The options bundleServer() uses, minus its staging-folder resolution (these entries live in the repository). */
const COMMON = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  sourcemap: false,
  write: true,
  logLevel: "silent",
} as const satisfies esbuild.BuildOptions;

const shims: esbuild.Plugin = {
  name: "bench-sdk-shims",
  setup(build) {
    build.onResolve({ filter: SHIM }, () => ({ path: SDK_SHIMS }));
  },
};

async function bundle(
  entry: string,
  outfile: string,
  extra: esbuild.BuildOptions = {},
  plugins: readonly esbuild.Plugin[] = [],
): Promise<void> {
  await esbuild.build({
    ...COMMON,
    entryPoints: [entry],
    outfile,
    absWorkingDir: REPO,
    plugins: [shims, ...plugins],
    ...extra,
  });
}

/**
 * For a variant of the hand-written bundle: each `import ... from "node:x"` becomes a module that takes node:x
 * with `process.getBuiltinModule`, as kervanc's runtime does (see its node-main.ts), instead of an ES module
 * import of the built-in, which makes Node read all its exports and so run its lazy getters (node:http's load
 * undici on Node 22 and 24). The names a file imports are read from its import line.
 */
const builtinsThroughProcess: esbuild.Plugin = {
  name: "bench-builtins-through-process",
  setup(build) {
    const names = new Map<string, Set<string>>();
    build.onLoad({ filter: /scripts\/bench\/handwritten\/.*\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      for (const m of text.matchAll(/^import \{([^}]*)\} from "(node:[a-z_/]+)";$/gm)) {
        const set = names.get(m[2]!) ?? new Set<string>();
        for (const name of m[1]!.split(",")) if (name.trim() !== "" && !name.includes("type ")) set.add(name.trim());
        names.set(m[2]!, set);
      }
      return { contents: text, loader: "ts" };
    });
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: "builtin-through-process" }));
    build.onLoad({ filter: /.*/, namespace: "builtin-through-process" }, (args) => ({
      contents: [
        `const m = process.getBuiltinModule(${JSON.stringify(args.path)});`,
        "export default m;",
        ...[...(names.get(args.path) ?? [])].map((name) => `export const ${name} = m.${name};`),
      ].join("\n"),
      loader: "js",
    }));
  },
};

export interface BaselineFiles {
  /** Hand-written server, one file like a generated server.mjs. */
  readonly handwritten: string;
  /** The same, its built-ins taken with process.getBuiltinModule as kervanc's runtime takes them. */
  readonly handwrittenLazyBuiltins: string;
  /**
   * The same server unbundled: the two source files joined, the SDK imported from node_modules as an npm
   * project would run it. It must live inside the repository for node_modules to resolve.
   */
  readonly handwrittenUnbundled: string;
  /** Interpreting server (YAML + Ajv + JMESPath at start-up), one file. */
  readonly interpreted: string;
}

/** Writes the baseline bundles into `dir` (which must be inside the repository, for the unbundled one). */
export async function bundleBaselines(dir: string): Promise<BaselineFiles> {
  const files: BaselineFiles = {
    handwritten: join(dir, "handwritten.mjs"),
    handwrittenLazyBuiltins: join(dir, "handwritten-lazy-builtins.mjs"),
    handwrittenUnbundled: join(dir, "handwritten-unbundled.mjs"),
    interpreted: join(dir, "interpreted.mjs"),
  };
  await Promise.all([
    bundle(join(BENCH, "handwritten", "server.ts"), files.handwritten),
    bundle(join(BENCH, "handwritten", "server.ts"), files.handwrittenLazyBuiltins, {}, [builtinsThroughProcess]),
    // No shim swap here: unbundled, the SDK loads as installed, its default Ajv included.
    esbuild.build({
      ...COMMON,
      minify: false,
      entryPoints: [join(BENCH, "handwritten", "server.ts")],
      outfile: files.handwrittenUnbundled,
      absWorkingDir: REPO,
      packages: "external",
    }),
    // Some of the compiler's dependencies are CommonJS and require Node built-ins, which an ES module bundle
    // can only do through a real `require`.
    bundle(join(BENCH, "interpreted", "server.ts"), files.interpreted, {
      banner: {
        js: 'import { createRequire as __benchCreateRequire } from "node:module"; const require = __benchCreateRequire(import.meta.url);',
      },
    }),
  ]);
  return files;
}

/** Bytes of a bundle by what they come from: the SDK, zod, each other package, the runtime by area, the tools. */
export type Composition = ReadonlyMap<string, number>;

/**
 * What a bundle is made of, from esbuild's metafile (bytes each input contributes to the minified output).
 * `entry` is a generated package's `src/main.ts` (its own runtime shim) or a baseline's source.
 */
export async function composition(entry: string, shimPath: string = SDK_SHIMS): Promise<Composition> {
  const result = await esbuild.build({
    ...COMMON,
    entryPoints: [entry],
    write: false,
    outfile: "composition.mjs",
    metafile: true,
    absWorkingDir: REPO,
    nodePaths: [join(REPO, "node_modules")],
    plugins: [{ name: "bench-sdk-shims", setup: (b) => b.onResolve({ filter: SHIM }, () => ({ path: shimPath })) }],
  });
  const parts = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const part = partOf(input);
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
  }
  return parts;
}

const RUNTIME_AREAS: readonly [RegExp, string][] = [
  [/\/sdk-shims\.ts$/, "the SDK shim (keeps the SDK's Ajv out)"],
  [/\/runtime\/select\//, "runtime: select interpreter"],
  [/\/runtime\/net\//, "runtime: network policy, transport, pool, proxy"],
  [/\/runtime\/(entry\/(node-main|stdio-guard|compile-cache)|serve\/log)\.ts$/, "runtime: command line, stdio, logs"],
  [
    /\/runtime\/(serve\/(node-http|http-handler|auth|client-address|rate-limit|body-budget)|net\/loopback|call\/accept)\.ts$/,
    "runtime: HTTP serving and auth",
  ],
  [/\/runtime\/secrets\//, "runtime: secrets and redaction"],
  [/\/runtime\//, "runtime: calls (runner, render, output, plan)"],
  [/\/src\/(main|worker)\.ts$/, "the entry module"],
  [/\/(tools|validators)\/|\/src\/server\.ts$/, "the tool (plan, listing, validators)"],
  [/scripts\/bench\/handwritten\//, "the hand-written server and tool"],
];

function partOf(input: string): string {
  // A package name never starts with "."; the benchmark's own packages live under node_modules/.cache.
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//.exec(input)?.[1];
  if (pkg !== undefined)
    return pkg.startsWith("@modelcontextprotocol/") ? "MCP SDK (@modelcontextprotocol/server and core)" : pkg;
  return RUNTIME_AREAS.find(([pattern]) => pattern.test(input))?.[1] ?? "other";
}
