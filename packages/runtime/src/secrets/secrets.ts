/**
 * Secrets: where their values come from, and how they are kept out of everything the model or a log sees.
 *
 * The vault keeps every secret value the process has seen, in every form an upstream is likely to echo it
 * in (see secretForms). Redaction finds each form in a text as it is and behind any escapes (secret-scan.ts:
 * JSON, JavaScript, HTML and percent escapes, in any case) and replaces the whole span with `[redacted]`, so it
 * does not depend on a body being valid JSON or on its declared type. What is not covered is listed in
 * docs/runtime.md ("Redaction").
 */
import type { JsonValue } from "../plan.ts";
import {
  decodeOnce,
  findSpans,
  foldCase,
  foldPlus,
  MAX_DECODE_PASSES,
  replaceSpans,
  type ScanOptions,
} from "./secret-scan.ts";

export const REDACTED = "[redacted]";
export const MIN_SECRET_LENGTH = 8;

/** Where secret values come from. `undefined` or `""` means missing (or not allowed for that host). */
export interface SecretSource {
  get(name: string, context: { host: string; tool: string }): string | undefined;
}

/**
 * The environment with the variables of secrets files (each parsed `KEY=value` text, later files winning) under
 * it: variables already set win, as with Node's --env-file. Every key is defined as an own property, so a
 * `__proto__` line is a variable like any other and changes no prototype.
 */
export function envUnderFiles(
  env: Readonly<Record<string, string | undefined>>,
  files: readonly Readonly<Record<string, string | undefined>>[],
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = {};
  for (const layer of [...files, env])
    for (const [key, value] of Object.entries(layer))
      if (value !== undefined)
        Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  return merged;
}

/**
 * Why a `--secrets-file` text cannot be taken as written, or null. Node's `parseEnv` (the dotenv format) reads an
 * unquoted `#` as the start of a comment, so `API_KEY=abc#def` silently becomes `abc`: a secret changed without a
 * word is worse than an error, so such a line is refused, by file line and key and never by value. A quoted value
 * (`'abc#def'`, `"abc#def"`) is taken as written, and a comment on a line of its own is a comment.
 */
export function secretsFileProblem(text: string): string | null {
  const lines = text.split(/\r?\n/);
  let openQuote: string | null = null;
  for (const [index, raw] of lines.entries()) {
    if (openQuote !== null) {
      // Inside a quoted value that spans lines: it ends at the line holding its closing quote.
      if (raw.includes(openQuote)) openQuote = null;
      continue;
    }
    const line = raw.trimStart();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/.exec(line);
    if (match === null) continue;
    const [, key, value] = match as unknown as [string, string, string];
    const quote = value[0];
    if (quote === '"' || quote === "'" || quote === "`") {
      if (value.indexOf(quote, 1) === -1) openQuote = quote;
      continue;
    }
    if (value.includes("#"))
      return `line ${index + 1}: the value of ${key} holds "#", which the KEY=value format reads as the start of a comment, so the value would be cut there. Quote the value ('...' or "..."), or put the comment on a line of its own.`;
  }
  return null;
}

/** The default source: the environment variable of the same name. */
export function envSecrets(env: Readonly<Record<string, string | undefined>>): SecretSource {
  return {
    get(name) {
      const value = Object.hasOwn(env, name) ? env[name] : undefined;
      return value === undefined || value === "" ? undefined : value;
    },
  };
}

export class SecretError extends Error {
  override readonly name = "SecretError";
}

const NUMBER_TOKEN_CHARS = /^[-+0-9.eE]+$/;
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Refuses a value too short to redact reliably, and text that is not valid Unicode. */
function checkSecretValue(name: string, value: string): void {
  if (value.length < MIN_SECRET_LENGTH) {
    throw new SecretError(
      `Secret ${name} is shorter than ${MIN_SECRET_LENGTH} characters. Short values cannot be redacted reliably; use a longer secret.`,
    );
  }
  if (UNPAIRED_SURROGATE.test(value)) {
    throw new SecretError(`Secret ${name} is not valid Unicode text (it has an unpaired surrogate).`);
  }
}

/**
 * Every form of a value the vault searches for, case-folded: secretForms, and what each decodes to. A secret
 * holding escape-like text (`%41`, `&amp;`, `\n`) reads differently once a view of the text is decoded, so what
 * each form decodes to is a form too (when it is still long enough to match safely).
 */
function formsOf(value: string): string[] {
  const forms = new Set<string>();
  for (const form of secretForms(value)) {
    forms.add(foldCase(form));
    let decoded: string | null = form;
    for (let pass = 0; pass < MAX_DECODE_PASSES && decoded !== null; pass++) {
      decoded = decodeOnce(decoded);
      if (decoded !== null && decoded.length >= MIN_SECRET_LENGTH) forms.add(foldCase(decoded));
    }
  }
  return [...forms];
}

export class SecretVault {
  /** Every form of every value seen, case-folded, longest first. */
  #forms: string[] = [];
  /** Each value held, with its forms (case-folded, before `+` folding). */
  #values = new Map<string, readonly string[]>();
  /** The values `add` was given (declared secrets): `remove` never forgets them. */
  readonly #pinned = new Set<string>();
  /** Whether some form could occur inside a JSON number token, which needs the slower parse path. */
  #numeric = false;
  /** Whether some form ends in `\`, which parseJson's fast path cannot vouch for. */
  #endsInBackslash = false;
  /**
   * How texts are read (ScanOptions), from what the secrets hold: `\`, `&` or `%`, which can be read together
   * with the text around them (finishLeftAlone), or a space, which form encoding writes as `+` (plusIsSpace).
   * Most secrets hold none, and skip the extra work.
   */
  #scan: ScanOptions = {};
  /**
   * The length of the shortest form. Undoing escapes never makes a text longer, so a shorter text cannot hold a
   * form in any view (findSpans makes the same test); most strings of a body are shorter, and skip the search.
   */
  #shortest = Infinity;
  /** The leaf and key maps of redactValue, made once rather than per call. */
  readonly #leaf = (leaf: string | number | boolean | null): JsonValue => {
    if (typeof leaf === "string") return this.redactText(leaf);
    // A number's text is made of number characters only, so unless some form is too (#numeric), it holds none.
    if (typeof leaf === "number" && this.#numeric && this.containsSecret(String(leaf))) return REDACTED;
    return leaf;
  };
  readonly #key = (key: string): string => this.redactText(key);

  get size(): number {
    return this.#values.size;
  }

  /** Adds a value; refuses values too short to redact reliably, and text that is not valid Unicode. */
  add(name: string, value: string): void {
    this.#pinned.add(value);
    this.addRemovable(name, value);
  }

  /**
   * Adds a value that `remove` may forget again (kervanc extension upstream-auth: a client-credentials token,
   * which a refresh makes old). The same checks as `add`.
   */
  addRemovable(name: string, value: string): void {
    // The runner adds each secret again on every call: a value already held passed the checks below.
    if (this.#values.has(value)) return;
    checkSecretValue(name, value);
    this.#values.set(value, formsOf(value));
    this.#rebuild();
  }

  /**
   * Forgets a value added with `addRemovable`: an old token, which the vault would otherwise hold for the life of
   * the process, one more per refresh. A value also added with `add` (a declared secret) is never forgotten.
   */
  remove(value: string): void {
    if (!this.#pinned.has(value) && this.#values.delete(value)) this.#rebuild();
  }

  /**
   * A vault that knows this one's values and `extra` too, for one call: what only that caller's call may hold (a
   * value from its own request header, its access token, the token exchanged for it) is redacted from that call's
   * result and log lines, and is not kept in the server's vault, which would grow with every caller. This vault is
   * not changed.
   */
  derive(extra: readonly (readonly [string, string])[]): SecretVault {
    const derived = new SecretVault();
    for (const [value, forms] of this.#values) derived.#values.set(value, forms);
    for (const [name, value] of extra) {
      if (derived.#values.has(value)) continue;
      checkSecretValue(name, value);
      derived.#values.set(value, formsOf(value));
    }
    derived.#rebuild();
    return derived;
  }

  /** Recomputes the search state from the values held (each add or remove). */
  #rebuild(): void {
    const values = [...this.#values.keys()];
    const finishLeftAlone = values.some((value) => /[\\&%]/.test(value));
    const plusIsSpace = values.some((value) => value.includes(" "));
    this.#scan = { finishLeftAlone, plusIsSpace };
    const forms = new Set<string>();
    for (const each of this.#values.values()) for (const form of each) forms.add(form);
    // With plusIsSpace the text is read with `+` as a space, so the forms must be too.
    const folded = plusIsSpace ? new Set([...forms].map(foldPlus)) : forms;
    this.#forms = [...folded].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
    // Before `+` is folded: a form such as `1.5e+300` can be a number's text.
    this.#numeric = [...forms].some((form) => NUMBER_TOKEN_CHARS.test(form));
    this.#endsInBackslash = this.#forms.some((form) => form.endsWith("\\"));
    this.#shortest = this.#forms.reduce((min, form) => Math.min(min, form.length), Infinity);
  }

  /**
   * Replaces every span of a text that reads as a known form of a secret, escapes undone, with `[redacted]`.
   * Replacing changes how the text around a span reads, so the result is searched again until clean: text can
   * come together across an inserted `[redacted]`, and an escape that took in characters of the span is cut
   * short by the `[` (`\u006` + `&#54` + the secret's hex: `&#54736...` reads as one large reference until the
   * hex is replaced, and then `&#54` is `6`, completing `\u0066` after a copy of the secret that lacked its `f`).
   */
  redactText(text: string): string {
    if (text.length < this.#shortest) return text;
    let out = text;
    for (let round = 0; round < 4; round++) {
      const spans = findSpans(out, this.#forms, this.#scan);
      if (spans.length === 0) return out;
      out = replaceSpans(out, spans, REDACTED);
    }
    return findSpans(out, this.#forms, this.#scan).length === 0 ? out : REDACTED;
  }

  /** Whether a text holds any known form, escapes undone. */
  containsSecret(text: string): boolean {
    return text.length >= this.#shortest && findSpans(text, this.#forms, this.#scan).length > 0;
  }

  /**
   * Redacts a JSON value: strings, object keys, and numbers whose decimal text holds a secret (the number
   * becomes the string `[redacted]`). The input is not changed: what needed redacting is copied (with the
   * containers on its way from the root), and what did not is shared with the input.
   */
  redactValue(value: JsonValue): JsonValue {
    if (this.#forms.length === 0) return value;
    return mapJson(value, this.#leaf, this.#key);
  }

  /**
   * Parses upstream JSON and redacts it before anything else sees it. A number whose *source text* holds a
   * secret (a long number that JSON.parse would round, for instance) is replaced by the string `[redacted]`
   * before parsing, so not even a rounded copy of the secret survives.
   */
  parseJson(text: string): JsonValue {
    const source = this.#numeric ? this.#redactNumberTokens(text) : text;
    const value = JSON.parse(source) as JsonValue;
    // Without `\`, every string and key JSON.parse returns is a verbatim piece of the text between two quotes.
    // No escape reaches across a quote (the one that could, `\"`, needs a backslash decoded from the piece's
    // last character, and no form ends in one), so each decoding of a piece is the same stretch of the same
    // decoding of the whole text: a text that holds no secret form yields values that hold none either (numbers
    // are covered by #numeric). Skip the copy.
    if (!this.#numeric && !this.#endsInBackslash && !text.includes("\\") && !this.containsSecret(text)) return value;
    return this.redactValue(value);
  }

  /** Rewrites number tokens (outside strings) that contain a secret form into the JSON string "[redacted]". */
  #redactNumberTokens(text: string): string {
    let out = "";
    let last = 0;
    let i = 0;
    const n = text.length;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22 /* " */) {
        // Skip a string, honouring escapes.
        i++;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (d === 0x5c /* \ */) i += 2;
          else if (d === 0x22) {
            i++;
            break;
          } else i++;
        }
        continue;
      }
      if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
        const start = i;
        while (i < n && isNumberChar(text.charCodeAt(i))) i++;
        const token = text.slice(start, i);
        if (this.containsSecret(token)) {
          out += text.slice(last, start) + JSON.stringify(REDACTED);
          last = i;
        }
        continue;
      }
      i++;
    }
    return last === 0 ? text : out + text.slice(last);
  }
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/**
 * The forms in which an upstream may echo a secret value. Escaped spellings of these (JSON, HTML, percent
 * escapes of any subset of characters, in any case) are found by secret-scan.ts, and matching ignores case,
 * so upper- or lower-cased copies, lower-case percent escapes and upper-case hex need no form of their own.
 */
export function secretForms(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const base64 = toBase64(bytes);
  const unpadded = base64.replace(/=+$/, "");
  const forms = [
    value,
    value.toUpperCase(),
    [...value].reverse().join(""),
    encodeURIComponent(value),
    encodeURI(value),
    new URLSearchParams({ v: value }).toString().slice(2),
    // Form encodings (Python's quote_plus among them) write a space as `+`; the rest is percent-decoded.
    value.replace(/ /g, "+"),
    JSON.stringify(value).slice(1, -1),
    hex(bytes),
    base64,
    unpadded,
    toUrlSafe(unpadded),
  ];
  // Inside a longer base64 text the secret's bytes can start at any offset; the characters that depend on its
  // bytes alone are the same whatever surrounds it.
  for (const offset of [0, 1, 2]) {
    const inner = stableBase64(bytes, offset);
    forms.push(inner, toUrlSafe(inner));
  }
  return forms;
}

/**
 * The base64 characters that encode only the secret's bytes when they start `offset` bytes into a 3-byte
 * group: character k covers bits [6k, 6k + 6), and the secret occupies bits [8 * offset, 8 * (offset + length)).
 */
export function stableBase64(bytes: Uint8Array, offset: number): string {
  const padded = new Uint8Array(offset + bytes.length);
  padded.set(bytes, offset);
  const encoded = toBase64(padded);
  const first = Math.ceil((8 * offset) / 6);
  const last = Math.floor((8 * (offset + bytes.length)) / 6); // exclusive
  return encoded.slice(first, last);
}

function toUrlSafe(base64: string): string {
  return base64.replace(/\+/g, "-").replace(/\//g, "_");
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 without depending on Buffer (the runtime also runs on Workers, Deno and Bun). */
function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!;
    const b = i + 1 < bytes.length ? bytes[i + 1]! : 0;
    const c = i + 2 < bytes.length ? bytes[i + 2]! : 0;
    const triple = (a << 16) | (b << 8) | c;
    out += BASE64_ALPHABET[(triple >> 18) & 63]! + BASE64_ALPHABET[(triple >> 12) & 63]!;
    out += i + 1 < bytes.length ? BASE64_ALPHABET[(triple >> 6) & 63]! : "=";
    out += i + 2 < bytes.length ? BASE64_ALPHABET[triple & 63]! : "=";
  }
  return out;
}

/**
 * Maps a JSON value's leaves and keys bottom-up without recursion (upstream JSON can be nested deeper than the
 * stack). Copy on write: a container is copied only once a member of it changes (a key, a leaf, or a container
 * below it), so a value with nothing to map comes back as itself and costs no garbage; the input is never
 * changed. Keys are set as own data properties, so a `__proto__` key stays plain data.
 */
export function mapJson(
  value: JsonValue,
  leaf: (v: string | number | boolean | null) => JsonValue,
  key: (k: string) => string,
): JsonValue {
  if (value === null || typeof value !== "object") return leaf(value);
  const stack: Frame[] = [frameOf(value)];
  let result: JsonValue = value;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const count = frame.keys ? frame.keys.length : (frame.source as JsonValue[]).length;
    if (frame.index >= count) {
      stack.pop();
      const done = frame.out ?? frame.source;
      const parent = stack[stack.length - 1];
      if (parent) attach(parent, done, key);
      else result = done;
      continue;
    }
    const child = frame.keys
      ? (frame.source as { [k: string]: JsonValue })[frame.keys[frame.index]!]!
      : (frame.source as JsonValue[])[frame.index]!;
    if (child !== null && typeof child === "object") stack.push(frameOf(child));
    else attach(frame, leaf(child), key);
  }
  return result;
}

type Container = JsonValue[] | { [k: string]: JsonValue };

/** One container being mapped by mapJson. */
interface Frame {
  readonly source: Container;
  readonly keys: string[] | null;
  /** The copy, made at the first change; null while every member so far is unchanged. */
  out: Container | null;
  index: number;
}

function frameOf(source: Container): Frame {
  return { source, keys: Array.isArray(source) ? null : Object.keys(source), out: null, index: 0 };
}

/** Puts the mapped member `v` at the frame's index (and its mapped key), copying the container at the first change. */
function attach(frame: Frame, v: JsonValue, key: (k: string) => string): void {
  const keys = frame.keys;
  if (keys) {
    const original = keys[frame.index]!;
    const k = key(original);
    const source = frame.source as { [key: string]: JsonValue };
    if (frame.out === null) {
      if (k === original && v === source[original]) {
        frame.index++;
        return;
      }
      // The first change: the members before it are unchanged, so they are copied as they are.
      const out: { [key: string]: JsonValue } = {};
      for (let i = 0; i < frame.index; i++) put(out, keys[i]!, source[keys[i]!]!);
      frame.out = out;
    }
    put(frame.out as { [key: string]: JsonValue }, k, v);
  } else {
    const source = frame.source as JsonValue[];
    if (frame.out === null) {
      if (v === source[frame.index]) {
        frame.index++;
        return;
      }
      frame.out = source.slice(0, frame.index);
    }
    (frame.out as JsonValue[]).push(v);
  }
  frame.index++;
}

function put(out: { [key: string]: JsonValue }, k: string, v: JsonValue): void {
  // Plain assignment is safe for every key but "__proto__", which would set the prototype instead.
  if (k === "__proto__")
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}
