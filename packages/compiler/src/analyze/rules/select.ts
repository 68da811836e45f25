/**
 * `output.select` at build time: parse with @jmespath-community/jmespath, point syntax errors at the character,
 * and refuse at build time what would only fail (or misbehave) at run time.
 */
import { compile, tokenize } from "@jmespath-community/jmespath";
import type { SelectNode } from "@kervanc/runtime";
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { checkSelectAst } from "./select-static.ts";

export type SelectCheck = { readonly ok: true; readonly ast: SelectNode } | { readonly ok: false };

export function checkSelect(expression: string, at: SpecPath, out: Finding[]): SelectCheck {
  let ast: SelectNode;
  try {
    // The library's node types and ours describe the same plain JSON; the compliance suite checks they agree.
    ast = compile(expression) as unknown as SelectNode;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = errorOffset(expression, message);
    out.push(report("KV6001", at, (m) => m.invalid({ reason: message, character: offset + 1 }), { offset, length: 1 }));
    return { ok: false };
  }
  const before = out.length;
  checkSelectAst(ast, at, out, expression);
  return out.length === before ? { ok: true, ast } : { ok: false };
}

function messageOf(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The library's errors carry no position. The culprit is the first place where a prefix of the expression
 * fails with the same message: for lexer errors, the shortest failing prefix; for parser errors, the first
 * token whose prefix reproduces the message. Messages about the end of input point just past the end.
 */
export function errorOffset(expression: string, message: string): number {
  if (/\bEOF\b|end of JSON input/i.test(message) && messageOf(() => tokenize(expression)) === null)
    return expression.length;
  if (messageOf(() => tokenize(expression)) !== null) {
    for (let end = 1; end <= expression.length; end++) {
      if (messageOf(() => tokenize(expression.slice(0, end))) === message) return end - 1;
    }
    return 0;
  }
  const tokens = tokenize(expression);
  for (let i = 0; i < tokens.length; i++) {
    const end = i + 1 < tokens.length ? tokens[i + 1]!.start : expression.length;
    if (messageOf(() => compile(expression.slice(0, end))) === message) return tokens[i]!.start;
  }
  return 0;
}
