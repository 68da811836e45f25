/**
 * Spec text in generated Markdown (package READMEs, review comments): never markup, never raw HTML, one line.
 * Prose is escaped character by character; code spans are fenced instead, since a backslash inside a code span
 * is shown as it is (`search\_books` would render with the backslash). Characters a reader cannot see
 * (bidirectional controls, zero-width and other format characters, controls, separators) are shown as
 * `\uXXXX` text, so what the page shows is what the spec holds.
 */
import { longestRun } from "./hash.ts";
import { HIDDEN_CHARACTERS } from "../../analyze/visible-text.ts";
import { unitEscapes } from "./code.ts";

/** As the visible-text rule counts them (visible-text.ts), ZWNJ and ZWJ aside: scripts and emoji need them. */
const INVISIBLE = new RegExp(`(?![\\u200c\\u200d])[${HIDDEN_CHARACTERS}]`, "gu");

/** Invisible characters as `\uXXXX` text (one per UTF-16 unit), once `lineBreaks` are spaces. */
function visible(text: string, lineBreaks: RegExp): string {
  return text.replace(lineBreaks, " ").replace(INVISIBLE, (c) => unitEscapes(c, true));
}

/** Escapes text for a Markdown paragraph or table cell: no markup, no raw HTML, one line. */
export function md(text: string): string {
  return visible(text, /\r?\n/g)
    .replace(/[\\`*_{}[\]()#+!|<>~&]/g, (c) => `\\${c}`)
    .trim();
}

/**
 * Text as an inline code span that nothing inside can close: fenced with one more backtick than the longest run
 * of backticks in it, padded with a space where it starts or ends with one.
 *
 * In a GFM table a `|` ends the cell even inside a code span, before the span is read, and a backslash that
 * escapes it is itself escaped by a backslash before it: `q\|` written as `q\\|` ends the cell after `q\`, and
 * the rest of the text renders as Markdown (a link, raw HTML). So in a table (`inTable`), text with a `|` is
 * written as `<code>` holding every ASCII punctuation character as a numeric character reference: a reference
 * is never markup, a cell delimiter, an autolink or HTML, and renders as the character (checked with micromark
 * and its GFM extension). Text without a `|` keeps the plain code span, which a table does not split.
 */
export function codeSpan(text: string, inTable = false): string {
  const flat = visible(text, /[\r\n]+/g);
  if (inTable && flat.includes("|"))
    return `<code>${flat.replace(/[!-/:-@[-`{-~]/g, (c) => `&#${c.charCodeAt(0)};`)}</code>`;
  const fence = "`".repeat(longestRun(flat, "`") + 1);
  const pad = flat === "" || flat.startsWith("`") || flat.endsWith("`") ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}
