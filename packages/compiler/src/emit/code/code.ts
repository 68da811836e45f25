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
 *
 * Every writer here also writes the characters a reader cannot see as `\uXXXX` escapes (`escapeInvisible`):
 * bidirectional controls, zero-width and other format characters, line and paragraph separators, C1 controls.
 * JSON.stringify leaves them raw inside strings, where a right-to-left override makes a reviewed line read
 * differently from what it holds. They occur only inside string literals, so the escape keeps the value.
 */
import { HIDDEN_CHARACTERS } from "../../analyze/visible-text.ts";

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

/**
 * The characters written as escapes: controls (C0 and C1; tab and line feed are the layout's own, and inside a
 * string JSON.stringify has already escaped them), format characters (bidirectional controls U+202A-U+202E,
 * U+2066-U+2069, U+200E, U+200F, U+061C, zero-width characters, the BOM, tag characters), line and paragraph
 * separators, and the blank fillers the visible-text rule refuses (visible-text.ts).
 */
const INVISIBLE = new RegExp(`(?![\\t\\n])[${HIDDEN_CHARACTERS}]`, "gu");

/**
 * One `\uxxxx` per UTF-16 unit (lower-case hex by default, as JSON.stringify writes control characters), so a
 * character beyond the BMP becomes a surrogate pair, valid in JSON and in JavaScript.
 */
export function unitEscapes(c: string, upperCase = false): string {
  let out = "";
  for (let i = 0; i < c.length; i++) {
    const hex = c.charCodeAt(i).toString(16).padStart(4, "0");
    out += `\\u${upperCase ? hex.toUpperCase() : hex}`;
  }
  return out;
}

/**
 * JSON or JavaScript text with every invisible character (`INVISIBLE`) written as `\uXXXX`. Only for text in
 * which such characters can occur inside string, template or regular expression literals or comments alone
 * (JSON.stringify's output, Ajv's standalone code, esbuild's bundles): there an escape has the same value.
 */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => unitEscapes(c));
}

export function literal(value: unknown): Code {
  return writeLiteral(value, 0);
}

function writeLiteral(value: unknown, indent: number): Code {
  const json = indent === 0 ? JSON.stringify(value) : JSON.stringify(value, null, indent);
  if (json === undefined) throw new TypeError("literal(): the value cannot be written as JSON.");
  if (!json.includes('"__proto__"')) return new Code(escapeInvisible(json));
  return new Code(escapeInvisible(writeValue(value, indent, "")));
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
  return new Code(escapeInvisible(writeReadable(value, indent, width)));
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
  // The escapes are JSON's: the literal's value holds `\u202E` as six characters, which JSON.parse reads back.
  const json = escapeInvisible(writeReadable(value, 0, width, (key) => JSON.stringify(key)));
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

/**
 * The one-line form, or null as soon as it would exceed `budget` characters. It stops as soon as the budget is
 * spent, so it reads at most about `budget` characters' worth of the value however deep or long the value is
 * (before, it walked on down a deep value with a negative budget, so laying out a chain n levels deep cost n^2).
 */
function flat(value: unknown, budget: number, keyOf: KeyWriter): string | null {
  // The shortest forms: `[]`, `{}`, `""`, `0`.
  if (budget < 1) return null;
  if (typeof value === "string" && value.length + 2 > budget) return null;
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value) ?? "null";
    return text.length <= budget ? text : null;
  }
  if (budget < 2) return null;
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

/**
 * How many levels `writeReadable` indents. Below that a value is written on one line: indenting every level of a
 * value nested hundreds deep (a request body, which YAML lets nest about 500 levels) wrote text quadratic in its
 * depth, half a megabyte for a 4 KB body. A schema nests at most 32 levels (schema-limits.ts), so only the last
 * levels of the deepest schema, below a tool's listing or plan, share a line.
 */
export const MAX_LAYOUT_DEPTH = 32;

function writeReadable(value: unknown, indent: number, width: number, keyOf: KeyWriter = readableKey): string {
  // A scalar is written whole, however long: only arrays and objects can be broken over lines.
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (indent >= 2 * MAX_LAYOUT_DEPTH) return flat(value, Infinity, keyOf)!;
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
  return new Code(`// ${commentLine(text)}`);
}

/**
 * The text of a comment on one line: line terminators, other control characters and the invisible characters
 * of `escapeInvisible` escaped as `\uXXXX`.
 */
function commentLine(text: string): string {
  return escapeInvisible(text.replace(/[\t\n]/g, (c) => unitEscapes(c)));
}

/** A `#` comment (for .gitattributes), on one line. */
export function hashComment(text: string): string {
  return `# ${commentLine(text)}`;
}

/**
 * An HTML comment (for Markdown files), on one line. `--` cannot appear inside an HTML comment (and `-->`
 * would end it and let the rest render), so each `-` next to another is followed by a zero-width space.
 */
export function htmlComment(text: string): string {
  return `<!-- ${commentLine(text)
    .replace(/-(?=-)/g, "-\u200b")
    .replace(/-$/, "- ")} -->`;
}

/** An identifier made from a fixed prefix and a counter: names never come from spec text. */
export function ident(prefix: "tool" | "validateInput" | "validateOutput", index: number): Code {
  return new Code(`${prefix}${index}`);
}

/**
 * JSON for a `<script type="application/json">` element of an HTML page (the views extension, emit/view/html.ts):
 * `<`, `>` and `&` as `\u` escapes, so no value can end the element, open a comment or start markup, and U+2028
 * and U+2029 too (with the other invisible characters), so the text is the same JSON to every reader. The
 * renderer reads it with `JSON.parse`, which turns the escapes back into the characters.
 */
export function htmlScriptJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2);
  if (json === undefined) throw new TypeError("htmlScriptJson(): the value cannot be written as JSON.");
  return escapeInvisible(json.replace(/[<>&\u2028\u2029]/g, (c) => unitEscapes(c)));
}
