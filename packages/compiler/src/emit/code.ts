/**
 * The one way spec-derived values enter generated code.
 *
 * Generated code is built with the `ts` tagged template. A `Code` value is trusted code the compiler wrote;
 * anything else interpolated into the template is data and is written as a JSON literal by `literal()`. There
 * is no other path from a spec to the output: a tool name, a description or a URL can never become code,
 * because the only thing that turns a string into code is `new Code(...)`, and only this module and the
 * emitters' fixed text call it.
 *
 * `literal()` is JSON.stringify with one difference that matters in JavaScript: an object key `__proto__`
 * would set the prototype of an object literal instead of creating a property, so it is written as the
 * computed key `["__proto__"]`, which always creates an own property.
 */

export class Code {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

export type Literal =
  null | boolean | number | string | readonly Literal[] | { readonly [key: string]: Literal | undefined };

export function literal(value: unknown): Code {
  return writeLiteral(value, 0);
}

function writeLiteral(value: unknown, indent: number): Code {
  const json = indent === 0 ? JSON.stringify(value) : JSON.stringify(value, null, indent);
  if (json === undefined) throw new TypeError("literal(): the value cannot be written as JSON.");
  if (!json.includes('"__proto__"')) return new Code(json);
  return new Code(writeValue(value, indent, ""));
}

function writeValue(value: unknown, indent: number, pad: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = indent === 0 ? "" : `${pad}${" ".repeat(indent)}`;
  const open = indent === 0 ? "" : `\n${inner}`;
  const close = indent === 0 ? "" : `\n${pad}`;
  const comma = indent === 0 ? "," : `,\n${inner}`;
  const colon = indent === 0 ? ":" : ": ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${open}${value.map((v) => (v === undefined ? "null" : writeValue(v, indent, inner))).join(comma)}${close}]`;
  }
  const members: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined) continue;
    const name = key === "__proto__" ? `[${JSON.stringify(key)}]` : JSON.stringify(key);
    members.push(`${name}${colon}${writeValue(v, indent, inner)}`);
  }
  if (members.length === 0) return "{}";
  return `{${open}${members.join(comma)}${close}}`;
}

/**
 * The literal laid out the way a person would write it, for the tool modules a reviewer reads: identifier keys
 * unquoted, a node on one line when it fits in `width` columns (so small nodes and the leaves of a syntax tree
 * stay compact), otherwise one member per line with a trailing comma (so an added member is a one-line diff).
 * Strings, numbers and other keys are JSON; `__proto__` is a computed key, as in `literal()`.
 */
export function readableLiteral(value: unknown, width = 120, indent = 0): Code {
  if (JSON.stringify(value) === undefined)
    throw new TypeError("readableLiteral(): the value cannot be written as JSON.");
  return new Code(writeReadable(value, indent, width));
}

/**
 * A value as JSON text inside a template literal, laid out as `readableLiteral` lays out objects (keys quoted,
 * as JSON needs), for data the runtime parses with `JSON.parse` when it first needs it. Inside the literal every
 * backslash, backquote and `$` is escaped, so the literal's value is exactly the JSON text: nothing in it can end the
 * literal, start a substitution or form an escape. (JSON.stringify escapes every control character, so no raw
 * carriage return, which a template literal would turn into a line feed, can appear; `__proto__` is a plain
 * key in JSON, which `JSON.parse` makes an own property.)
 */
export function jsonText(value: unknown, width = 120): Code {
  if (JSON.stringify(value) === undefined) throw new TypeError("jsonText(): the value cannot be written as JSON.");
  const json = writeReadable(value, 0, width, (key) => JSON.stringify(key));
  return new Code(`\`${json.replace(/[\\`$]/g, (c) => `\\${c}`)}\``);
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

type KeyWriter = (key: string) => string;

function readableKey(key: string): string {
  if (key === "__proto__") return `[${JSON.stringify(key)}]`;
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

/** Object members as JSON.stringify sees them: own enumerable keys, undefined values left out. */
function members(value: object): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== "function" && typeof v !== "symbol");
}

/** The one-line form, or null as soon as it would exceed `budget` characters. */
function flat(value: unknown, budget: number, keyOf: KeyWriter): string | null {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) ?? "null";
    return text.length <= budget ? text : null;
  }
  const parts: string[] = [];
  let used = 4;
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = flat(item === undefined ? null : item, budget - used, keyOf);
      if (text === null) return null;
      parts.push(text);
      used += text.length + 2;
    }
    return parts.length === 0 ? "[]" : `[${parts.join(", ")}]`;
  }
  for (const [key, v] of members(value)) {
    const name = keyOf(key);
    const text = flat(v, budget - used - name.length - 2, keyOf);
    if (text === null) return null;
    parts.push(`${name}: ${text}`);
    used += name.length + text.length + 4;
  }
  return parts.length === 0 ? "{}" : `{ ${parts.join(", ")} }`;
}

function writeReadable(value: unknown, indent: number, width: number, keyOf: KeyWriter = readableKey): string {
  // A scalar is written whole, however long: only arrays and objects can be broken over lines.
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const one = flat(value, Math.max(0, width - indent), keyOf);
  if (one !== null) return one;
  const pad = " ".repeat(indent + 2);
  const end = " ".repeat(indent);
  // A trailing comma, where the syntax allows it, keeps an added member a one-line diff; JSON allows none.
  const json = keyOf !== readableKey;
  const items = (lines: string[]): string =>
    json ? `${lines.join(",\n")}\n` : lines.map((line) => `${line},\n`).join("");
  if (Array.isArray(value)) {
    return `[\n${items(value.map((item) => `${pad}${writeReadable(item === undefined ? null : item, indent + 2, width, keyOf)}`))}${end}]`;
  }
  const lines = members(value as object).map(
    ([key, v]) => `${pad}${keyOf(key)}: ${writeReadable(v, indent + 2, width, keyOf)}`,
  );
  return `{\n${items(lines)}${end}}`;
}

/** Builds code: `Code` values are pasted, every other value goes through `literal()`. */
export function ts(strings: TemplateStringsArray, ...values: unknown[]): Code {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += (value instanceof Code ? value.text : literal(value).text) + strings[i + 1]!;
  });
  return new Code(out);
}

/** Joins pieces of code. */
export function join(parts: readonly Code[], separator: string): Code {
  return new Code(parts.map((p) => p.text).join(separator));
}

/**
 * A line comment holding text. Comments are not strings: a newline would end the comment and start code, so
 * line breaks and other line terminators are replaced, and control characters are escaped.
 */
export function lineComment(text: string): Code {
  return new Code(`// ${oneLine(text)}`);
}

/** The text of a comment on one line: line terminators and other control characters escaped as `\uXXXX`. */
function oneLine(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f\u0085\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A `#` comment (for .gitattributes), on one line. */
export function hashComment(text: string): string {
  return `# ${oneLine(text)}`;
}

/**
 * An HTML comment (for Markdown files), on one line. `--` cannot appear inside an HTML comment (and `-->`
 * would end it and let the rest render), so each `-` next to another is followed by a zero-width space.
 */
export function htmlComment(text: string): string {
  return `<!-- ${oneLine(text)
    .replace(/-(?=-)/g, "-\u200b")
    .replace(/-$/, "- ")} -->`;
}

/** An identifier made from a fixed prefix and a counter: names never come from spec text. */
export function ident(prefix: "tool" | "validateInput" | "validateOutput", index: number): Code {
  return new Code(`${prefix}${index}`);
}
