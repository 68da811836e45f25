/**
 * Leaving out the parts of Ajv's per-function bookkeeping that nothing in a validator module uses.
 *
 * Every function of an Ajv standalone module starts with the same parameter list and, with the 2020-12
 * vocabulary, the same reset of its "evaluated" record, and ends by assigning that record:
 *
 *     function validate0(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){
 *     ...
 *     const evaluated0 = validate0.evaluated;
 *     if(evaluated0.dynamicProps){ evaluated0.props = undefined; }
 *     if(evaluated0.dynamicItems){ evaluated0.items = undefined; }
 *     ...
 *     validate0.evaluated = {"props":true,"dynamicProps":false,"dynamicItems":false};
 *
 * The record is read only by callers inside the same module (a `$ref` under `unevaluatedProperties` reads
 * `validate1.evaluated.props`); the server calls a validator with the data alone and never reads it. So:
 * - a parameter whose name occurs nowhere else in the module (outside literals) is left out of every function's
 *   list (its default, `data` or `{}`, has no effect);
 * - when the module reads `.evaluated` nowhere but in these resets and assignments, a function whose record
 *   variable is used only by its reset loses the reset and the assignment.
 * Names are counted on the code with string and regular expression literals blanked, and anything not in
 * exactly Ajv's form is left as it is.
 */
import { withoutLiterals } from "./ajv-code.ts";

/** Parameters a function may do without; `instancePath` is used by every error it reports. */
const OPTIONAL_PARAMETERS = ["parentData", "parentDataProperty", "rootData", "dynamicAnchors"];
const HEADER = /^function (validate\w*)\(data, \{([^\n]*)\}=\{\}\)\{$/gm;
const RESET =
  /^const (evaluated\d+) = (validate\w*)\.evaluated;\nif\(\1\.dynamicProps\)\{\n\1\.props = undefined;\n\}\nif\(\1\.dynamicItems\)\{\n\1\.items = undefined;\n\}\n/gm;
const RECORD = /^(validate\w*)\.evaluated = [^\n]*;\n/gm;

export function dropUnusedBookkeeping(code: string): string {
  const bare = withoutLiterals(code);
  if (bare === null) return code;
  return dropUnusedEvaluated(dropUnusedParameters(code, bare), bare);
}

function count(text: string, pattern: RegExp): number {
  return [...text.matchAll(pattern)].length;
}

function dropUnusedParameters(code: string, bare: string): string {
  const headers = [...bare.matchAll(HEADER)];
  const unused = OPTIONAL_PARAMETERS.filter((name) => {
    const inHeaders = headers.filter((h) => parameterNames(h[2]!).includes(name)).length;
    return inHeaders > 0 && count(bare, new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, "g")) === inHeaders;
  });
  if (unused.length === 0) return code;
  return code.replace(HEADER, (header: string, name: string, list: string) => {
    const kept = list.split(/, ?/).filter((p) => !unused.includes(parameterName(p)));
    if (kept.length === list.split(/, ?/).length) return header;
    return `function ${name}(data, {${kept.join(", ")}}={}){`;
  });
}

/** `rootData=data` -> `rootData`. */
function parameterName(parameter: string): string {
  return parameter.split("=")[0]!.trim();
}

function parameterNames(list: string): string[] {
  return list.split(/, ?/).map(parameterName);
}

function dropUnusedEvaluated(code: string, bare: string): string {
  const resets = [...code.matchAll(RESET)];
  const records = [...code.matchAll(RECORD)];
  // Every `.evaluated` must be a reset or a record: any other read means a caller relies on the records.
  if (resets.length === 0 || count(bare, /\.evaluated(?![\w$])/g) !== resets.length + records.length) return code;
  const functions = new Set<string>();
  for (const reset of resets) {
    const [, variable, fn] = reset;
    if (records.filter((r) => r[1] === fn).length !== 1) continue;
    if (resets.filter((r) => r[2] === fn).length !== 1) continue;
    // The reset names the variable five times; any other use in the function means the record is filled in.
    if (count(functionText(bare, fn!), new RegExp(`(?<![\\w$.])${variable}(?![\\w$])`, "g")) !== 5) continue;
    functions.add(fn!);
  }
  if (functions.size === 0) return code;
  return code
    .replace(RESET, (reset: string, _variable: string, fn: string) => (functions.has(fn) ? "" : reset))
    .replace(RECORD, (record: string, fn: string) => (functions.has(fn) ? "" : record));
}

/** From `function <name>(` to the next top-level function (Ajv does not nest them), in the blanked code. */
function functionText(bare: string, name: string): string {
  const start = bare.indexOf(`\nfunction ${name}(`);
  if (start < 0) return bare;
  const next = bare.indexOf("\nfunction ", start + 1);
  return bare.slice(start, next < 0 ? undefined : next);
}
