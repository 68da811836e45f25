/**
 * Ajv standalone validators as self-contained ES modules.
 *
 * Ajv's standalone output still `require`s three helpers: `ajv/dist/runtime/ucs2length` (minLength and
 * maxLength count code points), `ajv/dist/runtime/equal` (enum, const and uniqueItems over objects) and
 * `ajv-formats/dist/formats` (format checks). These are rewritten to one import of `./ajv-runtime.js`, a small
 * module the build bundles from exactly those helpers, so a validator needs nothing at run time but that file.
 * A `require(` left in the output fails the build: it would mean an Ajv upgrade added a helper this does not
 * know, and the server would crash when it loads. (Ajv's standalone ES module output is documented to keep
 * these requires: ajv-validator/ajv#1976 and #2598.)
 *
 * Each reported error is then shortened to one call of the `addError` helper from the same file
 * (validator-errors.ts says why and when), which is what keeps a validator small, and bookkeeping nothing in the
 * module reads is left out (validator-bookkeeping.ts). A `pattern` or `format` does not run on a string already
 * over its schema's `maxLength` (validator-pattern-guard.ts).
 *
 * Ajv writes schema strings (property names, enum values, patterns) with JSON.stringify, which leaves bidirectional
 * controls and other invisible characters raw; they are written as `\uXXXX` (code.ts, `escapeInvisible`). Ajv's
 * output holds them only inside string literals (its one comment, for an `$id`, is removed here and `$id` is
 * refused), so the escape keeps every value. (esbuild's printer, which lays the module out, writes them raw
 * again, and format.ts escapes them once more.)
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import type { CompiledSchema } from "../../analyze/rules/schemas.ts";
import { escapeInvisible } from "../code/code.ts";
import { dropUnusedBookkeeping } from "./validator-bookkeeping.ts";
import { ADD_ERROR, shareErrorBlocks } from "./validator-errors.ts";
import { guardPatterns } from "./validator-pattern-guard.ts";

const standaloneCode =
  (standaloneModule as unknown as { default: typeof import("ajv/dist/standalone/index.js").default }).default ??
  standaloneModule;

export const AJV_RUNTIME_IMPORT = "__kervanc_ajv";

/** The helpers a set of validators needs, so the runtime module only bundles those. */
export interface AjvHelpers {
  readonly ucs2length: boolean;
  readonly equal: boolean;
  readonly formats: boolean;
  /** kervanc's own: records one error (validator-errors.ts). */
  readonly addError: boolean;
}

export const NO_HELPERS: AjvHelpers = { ucs2length: false, equal: false, formats: false, addError: false };

const HELPERS = Object.keys(NO_HELPERS) as (keyof AjvHelpers)[];

/** The helpers by name, in a fixed order. */
export const AJV_HELPER_NAMES: readonly (keyof AjvHelpers)[] = HELPERS;

/** The key of a helper set in the prebuilt record: the names it needs, comma-separated. */
export function ajvHelpersKey(helpers: AjvHelpers): string {
  return HELPERS.filter((name) => helpers[name]).join(",");
}

/** The helpers either set needs. */
export function mergeHelpers(a: AjvHelpers, b: AjvHelpers): AjvHelpers {
  return Object.fromEntries(HELPERS.map((name) => [name, a[name] || b[name]])) as unknown as AjvHelpers;
}

/** Whether a set of validators needs `./ajv-runtime.js` at all. */
export function needsAjvRuntime(helpers: AjvHelpers): boolean {
  return HELPERS.some((name) => helpers[name]);
}

export interface ValidatorModule {
  readonly code: string;
  /** The Ajv helpers this validator imports from `./ajv-runtime.js`. */
  readonly helpers: AjvHelpers;
  /** Error blocks shortened to one `addError` call, and blocks left as Ajv wrote them. */
  readonly errorBlocks: { readonly rewritten: number; readonly kept: number };
}

const REQUIRES: readonly [RegExp, keyof AjvHelpers][] = [
  [/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, "ucs2length"],
  [/require\("ajv\/dist\/runtime\/equal"\)\.default/g, "equal"],
];

export class ValidatorEmitError extends Error {}

/**
 * Ajv names a schema that has an `$id` in a `/*# sourceURL="<$id>" *\/` line at the top of its function, with the
 * `$id` as a JSON string: a `*\/` inside the `$id` would end the comment and turn the rest of it into code of
 * the server. The comment only matters for code compiled from a string at run time, so the line goes, matched
 * string-aware; a line left that starts the same way fails the build.
 */
const SOURCE_URL = /^\/\*# sourceURL="(?:[^"\\\n]|\\.)*" \*\/;?\n/gm;
const SOURCE_URL_LEFT = /^\/\*# sourceURL=/m;

export function validatorModule(compiled: CompiledSchema): ValidatorModule {
  let code = standaloneCode(compiled.ajv, compiled.validate);
  const used: { -readonly [K in keyof AjvHelpers]: boolean } = { ...NO_HELPERS };
  for (const [pattern, helper] of REQUIRES) {
    code = code.replace(pattern, () => {
      used[helper] = true;
      return `${AJV_RUNTIME_IMPORT}.${helper}`;
    });
  }
  if (code.includes(`${AJV_RUNTIME_IMPORT}.formats`)) used.formats = true;
  if (/\brequire\s*\(/.test(code)) {
    throw new ValidatorEmitError(
      `Ajv produced a validator that still requires a module: ${/require\s*\([^)]*\)/.exec(code)?.[0]}`,
    );
  }
  code = code.replace(/^"use strict";\n?/, "").replace(SOURCE_URL, "");
  if (SOURCE_URL_LEFT.test(code)) throw new ValidatorEmitError("Ajv wrote a source URL comment kervanc cannot read.");
  const shared = shareErrorBlocks(code, AJV_RUNTIME_IMPORT);
  code = dropUnusedBookkeeping(guardPatterns(shared.code, AJV_RUNTIME_IMPORT));
  if (shared.rewritten > 0) used.addError = true;
  code = escapeInvisible(code);
  const uses = code.includes(AJV_RUNTIME_IMPORT);
  return {
    code: `${uses ? `import * as ${AJV_RUNTIME_IMPORT} from "./ajv-runtime.js";\n` : ""}${code}`,
    helpers: used,
    errorBlocks: { rewritten: shared.rewritten, kept: shared.kept },
  };
}

/** The declaration file that types a validator module for TypeScript. */
export const VALIDATOR_DTS = `import type { CompiledValidator } from "../runtime/plan.ts";
declare const validate: CompiledValidator;
export default validate;
`;

/** The entry the bundler turns into `ajv-runtime.js`, exporting only the helpers used. */
export function ajvRuntimeEntry(helpers: AjvHelpers): string {
  const lines: string[] = [];
  if (helpers.ucs2length) lines.push('export { default as ucs2length } from "ajv/dist/runtime/ucs2length.js";');
  if (helpers.equal) lines.push('export { default as equal } from "ajv/dist/runtime/equal.js";');
  if (helpers.formats) lines.push('export { fullFormats as formats } from "ajv-formats/dist/formats.js";');
  if (helpers.addError) lines.push(ADD_ERROR_SOURCE);
  return lines.join("\n") + "\n";
}

/**
 * What Ajv's error blocks did inline, minus the fields the server never reads (`schemaPath`, `keyword`,
 * `params`): the errors so far, or null, with one more appended.
 */
const ADD_ERROR_SOURCE = `// kervanc: one error of a validator, with the two fields the server reads (see validator-errors.ts).
export function ${ADD_ERROR}(errors, instancePath, message) {
  const error = { instancePath, message };
  if (errors === null) return [error];
  errors.push(error);
  return errors;
}`;

export const AJV_RUNTIME_DTS = `export declare const ucs2length: (str: string) => number;
export declare const equal: (a: unknown, b: unknown) => boolean;
export declare const formats: Record<string, unknown>;
export declare function ${ADD_ERROR}(
  errors: { instancePath: string; message: string }[] | null,
  instancePath: string,
  message: string,
): { instancePath: string; message: string }[];
`;
