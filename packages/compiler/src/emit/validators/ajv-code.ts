/**
 * Reading Ajv's standalone code: just enough of JavaScript's lexical rules to find where an object literal or a
 * value ends, for the rewrites in validator-errors.ts and validator-bookkeeping.ts.
 *
 * Ajv writes one statement per line (`code.lines`), strings as JSON (so never a raw line break in one), no
 * template literals, and comments only for a schema's `$id`; regular expression literals appear only in instance paths
 * (`key0.replace(/~/g, "~0")`). Anything outside that is reported as unreadable (null or -1), and the callers
 * then leave the code as Ajv wrote it.
 */

export interface Property {
  readonly key: string;
  /** The value's source text; null for shorthand (`{instancePath}`). */
  readonly value: string | null;
}

/** The properties of the object literal opening at `open`, and the index after its `}`; null if unreadable. */
export function objectLiteral(code: string, open: number): { properties: Property[]; end: number } | null {
  const properties: Property[] = [];
  let i = open + 1;
  for (;;) {
    i = skipSpaces(code, i);
    if (code[i] === "}") return { properties, end: i + 1 };
    const key = /^[A-Za-z_$][\w$]*/.exec(code.slice(i, i + 64))?.[0];
    if (key === undefined) return null;
    i = skipSpaces(code, i + key.length);
    let value: string | null = null;
    if (code[i] === ":") {
      const end = valueEnd(code, i + 1);
      if (end < 0) return null;
      value = code.slice(i + 1, end);
      i = end;
    }
    properties.push({ key, value });
    if (code[i] === ",") i++;
    else if (code[i] !== "}") return null;
  }
}

function skipSpaces(code: string, i: number): number {
  while (i < code.length && /[ \t\n]/.test(code[i]!)) i++;
  return i;
}

const OPENERS: Readonly<Record<string, string>> = { "(": ")", "[": "]", "{": "}" };
/** After these (or at the start of a value), a `/` starts a regular expression literal, not a division. */
const BEFORE_REGEX = /[(,=:[!&|?{};+\-*%<>~^]/;

/**
 * The index of the `,` or `}` that ends the property value starting at `i`, skipping nested brackets, string
 * literals and regular expression literals; -1 for anything this does not read (template literals, comments,
 * unbalanced brackets, the end of the code).
 */
function valueEnd(code: string, i: number): number {
  const closers: string[] = [];
  let previous = ":";
  for (; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"' || c === "'") {
      i = stringEnd(code, i);
      if (i < 0) return -1;
      previous = c;
      continue;
    }
    if (c === "`") return -1;
    if (c === "/") {
      if (code[i + 1] === "/" || code[i + 1] === "*") return -1;
      if (BEFORE_REGEX.test(previous)) {
        i = regexEnd(code, i);
        if (i < 0) return -1;
        previous = "/";
        continue;
      }
    }
    if (closers.length === 0 && (c === "," || c === "}")) return i;
    if (c in OPENERS) closers.push(OPENERS[c]!);
    else if (c === ")" || c === "]" || c === "}") {
      if (closers.pop() !== c) return -1;
    }
    if (!/\s/.test(c)) previous = c;
  }
  return -1;
}

/** The index of the closing quote of the string literal opening at `i`; -1 if it does not close on its line. */
function stringEnd(code: string, i: number): number {
  const quote = code[i];
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j];
    if (c === "\\") j++;
    else if (c === quote) return j;
    else if (c === "\n") return -1;
  }
  return -1;
}

/** The index of the last flag (or closing `/`) of the regular expression literal opening at `i`; -1 if unclosed. */
function regexEnd(code: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j];
    if (c === "\\") j++;
    else if (c === "\n") return -1;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "/") {
      while (/[a-z]/.test(code[j + 1] ?? "")) j++;
      return j;
    }
  }
  return -1;
}

/**
 * `code` with the contents of its string and regular expression literals and of its comments blanked (`""`,
 * `/ /`, a space), so that names can be searched for without matching text inside them (Ajv writes a schema's
 * `$id` into a `/*# sourceURL=... *\/` comment); null for anything this does not read (a literal or comment that
 * does not close, a template literal).
 */
export function withoutLiterals(code: string): string | null {
  // Runs of ordinary code are copied with one slice each (a build reads about 6 KB of validator code per tool,
  // twice): `from` is where the run being copied starts, `before` the last non-space character before it.
  let out = "";
  let from = 0;
  let before = ";";
  const previous = (i: number): string => {
    for (let j = i - 1; j >= from; j--) if (!/\s/.test(code[j]!)) return code[j]!;
    return before;
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"' || c === "'") {
      const end = stringEnd(code, i);
      if (end < 0) return null;
      out += `${code.slice(from, i)}${c}${c}`;
      i = end;
      from = end + 1;
      before = c;
      continue;
    }
    if (c === "`") return null;
    if (c !== "/") continue;
    if (code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      if (end < 0) return null;
      // A comment is not a token: what comes before it still decides whether a `/` after it is a regex.
      before = previous(i);
      out += `${code.slice(from, i)} `;
      i = end + 1;
      from = i + 1;
      continue;
    }
    if (code[i + 1] === "/") {
      const end = code.indexOf("\n", i);
      before = previous(i);
      out += `${code.slice(from, i)} `;
      i = (end < 0 ? code.length : end) - 1;
      from = i + 1;
      continue;
    }
    if (BEFORE_REGEX.test(previous(i))) {
      const end = regexEnd(code, i);
      if (end < 0) return null;
      out += `${code.slice(from, i)}/ /`;
      i = end;
      from = end + 1;
      before = "/";
    }
  }
  return out + code.slice(from);
}
