/**
 * The select suites freeze the syntax trees and inputs they hand the interpreter, so that a write to either
 * throws instead of passing unseen. The tests' own copy, not the runtime's (define.ts): the code under test does
 * not set up its own test.
 */

/** Freezes a value and everything reachable from it, iteratively (suite inputs are deep, but not that deep). */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null || Object.isFrozen(item)) continue;
    Object.freeze(item);
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key]);
  }
  return value;
}
