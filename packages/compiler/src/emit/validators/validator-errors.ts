/**
 * Shorter error reporting in Ajv's standalone validators.
 *
 * With `allErrors`, Ajv writes every failed check as the same seven lines:
 *
 *     const err3 = {instancePath:instancePath+"/id",schemaPath:"#/properties/id/type",keyword:"type",
 *                   params:{type: "integer"},message:"must be integer"};
 *     if(vErrors === null){ vErrors = [err3]; } else { vErrors.push(err3); }
 *     errors++;
 *
 * and this is most of a validator's bytes. The server reads only `instancePath` and `message` of each error
 * (runtime/src/call/validation.ts), so each such block becomes one call of a helper the package's `ajv-runtime.js`
 * exports, with the same two values in the same order:
 *
 *     vErrors = __kervanc_ajv.addError(vErrors, instancePath + "/id", "must be integer");
 *     errors++;
 *
 * The rewrite is deliberately narrow. A block is rewritten only when it is exactly what Ajv's `addError`
 * (ajv/dist/compile/errors.js) writes: a line `const errN = {` opening an object literal whose properties are
 * `instancePath` and `message` plus only `schemaPath`, `keyword`, `params` and `propertyName` with values that
 * have no effects (literals, names, member accesses; no calls, no assignments), followed by the exact push and
 * count lines. Anything else (a block that does not match, an object with `schema`/`data` from Ajv's verbose mode)
 * is left as Ajv wrote it and counted, so an Ajv upgrade that changes its output makes validators bigger, never
 * wrong. A module whose code reads error objects back (`vErrors[i]`, `errN.` as Ajv's custom keywords do) is
 * left whole.
 *
 * The scanner reads only the object literal, character by character, aware of string literals (with escapes),
 * regular expression literals (Ajv writes `key0.replace(/~/g, "~0")` into instance paths) and nested brackets;
 * Ajv's output has one statement per line (`code.lines`) and JSON-escaped strings, so a line that starts with
 * `const errN = {` is always a statement.
 */

import { objectLiteral, withoutLiterals } from "./ajv-code.ts";

export const ADD_ERROR = "addError";

export interface ErrorRewrite {
  readonly code: string;
  /** Error blocks replaced by one helper call. */
  readonly rewritten: number;
  /** Error blocks left as Ajv wrote them (did not match exactly). */
  readonly kept: number;
}

const CANDIDATE = /^const (err\d+) = \{/gm;
/** Code that reads an error object back after it was reported: Ajv's `extendErrors` for custom keywords. */
const READS_ERRORS = /\bvErrors\[|\berr\d+\./;
const DROPPABLE = new Set(["schemaPath", "keyword", "params", "propertyName"]);

/** Rewrites Ajv's error blocks in `code` to calls of `${namespace}.addError`. */
export function shareErrorBlocks(code: string, namespace: string): ErrorRewrite {
  const candidates = [...code.matchAll(CANDIDATE)];
  if (candidates.length === 0) return { code, rewritten: 0, kept: 0 };
  const bare = withoutLiterals(code);
  if (bare === null || READS_ERRORS.test(bare)) return { code, rewritten: 0, kept: candidates.length };
  let out = "";
  let from = 0;
  let rewritten = 0;
  for (const match of candidates) {
    const start = match.index;
    const name = match[1]!;
    const block = errorBlock(code, start + match[0].length - 1, name);
    if (block === null) continue;
    out += code.slice(from, start);
    out += `vErrors = ${namespace}.${ADD_ERROR}(vErrors, ${block.instancePath}, ${block.message});\nerrors++;`;
    from = block.end;
    rewritten++;
  }
  out += code.slice(from);
  return { code: out, rewritten, kept: candidates.length - rewritten };
}

interface ErrorBlock {
  readonly instancePath: string;
  readonly message: string;
  /** Index just after the block's `errors++;`. */
  readonly end: number;
}

/** The error block whose object literal opens at `open` (the `{`), or null unless it is exactly Ajv's shape. */
function errorBlock(code: string, open: number, name: string): ErrorBlock | null {
  const object = objectLiteral(code, open);
  if (object === null) return null;
  const tail = `;\nif(vErrors === null){\nvErrors = [${name}];\n}\nelse {\nvErrors.push(${name});\n}\nerrors++;`;
  if (!code.startsWith(tail, object.end)) return null;
  let instancePath: string | undefined;
  let message: string | undefined;
  const seen = new Set<string>();
  for (const { key, value } of object.properties) {
    if (seen.has(key)) return null;
    seen.add(key);
    if (key === "instancePath") instancePath = value ?? "instancePath";
    else if (key === "message") message = value ?? undefined;
    else if (!DROPPABLE.has(key) || value === null || !withoutEffects(value)) return null;
  }
  if (instancePath === undefined || message === undefined || !instancePath.trim() || !message.trim()) return null;
  return { instancePath: instancePath.trim(), message: message.trim(), end: object.end + tail.length };
}

/**
 * Whether dropping the value cannot change what the validator does: only literals, names, member accesses and
 * object or array literals of those (Ajv's params such as `{allowedValues: schema0.properties.lang.enum}`).
 */
function withoutEffects(value: string): boolean {
  const rest = withoutLiterals(value);
  return rest !== null && /^[\w$.\s,:{}[\]+\-"']*$/.test(rest);
}
