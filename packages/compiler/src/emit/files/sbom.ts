/**
 * What ships in a bundle, and under which licenses: `sbom.cdx.json` (CycloneDX 1.6) and
 * `THIRD_PARTY_NOTICES.md`.
 *
 * Both are derived from esbuild's metafiles (recorded when the fixed part of the bundles was prebuilt:
 * bundle/prebuild.ts), not from package.json dependency lists: a component is listed exactly when at least one
 * of its files put code into a bundle (one per runtime target, targets.ts), directly or through the Ajv helpers
 * the validators use. Files esbuild parsed and then dropped entirely do not count. The bundles are file components of the
 * package (with their own hashes), and the dependency graph says which library went into which bundle. Each input file is attributed to the package folder under the last
 * `node_modules/` in its path; name, version and license come from that package's package.json, and the
 * license texts from its LICENSE/LICENCE/COPYING/NOTICE files.
 *
 * Component hashes: a component's SHA-256 is the hash of a `sha256sum`-style listing of the files of that
 * component that went into either bundle, one `<sha256 of the file>  <path>\n` line per file, sorted by path
 * (paths relative to the package folder; for the kervanc runtime, paths in the generated package). The files
 * are named in the component's `kervanc:bundled-file` properties, so anyone can recompute the hash from an
 * installed copy with `sha256sum`. Hashing only the bundled files (instead of the package.json or the whole
 * tarball) makes the hash describe what actually ships.
 *
 * Reproducibility: no timestamps; the serial number is a UUID derived from the SHA-256 of the rest of the
 * document; every list is sorted; paths are package-relative, never absolute.
 */
import { TARGETS } from "../targets.ts";
import { canonicalJson, compareStrings, longestRun, sha256, uuidFromSha256 } from "../code/hash.ts";
import type { FileTree } from "../file-tree.ts";
import { ajvRuntimeOf, type LibraryFile, type Prebuilt } from "../bundle/prebuilt-format.ts";
import { KERVANC_VERSION } from "../../kervanc-package.ts";

export interface BundledFile {
  readonly path: string;
  readonly sha256: string;
}

export interface ShippedComponent {
  /** The npm name, with its scope. */
  readonly name: string;
  readonly version: string;
  /** The package.json `license` field, or null when there is none. */
  readonly license: string | null;
  readonly files: readonly BundledFile[];
  /** License and notice files shipped with the package, LF line endings. */
  readonly licenseFiles: readonly { readonly name: string; readonly text: string }[];
  /** Third-party (from node_modules) or the kervanc runtime copied into the package. */
  readonly kind: "third-party" | "kervanc-runtime";
  /** The bundles (package file names) this component put code into, sorted. */
  readonly bundles: readonly string[];
}

const RUNTIME_PREFIX = "src/runtime/";

/**
 * Attributes every file that went into a bundle to a component, from what the prebuilt record says its parts were
 * made of: the fixed part of each bundle, and the Ajv helpers (`ajvHelpers`, "" for none) the spec's validators
 * added. The spec's own code belongs to the package. The runtime's files are hashed as the package holds them.
 */
export function shippedComponents(
  prebuilt: Prebuilt,
  ajvHelpers: string,
  files: FileTree,
  views = false,
): ShippedComponent[] {
  const thirdParty = new Map<string, { paths: Set<string>; bundles: Set<string> }>();
  const runtimeFiles = new Map<string, BundledFile>();
  const runtimeBundles = new Set<string>();
  const addLibraries = (libraries: readonly LibraryFile[], bundle: string): void => {
    for (const { package: name, path } of libraries) {
      const entry = thirdParty.get(name) ?? { paths: new Set<string>(), bundles: new Set<string>() };
      entry.paths.add(path);
      entry.bundles.add(bundle);
      thirdParty.set(name, entry);
    }
  };
  for (const target of TARGETS) {
    const chunk = prebuilt.chunks[target.name];
    addLibraries(chunk.libraries, target.file);
    if (ajvHelpers !== "") addLibraries(ajvRuntimeOf(prebuilt, ajvHelpers).libraries, target.file);
    // The kervanc views extension: the renderer script (with the ext-apps App client) is in each bundle's pages.
    if (views) addLibraries(prebuilt.viewRenderer.libraries, target.file);
    for (const rel of chunk.runtime) {
      const path = `${RUNTIME_PREFIX}${rel}`;
      const text = files.get(path);
      if (text === undefined) throw new Error(`The bundled runtime file ${path} is not in the package.`);
      runtimeFiles.set(path, { path, sha256: runtimeHash(text) });
      runtimeBundles.add(target.file);
    }
  }

  const components: ShippedComponent[] = [];
  for (const [name, { paths, bundles }] of thirdParty) {
    const pkg = prebuilt.packages[name];
    if (pkg === undefined) throw new Error(`kervanc's prebuilt record does not describe ${name}.`);
    const bundled: BundledFile[] = [];
    for (const path of [...paths].sort(compareStrings)) {
      const hash = pkg.fileHashes[path];
      if (hash === undefined) throw new Error(`kervanc's prebuilt record has no hash for ${name}/${path}.`);
      bundled.push({ path, sha256: hash });
    }
    components.push({
      name,
      version: pkg.version,
      license: pkg.license,
      files: bundled,
      licenseFiles: pkg.licenseFiles,
      kind: "third-party",
      bundles: [...bundles].sort(compareStrings),
    });
  }
  if (runtimeFiles.size > 0) {
    const runtime = prebuilt.runtimePackage;
    components.push({
      name: runtime.name,
      version: runtime.version,
      license: runtime.license,
      files: [...runtimeFiles.values()].sort((a, b) => compareStrings(a.path, b.path)),
      licenseFiles: runtime.licenseFiles,
      kind: "kervanc-runtime",
      bundles: [...runtimeBundles].sort(compareStrings),
    });
  }
  return components.sort((a, b) => compareStrings(a.name, b.name));
}

/**
 * The SHA-256 of a runtime source as a package holds it. Every package holds the same strings (emit.ts reads the
 * sources once per process), so a build of many specs hashes each once.
 */
const runtimeHashes = new Map<string, string>();

function runtimeHash(text: string): string {
  let hash = runtimeHashes.get(text);
  if (hash === undefined) runtimeHashes.set(text, (hash = sha256(text)));
  return hash;
}

/** The `sha256sum`-style listing hash of a component (see the module comment). */
export function componentHash(files: readonly BundledFile[]): string {
  return sha256(files.map((f) => `${f.sha256}  ${f.path}\n`).join(""));
}

/** SPDX identifiers written as `license.id`; anything else becomes an expression or a name, which CycloneDX allows. */
const SPDX_IDS = new Set([
  "0BSD",
  "Apache-2.0",
  "BlueOak-1.0.0",
  "BSD-2-Clause",
  "BSD-3-Clause",
  "CC0-1.0",
  "ISC",
  "MIT",
  "MPL-2.0",
  "Python-2.0",
  "Unlicense",
  "Zlib",
]);

function cdxLicenses(license: string | null): unknown[] | undefined {
  if (license === null) return undefined;
  if (SPDX_IDS.has(license)) return [{ license: { id: license } }];
  if (/\s(?:OR|AND|WITH)\s|[()]/.test(license)) return [{ expression: license }];
  return [{ license: { name: license } }];
}

function purl(name: string, version: string): string {
  const [scope, bare] = name.startsWith("@")
    ? [name.slice(0, name.indexOf("/")), name.slice(name.indexOf("/") + 1)]
    : [null, name];
  return `pkg:npm/${scope === null ? "" : `${encodeURIComponent(scope)}/`}${encodeURIComponent(bare)}@${encodeURIComponent(version)}`;
}

/** A bundle as it ships: its file name in the package, and its text. */
export interface BundleFile {
  readonly file: string;
  readonly code: string;
}

export interface SbomSubject {
  /** The generated package's npm name and version. */
  readonly name: string;
  readonly version: string;
  /**
   * The bundles, in the order they are described (each becomes a file component). Their hashes are in
   * manifest.json, not here: the SBOM describes what went into the bundles, which a spec change rarely changes.
   */
  readonly bundles: readonly BundleFile[];
}

const bundleRef = (file: string): string => `file:${file}`;

export function sbomJson(subject: SbomSubject, components: readonly ShippedComponent[]): string {
  const subjectRef = `${subject.name}@${subject.version}`;
  const cdxComponents = components.map((c) => {
    const scoped = c.name.startsWith("@");
    const group = scoped ? c.name.slice(0, c.name.indexOf("/")) : undefined;
    const bare = scoped ? c.name.slice(c.name.indexOf("/") + 1) : c.name;
    // The runtime is not published on a registry, so it gets no purl (which would point at nothing).
    const ref = c.kind === "third-party" ? purl(c.name, c.version) : `kervanc-runtime@${c.version}`;
    return {
      type: "library",
      "bom-ref": ref,
      ...(group !== undefined ? { group } : {}),
      name: bare,
      version: c.version,
      ...(c.kind === "kervanc-runtime"
        ? { description: "The kervanc runtime, copied into this package (src/runtime/) and bundled." }
        : {}),
      ...(cdxLicenses(c.license) !== undefined ? { licenses: cdxLicenses(c.license) } : {}),
      ...(c.kind === "third-party" ? { purl: ref } : {}),
      hashes: [{ alg: "SHA-256", content: componentHash(c.files) }],
      properties: c.files.map((f) => ({ name: "kervanc:bundled-file", value: f.path })),
    };
  });
  const refOf = new Map(components.map((c, i) => [c, cdxComponents[i]!["bom-ref"]]));
  const bundleComponents = subject.bundles.map((b) => {
    const description = TARGETS.find((t) => t.file === b.file)?.description;
    return {
      type: "file",
      "bom-ref": bundleRef(b.file),
      name: b.file,
      ...(description !== undefined ? { description } : {}),
    };
  });
  const bom = {
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    version: 1,
    metadata: {
      tools: { components: [{ type: "application", name: "kervanc", version: KERVANC_VERSION }] },
      component: {
        type: "application",
        "bom-ref": subjectRef,
        name: subject.name,
        version: subject.version,
        description: `An MCP server generated by kervanc; its bundles (${subject.bundles.map((b) => b.file).join(", ")}) are described by this document.`,
        properties: subject.bundles.map((b) => ({ name: "kervanc:bundle", value: b.file })),
        components: bundleComponents,
      },
    },
    components: cdxComponents,
    // The package is made of its bundles; each bundle depends on exactly the components that put code into it.
    dependencies: [
      { ref: subjectRef, dependsOn: bundleComponents.map((b) => b["bom-ref"]).sort(compareStrings) },
      ...subject.bundles.map((b) => ({
        ref: bundleRef(b.file),
        dependsOn: components
          .filter((c) => c.bundles.includes(b.file))
          .map((c) => refOf.get(c)!)
          .sort(compareStrings),
      })),
    ],
  };
  const serialNumber = `urn:uuid:${uuidFromSha256(sha256(canonicalJson(bom)))}`;
  const { bomFormat, specVersion, ...rest } = bom;
  return `${JSON.stringify({ bomFormat, specVersion, serialNumber, ...rest }, null, 2)}\n`;
}

/** A Markdown code fence longer than any run of backticks in the text, so the text cannot close it. */
function fence(text: string): string {
  const longest = longestRun(text, "`");
  return "`".repeat(Math.max(3, longest + 1));
}

function block(text: string): string[] {
  const f = fence(text);
  return [`${f}text`, text, f];
}

/** A bundle's file name and the license comments at its end (the prebuilt chunk's; "" for none). */
export interface BundleNotices {
  readonly file: string;
  readonly legalComments: string;
}

export function thirdPartyNotices(
  header: string,
  components: readonly ShippedComponent[],
  bundles: readonly BundleNotices[],
): string {
  const names = bundles.map((b) => `\`${b.file}\``);
  const lines: string[] = [header, "", "# Third-party notices", ""];
  lines.push(
    `${names.join(" and ")} contain code from the packages below: exactly the components of \`sbom.cdx.json\`, each`,
    "with the license its package.json declares and the license files it ships. Build-time tools (the YAML parser,",
    "the JSON Schema compiler, the JMESPath parser, esbuild, prettier) do not ship and are not listed.",
    "",
  );
  for (const c of components) {
    lines.push(`## ${c.name} ${c.version}`, "");
    lines.push(
      `License: ${c.license ?? "not declared in package.json"}. Files bundled: ${c.files.length}, into ${c.bundles.map((b) => `\`${b}\``).join(" and ")}.`,
      "",
    );
    if (c.kind === "kervanc-runtime")
      lines.push("The kervanc runtime, copied into `src/runtime/` of this package.", "");
    if (c.licenseFiles.length === 0) lines.push("The package ships no license file.", "");
    for (const file of c.licenseFiles) lines.push(`### ${file.name}`, "", ...block(file.text), "");
  }
  // Both bundles usually keep the same comments; each distinct text is shown once, naming the bundles it ends.
  const legal = new Map<string, string[]>();
  for (const b of bundles) {
    const text = b.legalComments;
    if (text !== "") legal.set(text, [...(legal.get(text) ?? []), `\`${b.file}\``]);
  }
  if (legal.size > 0) {
    lines.push("## Notices kept in bundled files", "");
    lines.push(
      "Some bundled files carry their own license comments (for code their authors bundled in turn); esbuild keeps them at the end of each bundle.",
      "",
    );
    for (const [text, files] of legal) lines.push(`At the end of ${files.join(" and ")}:`, "", ...block(text), "");
  }
  return `${lines.join("\n").replace(/\n+$/, "")}\n`;
}
