/**
 * Spec text in generated Markdown (package READMEs, review comments): never markup, never raw HTML, one line.
 * Prose is escaped character by character; code spans are fenced instead, since a backslash inside a code span
 * is shown as it is (`search\_books` would render with the backslash).
 */
import { longestRun } from "./hash.ts";

/** Escapes text for a Markdown paragraph or table cell: no markup, no raw HTML, one line. */
export function md(text: string): string {
  return text
    .replace(/\r?\n/g, " ")
    .replace(/[\\`*_{}[\]()#+!|<>~&]/g, (c) => `\\${c}`)
    .trim();
}

/**
 * Text as an inline code span that nothing inside can close: fenced with one more backtick than the longest run
 * of backticks in it, padded with a space where it starts or ends with one. In a GFM table a `|` still ends
 * the cell inside a code span, so `inTable` escapes it (GFM removes that backslash).
 */
export function codeSpan(text: string, inTable = false): string {
  let flat = text.replace(/[\r\n]+/g, " ");
  if (inTable) flat = flat.replace(/\|/g, "\\|");
  const fence = "`".repeat(longestRun(flat, "`") + 1);
  const pad = flat === "" || flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}
