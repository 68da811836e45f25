/**
 * `$ref` resolution inside one OpenAPI document.
 *
 * Only local references (`#/...`) resolve: an import reads one file and never the network, so a reference to
 * another file or a URL is refused with its position. Problems are thrown as `ImportProblem`s; the caller
 * decides what they cost (usually the operation that needed the reference).
 */
import type { DiagnosticCode } from "../diagnostics/codes.ts";
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";

/** A problem with a place in the OpenAPI document. */
export class ImportProblem extends Error {
  readonly finding: Finding;

  constructor(finding: Finding) {
    super(finding.message);
    this.finding = finding;
  }

  get code(): DiagnosticCode {
    return this.finding.code;
  }

  get path(): SpecPath {
    return this.finding.path;
  }
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Reference chains longer than this (`$ref` to a `$ref` to ...) are a loop or an attack, not a document. */
const MAX_CHAIN = 32;

/** Sets an own data property, even for "__proto__": names from the document stay data and never set a prototype. */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The value of own property `key`, or undefined: document keys are data, never prototype members. */
export function own(value: unknown, key: string): unknown {
  return isPlainObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** `#/components/schemas/a~1b` → the document path `["components", "schemas", "a/b"]`. */
export function pointerPath(ref: string, at: SpecPath): SpecPath {
  if (ref === "#") return [];
  if (!ref.startsWith("#/"))
    throw new ImportProblem(report("KV7005", at, (m) => m.notPointer({ ref: JSON.stringify(ref) })));
  return ref
    .slice(2)
    .split("/")
    .map((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw new ImportProblem(report("KV7005", at, (m) => m.badEscape({ ref: JSON.stringify(ref) })));
      }
      return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

export function pointerOf(path: SpecPath): string {
  return "#" + path.map((p) => "/" + String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

export class Resolver {
  readonly root: unknown;

  constructor(root: unknown) {
    this.root = root;
  }

  /** The value at a document path, or undefined. Arrays are indexed by number segments or digit strings. */
  at(path: SpecPath): unknown {
    let value = this.root;
    for (const part of path) {
      if (Array.isArray(value)) {
        const index = typeof part === "number" ? part : /^(0|[1-9][0-9]*)$/.test(part) ? Number(part) : -1;
        if (index < 0 || index >= value.length) return undefined;
        value = value[index];
      } else {
        value = own(value, String(part));
        if (value === undefined) return undefined;
      }
    }
    return value;
  }

  /** Resolves one `$ref` value found at `at` (the path of the `$ref` key): the target and its path. */
  resolve(ref: unknown, at: SpecPath): { value: unknown; path: SpecPath } {
    if (typeof ref !== "string") throw new ImportProblem(report("KV7003", at, (m) => m.refNotString));
    if (!ref.startsWith("#")) {
      throw new ImportProblem(report("KV7004", at, (m) => m.external({ ref: JSON.stringify(ref) })));
    }
    const path = pointerPath(ref, at);
    const value = this.at(path);
    if (value === undefined)
      throw new ImportProblem(report("KV7005", at, (m) => m.dangling({ ref: JSON.stringify(ref) })));
    return { value, path };
  }

  /**
   * Follows `$ref`s until a value that is not a reference object (parameters, request bodies, responses and
   * security schemes may all be references). Returns the value and the path it was found at.
   */
  deref(value: unknown, path: SpecPath): { value: unknown; path: SpecPath } {
    let current = { value, path };
    const seen = new Set<string>();
    for (let i = 0; isPlainObject(current.value) && Object.hasOwn(current.value, "$ref"); i++) {
      const refPath = [...current.path, "$ref"];
      const key = pointerOf(current.path);
      if (seen.has(key) || i >= MAX_CHAIN) throw new ImportProblem(report("KV7005", refPath, (m) => m.endlessChain));
      seen.add(key);
      current = this.resolve(current.value["$ref"], refPath);
    }
    return current;
  }
}
