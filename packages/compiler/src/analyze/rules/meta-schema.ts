/**
 * The check of a schema against the JSON Schema 2020-12 meta-schema (KV5014).
 *
 * Ajv compiles the meta-schema the first time a schema is checked: about 60 ms, paid by every build, `check`,
 * `call` and `test`. Installed kervanc does not pay it: `scripts/pack/prepack.ts` writes the compiled validator
 * as standalone code (`metaSchemaValidatorCode`) to `dist/meta-schema-validator.cjs`, and it is loaded from
 * there. In the repository it is compiled on first use, as before. Both are the same function of the same Ajv
 * (pinned) with the same options, so they report the same errors (test/analyze/meta-schema.test.ts).
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { COMPILER_ROOT, PACKED } from "../../kervanc-package.ts";
import { DIALECT_2020_12 } from "./schema-limits.ts";

export interface MetaSchemaValidator {
  (schema: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Where the packed layout keeps the compiled validator. */
export const PACKED_META_VALIDATOR = join(COMPILER_ROOT, "dist", "meta-schema-validator.cjs");

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
  validator ??= PACKED
    ? (createRequire(import.meta.url)(PACKED_META_VALIDATOR) as MetaSchemaValidator)
    : compiled(metaAjv());
  return validator;
}
