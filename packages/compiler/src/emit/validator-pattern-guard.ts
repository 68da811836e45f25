/**
 * A `pattern` runs only on strings within the `maxLength` of the same schema.
 *
 * Ajv's validators report all errors, so for a string over `maxLength` they still run the pattern, in V8's
 * backtracking engine, on the thread that serves every call: a pattern whose time grows with the square of the
 * string's length (KV5019) then takes minutes on a 4 MiB argument, `maxLength: 254` or not. A string over
 * `maxLength` already fails that schema, so whether it also fails the pattern changes no result, only the list of
 * errors (one line fewer: the pattern's). This pass makes the pattern's check skip such strings:
 *
 *     if (func1(data0) > 254) { ...error... }          // maxLength, as Ajv wrote it
 *     if (func1(data0) < 3) { ...error... }            // minLength, when there is one
 *     if (!pattern0.test(data0)) {                     // becomes
 *     if (func1(data0) <= 254 && !pattern0.test(data0)) {
 *
 * Narrow on purpose, as validator-errors.ts is: only where the pattern's line follows the maxLength check of the
 * same variable with nothing between them but the two length checks' own error blocks (one `addError` call and
 * `errors++`, the form validator-errors.ts writes). Ajv writes a schema's `maxLength`, `minLength` and `pattern`
 * one after the other in that order (its limitLength and pattern keywords), so that adjacency means the same
 * schema object; the same keywords in two subschemas (`allOf: [{maxLength}, {pattern}]`) are in separate blocks
 * and are left alone. It runs on Ajv's output before formatting, one statement per line.
 */

export interface PatternGuards {
  readonly code: string;
  /** Pattern checks that now skip strings over their schema's maxLength. */
  readonly guarded: number;
}

const MAX_LENGTH = /^if\((func\d+)\(([\w$]+)\) > (\d+)\)\{$/;
const ERROR_LINE = (namespace: string): RegExp => new RegExp(`^vErrors = ${namespace}\\.addError\\(.*\\);$`);

export function guardPatterns(code: string, namespace: string): PatternGuards {
  const lines = code.split("\n");
  const isError = ERROR_LINE(namespace);
  /** The line after an error block (`if ...{`, the addError call, `errors++;`, `}`) opened at `at`, or -1. */
  const afterBlock = (at: number): number =>
    isError.test(lines[at + 1] ?? "") && lines[at + 2] === "errors++;" && lines[at + 3] === "}" ? at + 4 : -1;
  let guarded = 0;
  for (let i = 0; i < lines.length; i++) {
    const max = MAX_LENGTH.exec(lines[i]!);
    if (max === null) continue;
    const [, length, data, limit] = max as unknown as [string, string, string, string];
    // The length Ajv compares for maxLength in Unicode mode: code points, by its ucs2length helper.
    if (!lines.includes(`const ${length} = ${namespace}.ucs2length;`)) continue;
    let next = afterBlock(i);
    if (next === -1) continue;
    if (
      lines[next] !== undefined &&
      new RegExp(`^if\\(${length}\\(${escape(data)}\\) < \\d+\\)\\{$`).test(lines[next]!)
    ) {
      next = afterBlock(next);
      if (next === -1) continue;
    }
    const pattern = new RegExp(`^if\\(!(pattern\\d+)\\.test\\(${escape(data)}\\)\\)\\{$`).exec(lines[next] ?? "");
    if (pattern === null) continue;
    lines[next] = `if(${length}(${data}) <= ${limit} && !${pattern[1]}.test(${data})){`;
    guarded++;
  }
  return { code: lines.join("\n"), guarded };
}

function escape(name: string): string {
  return name.replace(/\$/g, "\\$");
}
