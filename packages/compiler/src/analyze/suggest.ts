/** "Did you mean" helpers for names that are close to a known one. */

/** Levenshtein distance, with an early exit: anything over `limit` is reported as `limit + 1`. */
export function editDistance(a: string, b: string, limit = 2): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]!);
    }
    if (best > limit) return limit + 1;
    prev = cur;
  }
  return Math.min(prev[b.length]!, limit + 1);
}

/** The one known name within edit distance 2 of `name` (case-insensitively), if there is exactly one. */
export function closest(
  name: string,
  known: readonly string[],
  options: { abbreviations?: boolean } = {},
): string | undefined {
  const lower = name.toLowerCase();
  const exact = known.filter((k) => k.toLowerCase() === lower);
  if (exact.length === 1) return exact[0];
  const close = known.filter((k) => editDistance(k.toLowerCase(), lower) <= 2);
  if (close.length === 1) return close[0];
  if (close.length > 1 || !options.abbreviations) return undefined;
  // Argument names are often short forms of each other (`q` for `query`, `id` for `item_id`): one known name that
  // is a prefix of the written one, or the other way round, is the suggestion.
  const short = known.filter(
    (k) => k.length > 0 && (lower.startsWith(k.toLowerCase()) || k.toLowerCase().startsWith(lower)),
  );
  return short.length === 1 ? short[0] : undefined;
}

/**
 * Whether `name` is almost certainly a misspelling of `keyword`: the same letters in another case, or (for
 * longer keywords) at most two edits away. Short keywords (`not`, `if`, `type`) only match a one-letter
 * substitution or an added or missing final "s", so that unrelated short words (`note`) are not taken for them.
 */
export function isMisspelling(name: string, keyword: string): boolean {
  const a = name.toLowerCase();
  const b = keyword.toLowerCase();
  if (a === b) return true;
  if (b.length <= 5) return a === `${b}s` || b === `${a}s` || (a.length === b.length && editDistance(a, b, 1) <= 1);
  return name.length >= 4 && editDistance(a, b) <= 2;
}
