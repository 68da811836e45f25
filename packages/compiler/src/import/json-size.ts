/**
 * The JSON length of a value from an OpenAPI document, measured without copying it and given up past a limit.
 *
 * A document's values may share parts (a YAML alias is its anchor's very value, and reading caps only what all
 * aliases expand to together), so a small document can hold a value that is huge once written out: measuring
 * with JSON.stringify would build that text first. This walk counts instead, and stops as soon as the count
 * passes `max`, so its cost is bounded by `max` and not by the value.
 */

/** The length of `JSON.stringify(value)` for a plain JSON value, or null when it is more than `max`. */
export function jsonLengthWithin(value: unknown, max: number): number | null {
  let length = 0;
  // Iterative: a value from YAML can be nested deeper than the call stack allows.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      // The brackets and a comma between items; a hole or undefined is written as null.
      length += 2 + Math.max(0, item.length - 1);
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i] ?? null);
    } else if (typeof item === "object" && item !== null) {
      const keys = Object.keys(item);
      length += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        // The key, its colon, and its value.
        length += JSON.stringify(key).length + 1;
        stack.push((item as Record<string, unknown>)[key] ?? null);
      }
    } else length += JSON.stringify(item ?? null).length;
    if (length > max) return null;
  }
  return length;
}
