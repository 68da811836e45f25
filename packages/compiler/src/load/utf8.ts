/**
 * Where bytes stop being UTF-8. TextDecoder with `fatal` only says that they do; a reader of a refused file needs
 * the line and column of the first bad byte.
 */
import type { Position } from "../diagnostics/diagnostic.ts";

/** The line and column (UTF-16 units, as the decoded text would count them) of the first byte that is not UTF-8. */
export function firstInvalidUtf8(bytes: Uint8Array): Position {
  // Decoding growing prefixes would be quadratic; find the first bad byte with a small state machine instead.
  let i = 0;
  let line = 1;
  let column = 1;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    if (b < 0x80) need = 0;
    else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return { line, column };
    // Overlong forms, surrogates and code points past U+10FFFF are invalid even with good continuation bytes.
    const second = bytes[i + 1];
    if (second !== undefined) {
      if (
        (b === 0xe0 && second < 0xa0) ||
        (b === 0xed && second > 0x9f) ||
        (b === 0xf0 && second < 0x90) ||
        (b === 0xf4 && second > 0x8f)
      )
        return { line, column };
    }
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return { line, column };
    }
    if (b === 0x0a) {
      line++;
      column = 1;
    } else column += need === 3 ? 2 : 1;
    i += need + 1;
  }
  return { line, column };
}
