/**
 * The visible-text rule: what people reading a spec see must be what the model reads.
 *
 * Names, versions, titles and descriptions are shown to the model. A control, format or separator character
 * (ESC, CR, bidirectional overrides, zero-width spaces, tag letters, a BOM, Hangul fillers, ...) can hide
 * instructions from a reviewer, so these are refused. ZWNJ and ZWJ stay allowed because real scripts and emoji
 * need them; descriptions may also use tab and line feed. CR is refused everywhere.
 */
import type { Visible } from "./shape.ts";

/**
 * The characters a reader cannot see, as the body of a regular expression character class (`u` flag): controls,
 * format characters, line and paragraph separators, and the blank fillers (Hangul fillers, the braille blank,
 * the Mongolian vowel separator). The one definition the rule, the importer and the generated files' escaping
 * share.
 */
export const HIDDEN_CHARACTERS = "\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\u115f\\u1160\\u3164\\uffa0\\u2800\\u180e";
const HIDDEN = new RegExp(`[${HIDDEN_CHARACTERS}]`, "u");

export interface TextProblem {
  readonly offset: number;
  readonly codePoint: number;
  /** The code point as KV2010's and KV5018's messages show it: four or more hex digits. */
  readonly code: string;
}

export function visibleTextProblem(text: string, mode: Visible): TextProblem | null {
  let offset = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const allowed = cp === 0x200c || cp === 0x200d || (mode === "multiline" && (cp === 0x09 || cp === 0x0a));
    if (!allowed && HIDDEN.test(ch)) {
      const hex = cp.toString(16).toUpperCase().padStart(4, "0");
      return { offset, codePoint: cp, code: hex };
    }
    offset += ch.length;
  }
  return null;
}
