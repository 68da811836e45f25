/**
 * The check of a schema against the JSON Schema 2020-12 meta-schema (KV5014).
 *
 * Ajv compiles the meta-schema the first time a schema is checked: about 60 ms, paid by every build, `check`,
 * `call` and `test`. Installed kervanc does not pay it: `scripts/pack/prepack.ts` writes the compiled validator
 * as standalone code (`metaSchemaValidatorCode`) to `dist/meta-schema-validator.cjs`, and it is loaded from
 * there. In the repository it is compiled on first use, as before. Both are the same function of the same Ajv
 * (pinned) with the same options, so they report the same errors (test/analyze/meta-schema.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { DIALECT_2020_12 } from "./schema-limits.ts";

export interface MetaSchemaValidator {
  (schema: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** The file name of the compiled validator in the packed layout's `dist/`. */
export const META_VALIDATOR_FILE = "meta-schema-validator.cjs";

/**
 * The compiled validator of the installed kervanc this code is part of, or null: in the repository (TypeScript
 * sources), or when the compiler's sources are bundled elsewhere (the benchmark's interpreting server, which
 * compiles the meta-schema at start-up as Kervan does). The packed layout has this code in `dist/` or
 * `dist/chunks/`, and `dist/` next to kervanc's package.json; nothing above that is looked at.
 * (kervanc-package.ts knows the package root too, but finds it when loaded, and throws where there is none.)
 */
function packedValidatorFile(): string | null {
  if (import.meta.url.endsWith(".ts")) return null;
  const here = dirname(fileURLToPath(import.meta.url));
  const dist = basename(here) === "chunks" ? dirname(here) : here;
  const manifest = join(dirname(dist), "package.json");
  if (basename(dist) !== "dist" || !existsSync(manifest)) return null;
  try {
    if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name !== "kervanc") return null;
  } catch {
    return null;
  }
  // Packed: the file is part of the tarball, so a missing one is an error, not a reason to compile.
  return join(dist, META_VALIDATOR_FILE);
}

/** The Ajv that compiles the meta-schema: every error, no strict mode (the meta-schemas use `$dynamicRef`). */
function metaAjv(): Ajv2020 {
  return new Ajv2020({ allErrors: true, strict: false, logger: false, code: { source: true } });
}

function compiled(ajv: Ajv2020): MetaSchemaValidator {
  const validate = ajv.getSchema(DIALECT_2020_12);
  if (validate === undefined) throw new Error(`Ajv has no meta-schema ${DIALECT_2020_12}.`);
  return validate as MetaSchemaValidator;
}

/** The validator's standalone CommonJS code (it requires Ajv's runtime helpers), for prepack. */
export async function metaSchemaValidatorCode(): Promise<string> {
  const { default: standalone } = await import("ajv/dist/standalone/index.js");
  const standaloneCode = standalone as unknown as (ajv: Ajv2020, validate: unknown) => string;
  const ajv = metaAjv();
  return standaloneCode(ajv, compiled(ajv));
}

let validator: MetaSchemaValidator | undefined;

/** The 2020-12 meta-schema's validator: loaded from dist when installed, else compiled once per process. */
export function metaSchemaValidator(): MetaSchemaValidator {
  if (validator === undefined) {
    const packed = packedValidatorFile();
    validator = packed !== null ? (createRequire(import.meta.url)(packed) as MetaSchemaValidator) : compiled(metaAjv());
  }
  return validator;
}
