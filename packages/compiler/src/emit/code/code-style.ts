/**
 * Formatting with prettier, exactly pinned and with every option explicit: prettier reads no configuration
 * file here, so the output does not depend on the machine, the folder or the user's settings.
 */
import * as prettier from "prettier";

/** The repository's .prettierrc.json holds the same (a test compares them), so `npm run format` agrees. */
export const OPTIONS: prettier.Options = {
  printWidth: 120,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  quoteProps: "as-needed",
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
  proseWrap: "preserve",
};

export type FileKind = "typescript" | "babel" | "json" | "markdown";

/**
 * Formatting is a pure function of its input, and a build formats the same text many times (the runtime copy in
 * every package, the same declaration file next to every validator), so results are kept for the process.
 */
const cache = new Map<string, Promise<string>>();

export function format(text: string, parser: FileKind): Promise<string> {
  const key = `${parser}\u0000${text}`;
  let formatted = cache.get(key);
  if (formatted === undefined) {
    formatted = prettier.format(text, { ...OPTIONS, parser });
    cache.set(key, formatted);
  }
  return formatted;
}

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
