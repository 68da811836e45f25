/**
 * A `pattern` (and a `format`) runs only on strings within the `maxLength` of the same schema.
 *
 * Ajv's validators report all errors, so for a string over `maxLength` they still run the pattern, in V8's
 * backtracking engine, on the thread that serves every call: a pattern whose time grows with the square of the
 * string's length (KV5019) then takes minutes on a long argument, `maxLength: 254` or not; so does ajv-formats'
 * `url` check. A string over `maxLength` already fails that schema, so whether it also fails the pattern or the
 * format changes no result, only the list of errors (their lines are left out). This pass makes those checks
 * skip such strings:
 *
 *     if (func1(data0) > 254) { ...error... }          // maxLength, as Ajv wrote it
 *     if (func1(data0) < 3) { ...error... }            // minLength, when there is one
 *     if (!pattern0.test(data0)) {                     // becomes
 *     if (func1(data0) <= 254 && !pattern0.test(data0)) {
 *     if (!(formats0.test(data0))) {                   // and, when there is a format, this
 *     if (func1(data0) <= 254 && !(formats0.test(data0))) {
 *
 * Narrow on purpose, as validator-errors.ts is: only where the checks follow the maxLength check of the same
 * variable with nothing between them but the checks' own error blocks (one `addError` call and `errors++`, the
 * form validator-errors.ts writes). Ajv writes a schema's `maxLength`, `minLength`, `pattern` and `format` one
 * after the other in that order (its limitLength, pattern and format keywords), so that adjacency means the same
 * schema object; the same keywords in two subschemas (`allOf: [{maxLength}, {pattern}]`) are in separate blocks
 * and are left alone. It runs on Ajv's output before formatting, one statement per line.
 */

const MAX_LENGTH = /^if\((func\d+)\(([\w$]+)\) > (\d+)\)\{$/;

/** `code` with its pattern and format checks guarded where they follow their schema's maxLength check. */
export function guardPatterns(code: string, namespace: string): string {
  // The length Ajv compares for maxLength in Unicode mode: code points, by its ucs2length helper.
  const ucs2length = new RegExp(`^const (func\\d+) = ${namespace}\\.ucs2length;$`, "m").exec(code)?.[1];
  if (ucs2length === undefined) return code;
  const lines = code.split("\n");
  const isError = new RegExp(`^vErrors = ${namespace}\\.addError\\(.*\\);$`);
  /** The line after an error block (`if ...{`, the addError call, `errors++;`, `}`) opened at `at`, or -1. */
  const afterBlock = (at: number): number =>
    isError.test(lines[at + 1] ?? "") && lines[at + 2] === "errors++;" && lines[at + 3] === "}" ? at + 4 : -1;
  for (let i = 0; i < lines.length; i++) {
    const max = MAX_LENGTH.exec(lines[i]!);
    if (max === null || max[1] !== ucs2length) continue;
    const [, length, data, limit] = max as unknown as [string, string, string, string];
    const x = escape(data);
    let next = afterBlock(i);
    if (next !== -1 && new RegExp(`^if\\(${length}\\(${x}\\) < \\d+\\)\\{$`).test(lines[next] ?? ""))
      next = afterBlock(next);
    // The pattern, then the format (ajv-formats' regular expressions, or its functions), as Ajv orders them.
    for (const check of [
      new RegExp(`^if\\(!(pattern\\d+\\.test\\(${x}\\))\\)\\{$`),
      new RegExp(`^if\\(!(\\(formats\\d+(?:\\.test|\\.validate)?\\(${x}\\)\\))\\)\\{$`),
    ]) {
      if (next === -1) break;
      const found = check.exec(lines[next] ?? "");
      if (found === null) continue;
      lines[next] = `if(${length}(${data}) <= ${limit} && !${found[1]}){`;
      next = afterBlock(next);
    }
  }
  return lines.join("\n");
}

function escape(name: string): string {
  return name.replace(/\$/g, "\\$");
}
