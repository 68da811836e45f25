/**
 * Diagnostics are data: a stable code, a severity, a position and a message. Stages collect them and return
 * them; only the CLI prints. Positions are 1-based and point at the YAML node of the spec path, or its nearest
 * parent that exists.
 */
import { type CodeInfo, CODES, type DiagnosticCode, type Severity } from "./codes.ts";

export type { DiagnosticCode, Severity };

/** A path inside a spec: keys and array indexes, as in `tools[0].http.url`. */
export type SpecPath = readonly (string | number)[];

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** The spec path in display form, e.g. `tools[0].http.url`; empty for the whole file. */
  readonly path: string;
  readonly message: string;
  /** Where the problem ends (exclusive column), when the place has an extent. */
  readonly endLine?: number;
  readonly endColumn?: number;
  /** What would fix it, when one fix is clear. */
  readonly fix?: Fix;
}

/** A suggested fix: what to do, and the text to write in place of the reported range when it is a replacement. */
export interface Fix {
  readonly description: string;
  readonly replacement?: string;
}

/** A 1-based place in a file (columns in UTF-16 units). */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Where a finding is: its start, and its end (exclusive) when the place has an extent. */
export interface Place extends Position {
  readonly endLine?: number;
  readonly endColumn?: number;
}

/** A finding before it has a position: checks report these, the stage that owns the file places them. */
export interface Finding {
  readonly code: DiagnosticCode;
  readonly path: SpecPath;
  readonly message: string;
  /** Overrides the code's default severity. */
  readonly severity?: Severity;
  /** A character offset inside the string value at `path`, when the problem is inside a string. */
  readonly offset?: number;
  /** Point at the key of the last path segment rather than its value (unknown fields, duplicate names). */
  readonly atKey?: boolean;
  /** With `offset`: how many characters of the string the problem spans. */
  readonly length?: number;
  readonly fix?: Fix;
  /**
   * The place, when it is known before there is a tree to look the path up in (a parse error, a byte that is
   * not UTF-8): it wins over the locator's answer.
   */
  readonly at?: Position;
}

/** What `report` accepts beside the code, the path and the message. */
export interface FindingExtra {
  readonly offset?: number;
  readonly severity?: Severity;
  readonly atKey?: boolean;
  readonly length?: number;
  readonly fix?: Fix;
  readonly at?: Position;
}

/** The message templates of a code (codes.ts). */
export type MessagesOf<C extends DiagnosticCode> = (typeof CODES)[C] extends { readonly messages: infer M } ? M : never;

/** A code's message templates, for text that is not a finding's message (a fix's description). */
export function messagesOf<C extends DiagnosticCode>(code: C): MessagesOf<C> {
  return (CODES[code] as CodeInfo).messages as MessagesOf<C>;
}

/**
 * The one way to make a finding: its text comes from its code's message templates, `report("KV2004", path, (m) =>
 * m.tooLong({ length, max }))`. The callback receives only that code's templates, so a message cannot be filed
 * under another code, and every message kervanc prints is in codes.ts.
 */
export function report<C extends DiagnosticCode>(
  code: C,
  path: SpecPath,
  message: (templates: MessagesOf<C>) => string,
  extra: FindingExtra = {},
): Finding {
  return { code, path, message: message(messagesOf(code)), ...extra };
}

/**
 * A message of several whole sentences, each from codes.ts, the optional ones left out: `sentences(m.unknown({
 * key }), moved && m.movedDown({ field, path }), m.allowedHere({ allowed }))`. For messages whose optional parts
 * combine (a variant per combination would be a table of its own); no template takes English as an argument.
 */
export function sentences(...parts: readonly (string | false | null | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === "string" && p !== "").join(" ");
}

/**
 * Turns paths into places in one file: the loaded spec (load/load.ts), an OpenAPI document (import/document.ts),
 * or WHOLE_FILE for a file that has no tree. All at once, because a JSON document is scanned once for every
 * finding rather than once each.
 */
export interface Locator {
  place(findings: readonly Finding[]): readonly Place[];
}

/** For findings about a file as a whole (it is missing, it is no spec) or already placed (`at`): line 1, column 1. */
export const WHOLE_FILE: Locator = { place: (findings) => findings.map(() => START) };

const START: Place = { line: 1, column: 1 };

/** The one conversion from findings to diagnostics, for every stage and every kind of file. */
export function toDiagnostics(file: string, locator: Locator, findings: readonly Finding[]): Diagnostic[] {
  const unplaced = findings.filter((f) => f.at === undefined);
  const places = unplaced.length > 0 ? locator.place(unplaced) : [];
  let next = 0;
  return findings.map((f): Diagnostic => {
    const place: Place = f.at ?? places[next++] ?? START;
    return {
      code: f.code,
      severity: severityOf(f),
      file,
      line: place.line,
      column: place.column,
      path: formatPath(f.path),
      message: f.message,
      ...(place.endLine !== undefined && place.endColumn !== undefined
        ? { endLine: place.endLine, endColumn: place.endColumn }
        : {}),
      ...(f.fix ? { fix: f.fix } : {}),
    };
  });
}

export function toDiagnostic(file: string, locator: Locator, finding: Finding): Diagnostic {
  return toDiagnostics(file, locator, [finding])[0]!;
}

export function severityOf(f: Finding): Severity {
  return f.severity ?? CODES[f.code].severity;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `tools[0].http.query["my key"]`: keys that are not identifiers are JSON-quoted. */
export function formatPath(path: SpecPath): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (IDENTIFIER.test(part)) out += out === "" ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

/** Sort order for output: file, then position, then code. Deterministic whatever order checks ran in. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.line - b.line ||
    a.column - b.column ||
    (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) ||
    (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)
  );
}

/** Human form, like tsc: `file:line:col - error KV1234: message`. Every part is one line of inert text. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.path === "" ? "" : `${oneLine(d.path)}: `;
  return `${oneLine(d.file)}:${d.line}:${d.column} - ${d.severity} ${d.code}: ${where}${oneLine(d.message)}`;
}

const UNSAFE = "\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069";
const TERMINAL_UNSAFE = new RegExp(`[${UNSAFE}]`, "g");
const LINE_UNSAFE = new RegExp(`[\t\n${UNSAFE}]`, "g");

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * Messages quote spec text and file names, and both can hold terminal escape sequences. Control characters
 * (and the invisible ones that reorder text) are shown as `\uXXXX` so printing can never drive the terminal.
 * Tabs and line breaks are kept: for text that is meant to span lines, such as a diff.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_UNSAFE, escape);
}

/**
 * JSON for a terminal or a log: `JSON.stringify` leaves C1 controls and the characters that reorder or break
 * text (U+202E, U+2028) as they are, inside strings, where a terminal still obeys them. `terminalSafe` writes
 * them as `\uXXXX` escapes, which are JSON too: the text parses to the same value. (Outside its strings,
 * JSON.stringify's output holds none of them.)
 */
export function terminalJson(value: object | null): string {
  return terminalSafe(JSON.stringify(value, null, 2));
}

/**
 * `terminalSafe`, and tabs and line breaks escaped too: for a field of one printed line (a file name, a path, a
 * message), where a newline in a file name would otherwise print a line kervanc did not write.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_UNSAFE, escape);
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}
