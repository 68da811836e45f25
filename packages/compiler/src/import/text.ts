/**
 * Text from an OpenAPI document made fit for a spec's visible-text fields (docs/spec.md §3.1, Visible text).
 *
 * A spec refuses control, format and separator characters in names, titles and descriptions, because they can
 * hide text from a reviewer that the model still reads. An imported description is not reviewed character by
 * character, so the importer removes them (and reports it) rather than copying them into a spec that `build`
 * would refuse: what is left is exactly what a reviewer sees.
 */

import { cutIndex } from "@kervanc/runtime/cut";
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { HIDDEN_CHARACTERS } from "../analyze/visible-text.ts";

export interface CleanText {
  readonly text: string;
  /** How many invisible or control characters were removed (line breaks turned into spaces do not count). */
  readonly removed: number;
}

/**
 * `multiline` keeps tabs and line feeds (CR LF and lone CR become LF, U+2028/U+2029 become LF); `line` turns
 * every line break and tab into a space. Runs of blank lines and trailing spaces are tidied either way.
 */
export function cleanText(input: string, mode: "line" | "multiline"): CleanText {
  let removed = 0;
  // One replace over the text, not a loop per character: descriptions can run to megabytes.
  let out = input
    .replace(/\r\n?/g, "\n")
    .replace(/[\u2028\u2029]/g, "\n")
    .replace(SPECIAL, (ch) => {
      if (ch === "\n" || ch === "\t") return mode === "multiline" ? ch : " ";
      if (ch === "\u200c" || ch === "\u200d") return ch;
      removed++;
      return "";
    });
  // Trailing spaces and tabs are cut line by line: /[ \t]+\n/ backtracks over a run that ends in no line break,
  // quadratic in its length (a megabyte of spaces took hours).
  out =
    mode === "line"
      ? out.replace(/ {2,}/g, " ").trim()
      : out
          .split("\n")
          .map(trimSpacesAndTabsEnd)
          .join("\n")
          .replace(/\n{3,}/g, "\n\n")
          .trim();
  return { text: out, removed };
}

/** Line breaks and tabs (kept or made spaces), and the characters removed (ZWNJ and ZWJ are kept: emoji). */
const SPECIAL = new RegExp(`[${HIDDEN_CHARACTERS}]`, "gu");

function trimSpacesAndTabsEnd(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === " " || line[end - 1] === "\t")) end--;
  return end === line.length ? line : line.slice(0, end);
}

/**
 * Cuts a text to at most `max` characters at a paragraph, sentence or word boundary, marking the cut with an
 * ellipsis. Long API documentation would otherwise fill the model's context with every tool listing.
 */
export function shorten(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const room = text.slice(0, max - 1);
  const candidates = [room.lastIndexOf("\n\n"), room.lastIndexOf(". ") + 1, room.lastIndexOf(" ")];
  const at = candidates.find((i) => i >= max / 2) ?? room.length;
  return { text: `${room.slice(0, cutIndex(text, at)).trimEnd()}…`, cut: true };
}

/** The KV7014 warning for characters `cleanText` removed from the text at `path`. */
export function removedCharacters(path: SpecPath, what: string, count: number, first: number): Finding {
  const hex = first.toString(16).toUpperCase().padStart(4, "0");
  return report("KV7014", path, (m) =>
    count === 1 ? m.removedOne({ what, first: hex }) : m.removed({ what, count, first: hex }),
  );
}
