/**
 * Reading one escape at a position of a text, for secret-scan.ts: JSON and JavaScript string escapes, HTML
 * character references, and runs of percent escapes read as UTF-8. Each reader reports what it decoded to a
 * sink (the code point and the span it came from) and returns how many characters it used, or 0 when the text
 * there is not an escape it knows.
 */

/** Where a reader reports a decoded code point and the span [from, to) of the text it came from. */
export interface EscapeSink {
  escape(cp: number, from: number, to: number): void;
}

/**
 * Named HTML references: every one HTML defines for an ASCII character (its punctuation, tab and newline; letters
 * and digits have none), and a few more. References of other characters are not carried.
 */
const NAMED_ENTITIES: ReadonlyMap<string, number> = new Map([
  ["amp", 0x26],
  ["lt", 0x3c],
  ["gt", 0x3e],
  ["quot", 0x22],
  ["apos", 0x27],
  ["sol", 0x2f],
  ["bsol", 0x5c],
  ["plus", 0x2b],
  ["equals", 0x3d],
  ["percnt", 0x25],
  ["num", 0x23],
  ["excl", 0x21],
  ["quest", 0x3f],
  ["colon", 0x3a],
  ["semi", 0x3b],
  ["comma", 0x2c],
  ["period", 0x2e],
  ["lowbar", 0x5f],
  ["hyphen", 0x2d],
  ["dash", 0x2d],
  ["ast", 0x2a],
  ["commat", 0x40],
  ["dollar", 0x24],
  ["tilde", 0x7e],
  ["verbar", 0x7c],
  ["grave", 0x60],
  ["Hat", 0x5e],
  ["lpar", 0x28],
  ["rpar", 0x29],
  ["lsqb", 0x5b],
  ["rsqb", 0x5d],
  ["lcub", 0x7b],
  ["rcub", 0x7d],
  ["AMP", 0x26],
  ["LT", 0x3c],
  ["GT", 0x3e],
  ["QUOT", 0x22],
  ["lbrack", 0x5b],
  ["rbrack", 0x5d],
  ["lbrace", 0x7b],
  ["rbrace", 0x7d],
  ["midast", 0x2a],
  ["UnderBar", 0x5f],
  ["DiacriticalGrave", 0x60],
  ["vert", 0x7c],
  ["VerticalLine", 0x7c],
  ["Tab", 0x09],
  ["NewLine", 0x0a],
]);
const LONGEST_ENTITY_NAME = 16;
/**
 * The names of ASCII characters HTML also reads without the `;`: `&amp-x` is `&-x`. Not when a letter, digit or
 * `=` follows (`&ltoken`): HTML leaves those alone in attribute values, where URLs are echoed, and reading them
 * would hide a secret that starts with `lt` right after a `&`.
 */
const LEGACY_NAMES: readonly string[] = ["amp", "AMP", "lt", "LT", "gt", "GT", "quot", "QUOT"];

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  "/": 0x2f,
  "\\": 0x5c,
  '"': 0x22,
  "'": 0x27,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};

/**
 * Reads a backslash escape: `\uXXXX` (either case), JavaScript's `\u{X...}` (any number of hex digits, as
 * JavaScript allows, naming a code point), `\xXX`, or one of SIMPLE_ESCAPES.
 */
export function backslashEscape(s: string, i: number, out: EscapeSink): number {
  const next = s[i + 1];
  if (next === undefined) return 0;
  if (next === "u" && s.charCodeAt(i + 2) === 0x7b /* { */) {
    const value = codePointDigits(s, i + 3, true);
    const end = digitsEnd;
    if (end === i + 3 || value < 0 || s.charCodeAt(end) !== 0x7d /* } */) return 0;
    out.escape(value, i, end + 1);
    return end + 1 - i;
  }
  if (next === "u" || next === "x") {
    const digits = next === "u" ? 4 : 2;
    const value = hexValue(s, i + 2, digits);
    if (value < 0) return 0;
    out.escape(value, i, i + 2 + digits);
    return 2 + digits;
  }
  const simple = SIMPLE_ESCAPES[next];
  if (simple === undefined) return 0;
  out.escape(simple, i, i + 2);
  return 2;
}

/** Reads an HTML character reference: `&#115;` or `&#x73;` (the `;` optional), or a name in NAMED_ENTITIES. */
export function characterReference(s: string, i: number, out: EscapeSink): number {
  if (s.charCodeAt(i + 1) === 0x23 /* # */) {
    const hex = s[i + 2] === "x" || s[i + 2] === "X";
    const from = hex ? i + 3 : i + 2;
    const value = codePointDigits(s, from, hex);
    let j = digitsEnd;
    if (j === from || value < 0) return 0;
    if (s.charCodeAt(j) === 0x3b /* ; */) j++;
    out.escape(value, i, j);
    return j - i;
  }
  // Look for the `;` only as far as the longest name reaches, so a text full of bare `&` stays linear.
  const semicolon = s.slice(i + 2, i + 2 + LONGEST_ENTITY_NAME).indexOf(";") + i + 2;
  const value = semicolon < i + 2 ? undefined : NAMED_ENTITIES.get(s.slice(i + 1, semicolon));
  if (value !== undefined) {
    out.escape(value, i, semicolon + 1);
    return semicolon + 1 - i;
  }
  for (const name of LEGACY_NAMES) {
    if (s.startsWith(name, i + 1) && !continuesName(s.charCodeAt(i + 1 + name.length))) {
      out.escape(NAMED_ENTITIES.get(name)!, i, i + 1 + name.length);
      return 1 + name.length;
    }
  }
  return 0;
}

/**
 * A run of percent escapes, read as UTF-8; a byte that is not part of a valid sequence ends the run. JavaScript's
 * `unescape` form `%uXXXX` (one UTF-16 unit) is read in the run too.
 */
export function percentRun(s: string, i: number, out: EscapeSink): number {
  let j = i;
  for (;;) {
    if (s.charCodeAt(j + 1) === 0x75 /* u */ && s.charCodeAt(j) === 0x25) {
      const unit = hexValue(s, j + 2, 4);
      if (unit < 0) break;
      out.escape(unit, j, j + 6);
      j += 6;
      continue;
    }
    const lead = percentByte(s, j);
    if (lead < 0) break;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead < 0xe0
          ? 2
          : lead >= 0xe0 && lead < 0xf0
            ? 3
            : lead >= 0xf0 && lead < 0xf5
              ? 4
              : 0;
    if (length === 0) break;
    let cp = length === 1 ? lead : lead & (0x7f >> length);
    let k = 1;
    for (; k < length; k++) {
      const b = percentByte(s, j + 3 * k);
      if (b < 0 || (b & 0xc0) !== 0x80) break;
      cp = (cp << 6) | (b & 0x3f);
    }
    const minimum = [0, 0, 0x80, 0x800, 0x10000][length]!;
    if (k < length || cp < minimum || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) break;
    out.escape(cp, j, j + 3 * length);
    j += 3 * length;
  }
  return j - i;
}

/**
 * The code point named by the decimal or hex digits at `from` (-1 for a value past U+10FFFF); where they end is
 * left in digitsEnd.
 * Leading zeros are skipped however many there are (HTML and JavaScript read `&#00000000115;` and
 * `\u{0000000073}` as `s`); each zero is read once, so a long run of them stays linear. Past the zeros, eight
 * digits are more than any code point has, so the scan stops there and the value is too large.
 */
function codePointDigits(s: string, from: number, hex: boolean): number {
  let j = from;
  while (s.charCodeAt(j) === 0x30 /* 0 */) j++;
  let value = 0;
  for (let significant = 0; j < s.length; j++, significant++) {
    const d = hex ? hexDigit(s.charCodeAt(j)) : decimalDigit(s.charCodeAt(j));
    if (d < 0) break;
    if (significant === 7) {
      digitsEnd = j;
      return -1;
    }
    value = value * (hex ? 16 : 10) + d;
  }
  digitsEnd = j;
  return value > 0x10ffff ? -1 : value;
}

/** Where the digits codePointDigits read last end (a second result, without allocating a pair per reference). */
let digitsEnd = 0;

/** Whether a character after a reference's name keeps HTML from reading it without its `;` (a letter, digit, `=`). */
function continuesName(c: number): boolean {
  const lower = c | 0x20;
  return (lower >= 0x61 && lower <= 0x7a) || decimalDigit(c) >= 0 || c === 0x3d;
}

function percentByte(s: string, i: number): number {
  return s.charCodeAt(i) === 0x25 ? hexValue(s, i + 1, 2) : -1;
}

function hexValue(s: string, from: number, digits: number): number {
  if (from + digits > s.length) return -1;
  let value = 0;
  for (let k = 0; k < digits; k++) {
    const d = hexDigit(s.charCodeAt(from + k));
    if (d < 0) return -1;
    value = value * 16 + d;
  }
  return value;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function decimalDigit(c: number): number {
  return c >= 0x30 && c <= 0x39 ? c - 0x30 : -1;
}
