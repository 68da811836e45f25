/**
 * What is bundled once per kervanc version instead of once per spec: the record `prebuild.ts` writes and
 * `prebuilt.ts` reads.
 *
 * Every generated server carries the same runtime, SDK, zod and network libraries; only its tools differ. So the
 * fixed part of each bundle (one per runtime target, targets.ts) is bundled when kervanc is packed, and a build
 * writes a package's `server.mjs` and `worker.mjs` by putting the spec's own code after it (compose.ts): no
 * bundler runs when a user builds, and kervanc's installed tree has no install scripts and no native binaries.
 */
import type { TargetName } from "../targets.ts";

/** Bumped when the record's shape changes, so a cached record of another shape is rebuilt, never misread. */
export const PREBUILT_FORMAT = 2;

/** The name the fixed part of a bundle binds its exports to (`var __kervanc_runtime = (() => {...})();`). */
export const RUNTIME_GLOBAL = "__kervanc_runtime";

/** One library file that put code into a prebuilt part, by npm package and path inside that package. */
export interface LibraryFile {
  readonly package: string;
  readonly path: string;
}

/** A library package some prebuilt part contains code from, described once for the SBOM and the notices. */
export interface LibraryPackage {
  readonly version: string;
  /** The package.json `license` field, normalized (sbom.ts), or null. */
  readonly license: string | null;
  /** SHA-256 of each of its files that put code into any prebuilt part. */
  readonly fileHashes: Readonly<Record<string, string>>;
  /** License and notice files the package ships, LF line endings. */
  readonly licenseFiles: readonly { readonly name: string; readonly text: string }[];
}

/** The fixed part of one target's bundle. */
export interface PrebuiltChunk {
  /** Minified; binds `RUNTIME_GLOBAL` and imports nothing (a Node built-in is taken where it is used). */
  readonly code: string;
  /** The license comments esbuild collected from the bundled files, for the end of the bundle; "" for none. */
  readonly legalComments: string;
  /** The names the chunk exports on `RUNTIME_GLOBAL`. */
  readonly exports: readonly string[];
  readonly libraries: readonly LibraryFile[];
  /** The runtime files that put code into the chunk, relative to the runtime's `src/`. */
  readonly runtime: readonly string[];
}

/** `src/validators/ajv-runtime.js` for one set of helpers, readable. */
export interface PrebuiltAjvRuntime {
  /** The ES module, readable, as `src/validators/ajv-runtime.js` holds it (after the generated-file header). */
  readonly code: string;
  /** The same helpers minified, binding `__kervanc_ajv`, for the bundles. */
  readonly iife: string;
  readonly libraries: readonly LibraryFile[];
}

/**
 * The script of every view page (kervanc extension views, emit/view/): the renderer with the ext-apps App client,
 * minified, ASCII, and free of text that would end its `<script>` element.
 */
export interface PrebuiltViewRenderer {
  readonly code: string;
  /** SHA-256 of `code`, base64: the page's Content-Security-Policy allows this one script. */
  readonly sha256: string;
  readonly libraries: readonly LibraryFile[];
}

/** The kervanc runtime's own package (copied into every package's `src/runtime/`). */
export interface RuntimePackage {
  readonly name: string;
  readonly version: string;
  readonly license: string | null;
  readonly licenseFiles: readonly { readonly name: string; readonly text: string }[];
}

export interface Prebuilt {
  readonly format: number;
  /** The content identity of the kervanc that wrote it (versions.ts): a cached record of another one is stale. */
  readonly content: string;
  readonly chunks: Readonly<Record<TargetName, PrebuiltChunk>>;
  /** By helper set key (`ajvHelpersKey`): every combination of the four helpers but the empty one. */
  readonly ajvRuntimes: Readonly<Record<string, PrebuiltAjvRuntime>>;
  /** The view renderer (kervanc extension views); its libraries are in `packages` too. */
  readonly viewRenderer: PrebuiltViewRenderer;
  readonly packages: Readonly<Record<string, LibraryPackage>>;
  readonly runtimePackage: RuntimePackage;
}

/** The Ajv helpers for a helper set key; every non-empty set is in the record, so a miss is kervanc's bug. */
export function ajvRuntimeOf(prebuilt: Prebuilt, key: string): PrebuiltAjvRuntime {
  const record = prebuilt.ajvRuntimes[key];
  if (record === undefined) throw new Error(`kervanc's prebuilt record has no Ajv helpers for "${key}".`);
  return record;
}
