/**
 * Cutting text at a length cap. Lengths are UTF-16 code units (as Kervan counts them), so a cut can fall
 * between the two halves of a surrogate pair; the half left behind is not valid Unicode and shows as a
 * replacement character (or breaks a strict consumer) in text the model or a user reads.
 */

/** Where to cut `text` to keep at most `max` code units without splitting a surrogate pair. */
export function cutIndex(text: string, max: number): number {
  if (text.length <= max) return text.length;
  if (max <= 0) return 0;
  const last = text.charCodeAt(max - 1);
  const next = text.charCodeAt(max);
  return last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? max - 1 : max;
}
