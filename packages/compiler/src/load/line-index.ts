/**
 * 1-based line and column (in UTF-16 units) of an offset in a text, by binary search over its line starts.
 *
 * Our own rather than `yaml`'s LineCounter: that one only learns the line breaks its lexer reports, which misses
 * those inside a token when the stream is broken, and then places problems past the end of their line.
 */
export class LineIndex {
  readonly #starts: number[] = [0];
  readonly #length: number;

  constructor(text: string) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.#starts.push(i + 1);
    this.#length = text.length;
  }

  position(offset: number): { line: number; column: number } {
    const at = Math.max(0, Math.min(offset, this.#length));
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - this.#starts[lo]! + 1 };
  }
}
