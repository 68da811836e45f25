/**
 * One YAML reader for every file kervanc reads as YAML (specs, spec tests, OpenAPI documents): bytes to decoded
 * text, a document with positions and its plain value, or the problems, each already placed.
 *
 * The steps are the same for each: a size limit, strict UTF-8 (the first bad byte placed), no control characters
 * YAML refuses, a YAML 1.2 parse with the core schema (duplicate keys, several documents and unknown tags refused,
 * every parser warning an error, a `%YAML 1.1` directive refused: 1.1 reads `yes` as true and `0777` as octal),
 * one problem per line and only the first of a broken stream's cascade, stack exhaustion placed where the nesting
 * gets deep, then the walk to a plain value (`plain.ts`). What differs is the policy: the limits, the alias policy,
 * the codes and words of each problem, and when the text goes back for code frames.
 */
import { type Document, isMap, parseDocument } from "yaml";
import type { Finding, Position } from "../diagnostics/diagnostic.ts";
import { type AliasPolicy, toPlain, type WalkProblem } from "./plain.ts";

// C0 controls other than tab, LF and CR, and DEL: YAML does not allow them in a stream.
export const BINARY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** What is refused, in the words of the reader's codes (each finding at the path `[]`; the reader places it). */
export interface YamlProblems {
  tooLarge(max: number, size: number): Finding;
  readonly notUtf8: Finding;
  controlCharacter(code: string): Finding;
  readonly empty: Finding;
  /** The parser threw (a bug in it, or the stack ran out: `deep`). */
  unreadable(reason: string, deep: boolean): Finding;
  readonly tooDeep: Finding;
  readonly multipleDocuments: Finding;
  parser(message: string): Finding;
  /** A tag outside the core schema, as the spec writes it (`!!binary`). */
  tag(tag: string): Finding;
  parserWarning(message: string): Finding;
  readonly yaml11: Finding;
  walk(problem: WalkProblem): Finding;
}

export interface YamlPolicy {
  readonly maxBytes: number;
  readonly aliases: AliasPolicy;
  /** Problems after this many are cascades of the first ones, not news. */
  readonly maxProblems: number;
  /**
   * When a failure hands the decoded text back for code frames: "mapping", only when the file reads as a YAML
   * mapping at its root (a spec with mistakes, not a credentials file behind a link); "decoded", whenever it was
   * decoded (an OpenAPI document, whose frames the import shows only when it says it is OpenAPI).
   */
  readonly frames: "mapping" | "decoded";
  readonly problems: YamlProblems;
}

export type Decoded = { readonly ok: true; readonly text: string; readonly lines: LineIndex } | YamlFailure;

export interface YamlFailure {
  readonly ok: false;
  /** Each placed (`at`). */
  readonly findings: readonly Finding[];
  readonly text?: string;
}

export type YamlRead =
  | {
      readonly ok: true;
      readonly text: string;
      readonly lines: LineIndex;
      readonly doc: Document.Parsed;
      readonly aliases: ReadonlyMap<unknown, unknown>;
      readonly value: unknown;
    }
  | YamlFailure;

const placed = (finding: Finding, at: Position): Finding => ({ ...finding, at });
const START: Position = { line: 1, column: 1 };

/** Size, UTF-8 and control characters: the text, or why there is none a YAML parser should see. */
export function decodeYaml(bytes: Uint8Array, policy: YamlPolicy): Decoded {
  const { problems } = policy;
  if (bytes.byteLength > policy.maxBytes)
    return { ok: false, findings: [placed(problems.tooLarge(policy.maxBytes, bytes.byteLength), START)] };
  let text: string;
  try {
    // fatal: a bad byte is refused, not replaced; the decoder drops a leading BOM.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, findings: [placed(problems.notUtf8, firstInvalidUtf8(bytes))] };
  }
  const lines = new LineIndex(text);
  const binary = BINARY.exec(text);
  if (binary) {
    const code = binary[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    // Not a text file a document could be: no frame for a spec; the import frames only documents that say they
    // are OpenAPI.
    return {
      ok: false,
      findings: [placed(problems.controlCharacter(code), lines.position(binary.index))],
      ...(policy.frames === "decoded" ? { text } : {}),
    };
  }
  return { ok: true, text, lines };
}

/** The parse and the walk to a plain value, for text `decodeYaml` accepted. */
export function parseYaml(text: string, lines: LineIndex, policy: YamlPolicy): YamlRead {
  const { problems } = policy;
  const fail = (findings: readonly Finding[], framed: boolean): YamlFailure => ({
    ok: false,
    findings: findings.slice(0, policy.maxProblems),
    ...(framed || policy.frames === "decoded" ? { text } : {}),
  });
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, merge: false, version: "1.2" });
  } catch (error) {
    // The parser reports its own problems as data; this is for a parser bug, which must not become a crash.
    const reason = error instanceof Error ? firstLine(error.message) : String(error);
    return fail([placed(problems.unreadable(reason, error instanceof RangeError), START)], false);
  }
  const mapping = isMap(doc.contents);
  const found: Finding[] = [];
  const at = (offset: number | undefined, finding: Finding): void => {
    found.push(placed(finding, lines.position(offset ?? 0)));
  };
  if (doc.errors.some((e) => /Maximum call stack size exceeded/.test(e.message))) {
    // Where the parser ran out of stack depends on the stack size, so place the problem where the nesting gets
    // deep instead, and leave out the errors that follow from the parser giving up.
    at(deepNestingOffset(text), problems.tooDeep);
    return fail(found, mapping);
  }
  let streamBroken = false;
  const errorLines = new Set<number>();
  for (const error of doc.errors) {
    const message = firstLine(error.message);
    // Once the parser finds a token where no document can continue, it reports every token after it: keep the
    // first of those, and one problem per line, so a file shows its real mistakes and not a cascade.
    const cascade = / in YAML stream/.test(message);
    if (cascade && streamBroken) continue;
    streamBroken ||= cascade;
    const line = lines.position(error.pos[0]).line;
    if (errorLines.has(line)) continue;
    errorLines.add(line);
    at(error.pos[0], error.code === "MULTIPLE_DOCS" ? problems.multipleDocuments : problems.parser(message));
  }
  for (const warning of doc.warnings) {
    if (warning.code === "TAG_RESOLVE_FAILED") {
      const tag = /Unresolved tag: (.*)$/.exec(firstLine(warning.message))?.[1] ?? "";
      at(warning.pos[0], problems.tag(shortTag(tag)));
    } else at(warning.pos[0], problems.parserWarning(firstLine(warning.message)));
  }
  if (doc.directives?.yaml.explicit && doc.directives.yaml.version === "1.1")
    at(Math.max(0, text.search(/^%YAML/m)), problems.yaml11);
  if (found.length > 0) return fail(found, mapping);
  if (doc.contents === null) return fail([placed(problems.empty, START)], mapping);
  const converted = toPlain(doc.contents, policy.aliases, (node, problem) =>
    at(node.range?.[0], problems.walk(problem)),
  );
  if (found.length > 0) return fail(found, mapping);
  return { ok: true, text, lines, doc, aliases: converted.aliases, value: converted.value };
}

/** A tag as a document writes it: `!!str` for the core schema's `tag:yaml.org,2002:str`. */
export function shortTag(tag: string): string {
  return tag.replace(/^tag:yaml\.org,2002:/, "!!");
}

/** The first line of a yaml error message, without its position (the diagnostic carries that). */
export function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}

/** Nesting deeper than this is where a file stops looking like a document: the place to point at. */
const DEEP_NESTING = 100;

/** The offset of the first flow bracket (outside quotes) at nesting depth DEEP_NESTING, or 0. */
function deepNestingOffset(text: string): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "{") {
      if (++depth === DEEP_NESTING) return i;
    } else if (c === "]" || c === "}") depth = Math.max(0, depth - 1);
  }
  return 0;
}

function firstInvalidUtf8(bytes: Uint8Array): { line: number; column: number } {
  // Decode growing prefixes would be quadratic; find the first bad byte with a small state machine instead.
  let i = 0;
  let line = 1;
  let column = 1;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    if (b < 0x80) need = 0;
    else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return { line, column };
    // Overlong forms, surrogates and code points past U+10FFFF are invalid even with good continuation bytes.
    const second = bytes[i + 1];
    if (second !== undefined) {
      if (
        (b === 0xe0 && second < 0xa0) ||
        (b === 0xed && second > 0x9f) ||
        (b === 0xf0 && second < 0x90) ||
        (b === 0xf4 && second > 0x8f)
      )
        return { line, column };
    }
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return { line, column };
    }
    if (b === 0x0a) {
      line++;
      column = 1;
    } else column += need === 3 ? 2 : 1;
    i += need + 1;
  }
  return { line, column };
}

/**
 * 1-based line and column (in UTF-16 units) of an offset, by binary search over the line starts. `yaml`'s own
 * LineCounter only learns the line breaks its lexer reports, which misses those inside a token when the stream
 * is broken, and then places problems past the end of their line.
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
