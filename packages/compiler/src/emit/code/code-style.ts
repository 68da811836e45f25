/**
 * The layout of generated JavaScript the compiler does not write line by line itself. A build runs no formatter:
 * the runtime is copied as the repository keeps it (scripts/prettier-style.ts), and the modules are laid out by
 * their writers (modules.ts, code.ts `readableLiteral`).
 */

/**
 * Ajv's standalone validators, laid out for reading. Ajv writes one statement per line (its `code.lines`
 * option) with every block's braces at line ends, so indenting each line by the brackets still open before it is
 * the whole layout: no parser runs, so a 200-tool build spends no time here. Brackets inside string literals and
 * regular expression literals (Ajv writes a format's expression as one: `const formats2 = /^...$/i;`) do not
 * count. Ajv writes no comments and no template literals, which `layoutGeneratedJs` checks rather than assumes.
 */
export function layoutGeneratedJs(text: string): string {
  const out: string[] = [];
  let depth = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") {
      if (out.length > 0 && out[out.length - 1] !== "") out.push("");
      continue;
    }
    const { opened, closedFirst } = bracketBalance(line);
    const indent = Math.max(0, depth - closedFirst);
    out.push(`${"  ".repeat(indent)}${line}`);
    depth = Math.max(0, depth + opened);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return `${out.join("\n")}\n`;
}

/** The net brackets a line opens, and how many it closes before it opens any (a line starting with `}`). */
function bracketBalance(line: string): { opened: number; closedFirst: number } {
  let opened = 0;
  let closedFirst = 0;
  let leading = true;
  // The last character that is not a space: a `/` after an operand divides, anywhere else it opens a regular
  // expression literal.
  let previous = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c !== " ") {
      if (c === "/" && !/[\w$)\]"']/.test(previous) && line[i + 1] !== "/" && line[i + 1] !== "*") {
        i = regExpEnd(line, i);
        leading = false;
        previous = "/";
        continue;
      }
      previous = c;
    }
    if (c === '"' || c === "'") {
      i = stringEnd(line, i);
      leading = false;
    } else if (c === "`" || (c === "/" && (line[i + 1] === "/" || line[i + 1] === "*"))) {
      throw new Error(`Unexpected ${c === "`" ? "template literal" : "comment"} in generated validator code: ${line}`);
    } else if (c === "{" || c === "(" || c === "[") {
      opened++;
      leading = false;
    } else if (c === "}" || c === ")" || c === "]") {
      opened--;
      if (leading) closedFirst++;
    } else if (c !== " ") {
      leading = false;
    }
  }
  return { opened, closedFirst };
}

/** The index of the `/` that closes the regular expression literal opening at `start` (flags follow it). */
function regExpEnd(line: string, start: number): number {
  let inClass = false;
  for (let i = start + 1; i < line.length; i++) {
    const c = line[i];
    if (c === "\\") i++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) return i;
  }
  throw new Error(`An unterminated regular expression in generated validator code: ${line}`);
}

/** The index of the quote that closes the string literal opening at `start`. */
function stringEnd(line: string, start: number): number {
  const quote = line[start];
  for (let i = start + 1; i < line.length; i++) {
    if (line[i] === "\\") i++;
    else if (line[i] === quote) return i;
  }
  throw new Error(`An unterminated string in generated validator code: ${line}`);
}
