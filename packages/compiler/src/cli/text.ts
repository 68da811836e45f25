/**
 * Text from outside (file names, arguments) on its way to a terminal: control characters would reach it raw
 * (an ESC sequence rewrites the screen, a newline forges an output line), so they are shown escaped.
 */

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators and bidirectional overrides.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character written as a `\xNN` or `\uNNNN` escape; other text unchanged. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
