/**
 * Finding a secret's forms in text that an upstream wrote, whatever escapes it hid them behind.
 *
 * An upstream can echo a secret with some or all characters escaped (`\u0073`, `\/`, `&#x73;`, `%73`), and a
 * model reading the text undoes every one of them. So the text is searched as it is and as it reads after
 * decoding: each decoding pass builds a view of the text with every escape replaced by its character, and a map
 * from each character of the view back to the span of the original text it came from. A form found in any view
 * is redacted by replacing the whole original span, escapes included. Decoding is repeated (an escape of an
 * escape, `\\u0073` or `&amp;#115;`) up to MAX_DECODE_PASSES times. Matching ignores case (ASCII and every
 * other character whose lower case is one UTF-16 unit), so upper-cased echoes and hex or percent escapes in
 * either case are found too.
 *
 * The cost is linear in the text: each pass is one scan (indexOf from one escape start to the next) that
 * builds the next view, and each form is searched with indexOf (no regular expressions over the body). A text
 * is searched once as it is and in at most 10 chains of 3 passes (see findSpans); a pass that undoes nothing
 * ends its chain, so a text with no `\`, `&` or `%` is searched once, and one with a single family in 3 passes.
 *
 * Decoded: JSON and JavaScript string escapes (`\uXXXX` in any case, `\u{73}`, `\xXX`, `\/ \\ \" \' \b \f \n \r
 * \t`), HTML numeric character references (`&#115;`, `&#x73;`, `&#X73;`, with or without the `;`, any leading
 * zeros), the named references listed in escapes.ts, percent escapes (`%73`, `%c3%bc` as UTF-8, either case) and
 * `unescape`'s `%u0073`.
 */
import { backslashEscape, characterReference, percentRun, type EscapeSink } from "./escapes.ts";

/** How many times escapes are undone; each pass can reveal the next layer. */
export const MAX_DECODE_PASSES = 3;

/**
 * Lower case with one UTF-16 unit per unit, so positions in the folded text are positions in the text. Lower
 * case alone leaves apart characters that upper-case alike: `ı` (a Turkish lower-casing of `I`) and `ſ` (long
 * s) upper-case to `I` and `S`, final `ς` to `Σ`, and a few Greek, Cyrillic and Latin letters likewise; each
 * is folded to the lower case of its upper case (FOLD_AGAIN), so `ſk_lıve` matches `sk_live`.
 */
export function foldCase(text: string): string {
  // U+0130 (İ) is the only character whose lower case is longer than itself.
  const lower = (text.includes("\u0130") ? text.replace(/\u0130/g, "i") : text).toLowerCase();
  const again = FOLD_AGAIN_BEYOND_LATIN1.test(lower) || lower.includes("\u00b5");
  return again ? lower.replace(FOLD_AGAIN_ALL, (c) => FOLD_AGAIN.get(c)!) : lower;
}

/**
 * Every character (one UTF-16 unit) whose upper case lower-cases to another single unit than its own lower
 * case, mapped to that unit: computed over the BMP with String.prototype.toUpperCase and toLowerCase.
 */
const FOLD_AGAIN: ReadonlyMap<string, string> = new Map(
  [
    [0xb5, 0x3bc],
    [0x131, 0x69],
    [0x17f, 0x73],
    [0x345, 0x3b9],
    [0x3c2, 0x3c3],
    [0x3d0, 0x3b2],
    [0x3d1, 0x3b8],
    [0x3d5, 0x3c6],
    [0x3d6, 0x3c0],
    [0x3f0, 0x3ba],
    [0x3f1, 0x3c1],
    [0x3f5, 0x3b5],
    [0x1c80, 0x432],
    [0x1c81, 0x434],
    [0x1c82, 0x43e],
    [0x1c83, 0x441],
    [0x1c84, 0x442],
    [0x1c85, 0x442],
    [0x1c86, 0x44a],
    [0x1c87, 0x463],
    [0x1c88, 0xa64b],
    [0x1e9b, 0x1e61],
    [0x1fbe, 0x3b9],
  ].map(([from, to]) => [String.fromCharCode(from!), String.fromCharCode(to!)]),
);
const FOLD_AGAIN_ALL = new RegExp(`[${[...FOLD_AGAIN.keys()].join("")}]`, "g");
/**
 * The same characters but µ (U+00B5, tested with includes): with none in Latin-1, V8 answers for a text held
 * one byte a character without scanning it, where a class with µ scanned 4 MiB of plain text in about 3 ms.
 */
const FOLD_AGAIN_BEYOND_LATIN1 = new RegExp(`[${[...FOLD_AGAIN.keys()].filter((c) => c > "\u00ff").join("")}]`);

/** `+` as a space, one unit for one (ScanOptions.plusIsSpace). */
export function foldPlus(text: string): string {
  return text.includes("+") ? text.replaceAll("+", " ") : text;
}

/**
 * A decoded view: its text, and how it maps to the text it was decoded from (its parent). The map is a list of
 * segments: a literal segment is a run copied unchanged, an escape segment is what one escape decoded to.
 */
interface View {
  readonly text: string;
  readonly parent: View | null;
  readonly segments: Segments | null;
}

/**
 * Segment k starts at table[2k] in the view and came from the parent's span [table[2k + 1], table[2k + 3]);
 * a closing entry after the last segment holds the view's and the parent's lengths.
 */
interface Segments {
  readonly table: Int32Array;
  readonly count: number;
}

/**
 * Whether a segment is a run copied unchanged: its span is as long as the segment. An escape always takes more
 * characters than the units it decodes to (two or more for one unit, six or more for a surrogate pair).
 */
function isLiteral(seg: Segments, k: number): boolean {
  const t = seg.table;
  return t[2 * k + 3]! - t[2 * k + 1]! === t[2 * k + 2]! - t[2 * k]!;
}

/** Escape families, as bits: which escapes a decoding pass undoes. */
const BACKSLASH = 1;
const ENTITY = 2;
const PERCENT = 4;
const ALL = BACKSLASH | ENTITY | PERCENT;

/** How findSpans reads: the vault sets these from the secrets it holds (see SecretVault.add). */
export interface ScanOptions {
  /** Chains that leave families alone undo them once the others are done (a secret holds `\`, `&` or `%`). */
  readonly finishLeftAlone?: boolean;
  /**
   * `+` reads as a space, as form encoding writes one (a secret holds a space): then `correct+horse%20battery`
   * reads as the secret too. The forms must be folded the same way (foldPlus).
   */
  readonly plusIsSpace?: boolean;
}

/**
 * Every span of `text` that reads as one of `forms` (already case-folded), as it is or once escapes are undone.
 *
 * Each pass undoes every family of escapes at once. When the text holds more than one family, the first pass
 * is also made with each family alone, followed by passes that undo them all: the first layer an upstream
 * wraps around a text is usually one family (a JSON string, HTML, a URL), and undoing it first matters. A
 * reader that undoes only JSON escapes reads `&#1` + `2\u0041` as `&#12A`, where undoing every family at once
 * takes the `2` into the character reference; and JSON-escaping `&#92;\u0061` (`\a` with its backslash as an
 * HTML reference) gives `&#92;\\u0061`, which reads as `\u0061`, not `\a`, if both layers are undone at once.
 * When the text holds several families, there are also chains that never undo one or two of them, every pass
 * undoing the same others: text of a family's form right before a secret (`%1` + `aaa\u0061aa&#97;`) makes a
 * reader that undoes that family read an escape (`%1a`) and one that does not read the secret. With
 * `finishLeftAlone` (the vault sets it when a secret holds `\`, `&` or `%`), such a chain undoes every family
 * once the ones it undoes are gone, as a reader that undoes percent escapes last does.
 */
export function findSpans(text: string, forms: readonly string[], options: ScanOptions = {}): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  // Undoing escapes never makes a text longer, so a text shorter than every form cannot hold one in any view.
  let shortest = Infinity;
  for (const form of forms) shortest = Math.min(shortest, form.length);
  if (text.length < shortest) return spans;
  const root: View = { text, parent: null, segments: null };
  const plus = options.plusIsSpace === true;
  search(root, forms, spans, plus);
  const present = familiesIn(text);
  if (present === 0) return spans;
  const possible = possibleForms(text, forms, shortest, plus);
  if (possible.length === 0) return spans;
  // Each chain: the families its first pass undoes, and those of the passes after it.
  const chains: Array<readonly [number, number]> = [[ALL, ALL]];
  if (present !== BACKSLASH && present !== ENTITY && present !== PERCENT) {
    for (const family of [BACKSLASH, ENTITY, PERCENT]) if ((present & family) !== 0) chains.push([family, ALL]);
    // A reader that never undoes some family: around the secret, text of that family's form (`%1` before
    // `a\u0061...`) can take a character of the secret into an escape that the reader leaves as it is.
    for (const some of [BACKSLASH, ENTITY, PERCENT, BACKSLASH | ENTITY, BACKSLASH | PERCENT, ENTITY | PERCENT]) {
      if ((present & some) === some && some !== present) chains.push([some, some]);
    }
  }
  // A view reached again (the same text, families to undo and passes left) reads on as it did before.
  const seen: Array<{ readonly pass: number; readonly families: number; readonly text: string }> = [];
  const finish = options.finishLeftAlone === true;
  for (const [first, then] of chains) {
    let families = then;
    let view: View | null = decodeView(root, first);
    for (let pass = 1; view !== null && view.text.length >= shortest; pass++) {
      const viewText = view.text;
      if (seen.some((s) => s.pass === pass && s.families === families && s.text === viewText)) break;
      seen.push({ pass, families, text: viewText });
      search(view, possible, spans, plus);
      if (pass === MAX_DECODE_PASSES) break;
      const left = familiesIn(viewText);
      let next = (left & families) !== 0 ? decodeView(view, families) : null;
      // finishLeftAlone: a reader that left some families alone undoes them once it is done with the others. A
      // secret's own `\`, `&` or `%` can take in the text after it in one reading and not in another: a final
      // `\` as `%5c` before `/` is read as `\/` by a reader undoing the JSON and HTML layers before the percent.
      if (finish && next === null && families !== ALL && (left & ~families) !== 0) {
        families = ALL;
        next = decodeView(view, ALL);
      }
      view = next;
    }
  }
  return spans;
}

/**
 * The forms that some decoding of `text` could hold. Every unit of a view either is a character of the text,
 * copied, or came from an escape; escapes (at any depth) come from disjoint stretches of the text that each hold
 * a `\\`, `&` or `%`, and give at most two units each. So a form with more units missing from the text than
 * twice the escape starts cannot be read from it: a short string with an escape or two is ruled out without
 * decoding it.
 */
function possibleForms(
  text: string,
  forms: readonly string[],
  shortest: number,
  plusIsSpace: boolean,
): readonly string[] {
  const budget = 2 * (occurrences(text, "\\") + occurrences(text, "&") + occurrences(text, "%"));
  if (budget >= shortest) return forms;
  const folded = foldCase(text);
  // ASCII presence is marked in a shared table with a fresh stamp per call: allocating one per short string
  // would cost more than the check saves.
  const stamp = ++asciiStamp;
  let other: Set<number> | null = null;
  for (let i = 0; i < folded.length; i++) {
    const c = folded.charCodeAt(i);
    if (c < 128) ASCII_SEEN[c] = stamp;
    else (other ??= new Set()).add(c);
  }
  if (plusIsSpace && ASCII_SEEN[0x2b] === stamp) ASCII_SEEN[0x20] = stamp;
  // Lower-casing a capital sigma depends on its neighbours (σ or final ς), which a view can change.
  if (other !== null && (other.has(0x3c3) || other.has(0x3c2))) (other.add(0x3c3), other.add(0x3c2));
  return forms.filter((form) => {
    let missing = 0;
    for (let i = 0; i < form.length; i++) {
      const c = form.charCodeAt(i);
      const seen = c < 128 ? ASCII_SEEN[c] === stamp : other !== null && other.has(c);
      if (!seen && ++missing > budget) return false;
    }
    return true;
  });
}

const ASCII_SEEN = new Uint32Array(128);
let asciiStamp = 0;

function search(view: View, forms: readonly string[], spans: Array<[number, number]>, plusIsSpace: boolean): void {
  const folded = plusIsSpace ? foldPlus(foldCase(view.text)) : foldCase(view.text);
  for (const form of forms) {
    for (let at = folded.indexOf(form); at >= 0; at = folded.indexOf(form, at + 1)) {
      spans.push(originalSpan(view, at, at + form.length - 1));
    }
  }
}

function familiesIn(text: string): number {
  return (text.includes("\\") ? BACKSLASH : 0) | (text.includes("&") ? ENTITY : 0) | (text.includes("%") ? PERCENT : 0);
}

/** The span of the original text that units first..last (inclusive) of a view came from. */
function originalSpan(view: View, first: number, last: number): [number, number] {
  let start = first;
  let end = last + 1;
  for (let v: View = view; v.segments !== null && v.parent !== null; v = v.parent) {
    const seg = v.segments;
    const t = seg.table;
    const k = segmentAt(seg, start);
    start = isLiteral(seg, k) ? t[2 * k + 1]! + start - t[2 * k]! : t[2 * k + 1]!;
    const j = segmentAt(seg, end - 1);
    end = isLiteral(seg, j) ? t[2 * j + 1]! + end - t[2 * j]! : t[2 * j + 3]!;
  }
  return [start, end];
}

function segmentAt(seg: Segments, position: number): number {
  let lo = 0;
  let hi = seg.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (seg.table[2 * mid]! <= position) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Replaces every span with `replacement`, merging spans that overlap. */
export function replaceSpans(text: string, spans: Array<[number, number]>, replacement: string): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = "";
  let copied = 0;
  let i = 0;
  while (i < spans.length) {
    const start = spans[i]![0];
    let end = spans[i]![1];
    for (i++; i < spans.length && spans[i]![0] < end; i++) end = Math.max(end, spans[i]![1]);
    out += text.slice(copied, start) + replacement;
    copied = end;
  }
  return out + text.slice(copied);
}

/** A text with its escapes undone once, or null when it has none. */
export function decodeOnce(text: string): string | null {
  return familiesIn(text) === 0 ? null : (decodeView({ text, parent: null, segments: null }, ALL)?.text ?? null);
}

/** One pass of undoing escapes; null when there was nothing to undo. */
function decodeView(view: View, families: number): View | null {
  const s = view.text;
  const n = s.length;
  let starts = 0;
  if ((families & BACKSLASH) !== 0) starts += occurrences(s, "\\");
  if ((families & ENTITY) !== 0) starts += occurrences(s, "&");
  if ((families & PERCENT) !== 0) starts += occurrences(s, "%");
  if (starts === 0) return null;
  const builder = new ViewBuilder(s, starts);
  // Jump from one escape start to the next with indexOf, which scans far faster than a loop over characters.
  let nextBackslash = (families & BACKSLASH) !== 0 ? s.indexOf("\\") : -1;
  let nextEntity = (families & ENTITY) !== 0 ? s.indexOf("&") : -1;
  let nextPercent = (families & PERCENT) !== 0 ? s.indexOf("%") : -1;
  let i = 0;
  for (;;) {
    if (nextBackslash >= 0 && nextBackslash < i) nextBackslash = s.indexOf("\\", i);
    if (nextEntity >= 0 && nextEntity < i) nextEntity = s.indexOf("&", i);
    if (nextPercent >= 0 && nextPercent < i) nextPercent = s.indexOf("%", i);
    let at = n;
    if (nextBackslash >= 0) at = nextBackslash;
    if (nextEntity >= 0 && nextEntity < at) at = nextEntity;
    if (nextPercent >= 0 && nextPercent < at) at = nextPercent;
    if (at === n) break;
    const c = s.charCodeAt(at);
    const used =
      c === 0x5c
        ? backslashEscape(s, at, builder)
        : c === 0x26
          ? characterReference(s, at, builder)
          : percentRun(s, at, builder);
    i = at + (used > 0 ? used : 1);
  }
  return builder.finish(view);
}

/** Where escaped units and short literal runs gather before they become a piece of a view's text. */
const SCRATCH = new Uint16Array(8192);
/** Literal runs at least this long are sliced from the parent; shorter ones are copied into SCRATCH. */
const SLICE_AT = 64;

/**
 * Builds a view. Escaped units and short literal runs gather in SCRATCH and become one piece of text when it
 * fills; long literal runs are slices of the parent. So a view is made of at most one piece per 64 parent
 * characters, however dense the escapes (a text made only of escapes does not become millions of small
 * strings). The segment table holds two numbers a segment (where it starts in the view and in the parent;
 * segments tile the parent, so a segment ends where the next begins) and grows by doubling. The fields are
 * plain rather than `#private`: this is the hot loop, and plain fields measured about a third faster.
 */
class ViewBuilder implements EscapeSink {
  private readonly source: string;
  private text = "";
  private pending = 0;
  private length = 0;
  private copied = 0;
  private count = 0;
  private table: Int32Array;

  constructor(source: string, escapeStarts: number) {
    this.source = source;
    this.table = new Int32Array(2 * Math.min(2 * escapeStarts + 2, 1024));
  }

  escape(cp: number, from: number, to: number): void {
    if (this.copied < from) this.literalRun(from);
    this.segment(from);
    if (cp > 0xffff) {
      this.unit(0xd800 + ((cp - 0x10000) >> 10));
      this.unit(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else this.unit(cp);
    this.copied = to;
  }

  finish(parent: View): View | null {
    if (this.count === 0) return null;
    if (this.copied < this.source.length) this.literalRun(this.source.length);
    this.flush();
    this.segment(this.source.length);
    // The closing entry: the view's and the parent's lengths, so every segment's end is the next one's start.
    return { text: this.text, parent, segments: { table: this.table, count: this.count - 1 } };
  }

  private unit(u: number): void {
    if (this.pending === SCRATCH.length) this.flush();
    SCRATCH[this.pending++] = u;
    this.length++;
  }

  private flush(): void {
    if (this.pending === 0) return;
    this.text += String.fromCharCode.apply(null, SCRATCH.subarray(0, this.pending) as unknown as number[]);
    this.pending = 0;
  }

  private literalRun(to: number): void {
    this.segment(this.copied);
    const s = this.source;
    if (to - this.copied >= SLICE_AT) {
      this.flush();
      this.text += s.slice(this.copied, to);
      this.length += to - this.copied;
    } else for (let i = this.copied; i < to; i++) this.unit(s.charCodeAt(i));
    this.copied = to;
  }

  private segment(from: number): void {
    if (2 * this.count + 2 > this.table.length) {
      const grown = new Int32Array(2 * this.table.length);
      grown.set(this.table);
      this.table = grown;
    }
    this.table[2 * this.count] = this.length;
    this.table[2 * this.count + 1] = from;
    this.count++;
  }
}

function occurrences(s: string, char: string): number {
  let count = 0;
  for (let at = s.indexOf(char); at >= 0; at = s.indexOf(char, at + 1)) count++;
  return count;
}
