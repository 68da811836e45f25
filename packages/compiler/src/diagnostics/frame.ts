/**
 * The code frame under a diagnostic in text output: the source line, a caret range under the reported place,
 * and one line of context on each side (two in all), like tsc and rustc.
 *
 * Every printed source line goes through `oneLine`, so a control character in the spec prints as `\uXXXX` and
 * cannot drive the terminal; the carets are measured on the escaped text, in terminal cells: CJK and emoji take
 * two cells, combining marks and zero-width joiners none. Tabs print as one space so the carets stay aligned.
 */
import { type Diagnostic, oneLine } from "./diagnostic.ts";

export interface Style {
  readonly color: boolean;
}

const SGR = { red: "31", yellow: "33", blue: "34", dim: "2", bold: "1", cyan: "36" } as const;
export function paint(style: Style, sgr: keyof typeof SGR, text: string): string {
  return style.color ? `\u001b[${SGR[sgr]}m${text}\u001b[0m` : text;
}

/** Lines of context before and after the reported line. */
const CONTEXT = 1;
/** A line longer than this is cut around the reported place, so a minified spec does not flood the terminal. */
const MAX_LINE_CELLS = 160;

// Each character is tested on its own (^...$), so a combining mark in the class cannot combine with another.
// oxlint-disable-next-line no-misleading-character-class
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200d\u2060\ufe00-\ufe0f]$/u;
const WIDE =
  /^[\p{Extended_Pictographic}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]$/u;

/** How many terminal cells `text` takes. */
export function cellWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (ZERO_WIDTH.test(ch)) continue;
    // Text-style pictographs below U+2300 (©, ®, ‼) are one cell; the emoji block is two.
    width += WIDE.test(ch) && ch.codePointAt(0)! >= 0x2300 ? 2 : 1;
  }
  return width;
}

const show = (text: string): string => oneLine(text.replace(/\t/g, " "));

/** A range over more lines than this shows its first lines only, with carets to their ends. */
const MAX_RANGE_LINES = 5;

/** The frame's lines (without a trailing newline), or none when the position is not inside `source`. */
export function codeFrame(source: string, d: Diagnostic, style: Style): string[] {
  const lines = source.split(/\r?\n|\r/);
  const index = d.line - 1;
  if (index < 0 || index >= lines.length) return [];
  const endIndex =
    d.endLine !== undefined && d.endColumn !== undefined
      ? Math.min(d.endLine - 1, lines.length - 1, index + MAX_RANGE_LINES - 1)
      : index;
  const first = Math.max(0, index - CONTEXT);
  const last = Math.min(lines.length - 1, endIndex + CONTEXT);
  const gutter = String(last + 1).length;
  const number = (n: number | null): string => (n === null ? " ".repeat(gutter) : String(n).padStart(gutter));
  const out: string[] = [];
  const colour = d.severity === "error" ? "red" : "yellow";
  for (let i = first; i <= last; i++) {
    const text = lines[i]!;
    if (i < index || i > endIndex) {
      out.push(paint(style, "dim", `  ${number(i + 1)} | ${clip(show(text), 0).text}`));
      continue;
    }
    // The marked part of this line: from the start column (first line) or the first non-blank character, to the
    // end column (last line of the range) or the end of the line.
    const from = i === index ? Math.min(d.column - 1, text.length) : text.length - text.trimStart().length;
    const to =
      i === endIndex && d.endLine === i + 1 && d.endColumn !== undefined
        ? Math.max(from + 1, d.endColumn - 1)
        : i === index && endIndex === index
          ? from + 1
          : text.length;
    const before = show(text.slice(0, from));
    const marked = show(text.slice(from, Math.min(to, text.length)));
    const after = show(text.slice(Math.min(to, text.length)));
    const clipped = clip(before + marked + after, cellWidth(before));
    out.push(`${paint(style, colour, ">")} ${paint(style, "dim", `${number(i + 1)} |`)} ${clipped.text}`);
    const pad = " ".repeat(Math.max(0, cellWidth(before) - clipped.cut));
    const carets = "^".repeat(
      Math.max(1, Math.min(cellWidth(marked), MAX_LINE_CELLS - cellWidth(before) + clipped.cut)),
    );
    out.push(`  ${paint(style, "dim", `${number(null)} |`)} ${pad}${paint(style, colour, carets)}`);
  }
  return out;
}

/** Cuts a long line so the cell at `focus` stays in view; `cut` is how many cells were removed on the left. */
function clip(text: string, focus: number): { text: string; cut: number } {
  if (cellWidth(text) <= MAX_LINE_CELLS) return { text, cut: 0 };
  const chars = [...text];
  let cut = 0;
  let i = 0;
  const skip = Math.max(0, focus - MAX_LINE_CELLS / 2);
  while (i < chars.length && cut < skip) cut += cellWidth(chars[i++]!);
  let kept = "";
  let width = 0;
  for (; i < chars.length && width + cellWidth(chars[i]!) <= MAX_LINE_CELLS; i++) {
    kept += chars[i];
    width += cellWidth(chars[i]!);
  }
  return cut > 0 ? { text: `…${kept}`, cut: cut - 1 } : { text: kept, cut: 0 };
}
