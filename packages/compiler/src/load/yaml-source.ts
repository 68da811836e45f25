/**
 * The one YAML reader for every file kervanc reads as YAML (specs, spec tests, OpenAPI documents): bytes to the
 * decoded text, its line index, the YAML document with its aliases and the plain value, or the problems, each
 * already placed (`at`: there is no tree yet to place them in).
 *
 * The steps are the same for every file: a size limit, strict UTF-8 (the first bad byte placed), no control
 * characters YAML refuses, a YAML 1.2 parse with the core schema (several documents and unknown tags refused,
 * every parser warning an error, a `%YAML 1.1` directive refused: 1.1 reads `yes` as true and `0777` as octal),
 * one problem per line and only the first of a broken stream's cascade, stack exhaustion placed where the nesting
 * gets deep, then the walk to a plain value (`plain.ts`: repeated keys, tags, alias budgets). They were two copies,
 * in spec loading and `kervanc import`, and had drifted; what really differs between the two is the policy.
 */
import { type Alias, type Document, isMap, type Node as YamlNode, parseDocument } from "yaml";
import type { Finding, Position } from "../diagnostics/diagnostic.ts";
import { scanJson } from "./json-scan.ts";
import { scanNesting } from "./nesting-scan.ts";
import { LineIndex } from "./line-index.ts";
import { type AliasPolicy, toPlain, type WalkProblem } from "./plain.ts";
import { firstInvalidUtf8 } from "./utf8.ts";

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
  /** A tag outside the core schema, as the file writes it (`!!binary`). */
  tag(tag: string): Finding;
  parserWarning(message: string): Finding;
  readonly yaml11: Finding;
  /** A problem of the walk to a plain value; the JSON fast path reports repeated keys as the walk does. */
  walk(problem: WalkProblem): Finding;
}

/** What differs between the files kervanc reads: a spec (load.ts) and an OpenAPI document (import/document.ts). */
export interface YamlPolicy {
  /** Larger files are refused before they are decoded (`problems.tooLarge`). */
  readonly maxBytes: number;
  /**
   * Byte order marks dropped at the start: 1, the one the decoder drops (the YAML parser skips one more U+FEFF
   * itself); 2, also a second one, as a tool writes that puts a BOM before text that already began with one.
   * JSON.parse refuses U+FEFF, so a reader with the JSON fast path drops it to keep such a document on that path.
   */
  readonly boms: 1 | 2;
  /**
   * Whether text that starts with `{` or `[` is read with JSON.parse first (and scanned for repeated keys and
   * depth, `json-scan.ts`): some 30 times faster than the YAML parser on multi-MB documents. A document read so
   * has no YAML tree (`doc` is null), so a reader whose findings are placed in the tree (a spec) has it off.
   */
  readonly jsonFastPath: boolean;
  /** How aliases are paid for in the walk to a plain value (`plain.ts`: "expansion" or "uses"). */
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

/** A file that was read. `doc` is null when the JSON fast path read it (then there are no aliases either). */
export interface YamlRead<D extends Document.Parsed | null = Document.Parsed | null> {
  readonly ok: true;
  readonly text: string;
  readonly lines: LineIndex;
  readonly doc: D;
  /** Each alias node and the node it stands for, so positions can follow aliases. */
  readonly aliases: ReadonlyMap<Alias, YamlNode>;
  /** The plain JavaScript value. */
  readonly value: unknown;
}

export interface YamlFailure {
  readonly ok: false;
  /** Each placed (`at`), at most `policy.maxProblems`. */
  readonly findings: readonly Finding[];
  /** The decoded text, when the policy's `frames` hands it back. */
  readonly text?: string;
}

const placed = (finding: Finding, at: Position): Finding => ({ ...finding, at });
const START: Position = { line: 1, column: 1 };

/** Reads `bytes` under `policy`. A policy without the JSON fast path always gives a YAML document. */
export function readYaml(
  bytes: Uint8Array,
  policy: YamlPolicy & { readonly jsonFastPath: false },
): YamlRead<Document.Parsed> | YamlFailure;
export function readYaml(bytes: Uint8Array, policy: YamlPolicy): YamlRead | YamlFailure;
export function readYaml(bytes: Uint8Array, policy: YamlPolicy): YamlRead | YamlFailure {
  const decoded = decode(bytes, policy);
  if (!decoded.ok) return decoded;
  const { text, lines } = decoded;
  // JSON that JSON.parse refuses, or that nests deeper than the fast path answers for, takes the YAML path, which
  // places the syntax error or decides on the depth: the fast path only ever gives the YAML path's answer sooner.
  if (policy.jsonFastPath && /^\s*[{[]/.test(text)) {
    const fast = readJson(text, lines, policy);
    if (fast !== null) return fast;
  }
  return parse(text, lines, policy);
}

/** Size, UTF-8, byte order marks and control characters: the text, or why there is none a parser should see. */
function decode(bytes: Uint8Array, policy: YamlPolicy): { ok: true; text: string; lines: LineIndex } | YamlFailure {
  const { problems } = policy;
  if (bytes.byteLength > policy.maxBytes)
    return { ok: false, findings: [placed(problems.tooLarge(policy.maxBytes, bytes.byteLength), START)] };
  let text: string;
  try {
    // fatal: a bad byte is refused, not replaced. The decoder drops a leading BOM.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, findings: [placed(problems.notUtf8, firstInvalidUtf8(bytes))] };
  }
  if (policy.boms === 2 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
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

/**
 * Nesting the JSON fast path answers for. JSON.parse takes any depth, the YAML parser runs out of stack somewhere
 * past 500 levels, and a JSON document that the YAML path would refuse must not pass because it is JSON; up to
 * here the YAML parser always reads it (no real document nests this deep).
 */
const FAST_PATH_DEPTH = 100;

/** The JSON fast path: the value by JSON.parse, repeated keys by the scanner; null to leave it to the YAML path. */
function readJson(text: string, lines: LineIndex, policy: YamlPolicy): YamlRead | YamlFailure | null {
  let value: unknown;
  try {
    // JSON.parse keeps "__proto__" as an own data property, as the walk does.
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const scan = scanJson(text, null, FAST_PATH_DEPTH);
  if (scan.tooDeep) return null;
  if (scan.duplicates.length > 0) {
    const findings = scan.duplicates
      .slice(0, policy.maxProblems)
      .map(({ key, offset }) => placed(policy.problems.walk({ kind: "duplicate-key", key }), lines.position(offset)));
    return { ok: false, findings, text };
  }
  return { ok: true, text, lines, doc: null, aliases: new Map(), value };
}

/** The parse and the walk to a plain value, for text `decode` accepted. */
function parse(text: string, lines: LineIndex, policy: YamlPolicy): YamlRead<Document.Parsed> | YamlFailure {
  const { problems } = policy;
  const fail = (findings: readonly Finding[], framed: boolean): YamlFailure => ({
    ok: false,
    findings: findings.slice(0, policy.maxProblems),
    ...(framed || policy.frames === "decoded" ? { text } : {}),
  });
  // Nesting is measured before the parser runs: past some 900 levels it runs out of stack, and on Node 20 a process
  // that has parsed such files can die on the next regular expression it compiles (nesting-scan.ts).
  const nesting = scanNesting(text, MAX_NESTING, DEEP_NESTING);
  if (nesting.tooDeep) return fail([placed(problems.tooDeep, lines.position(nesting.offset))], looksLikeMapping(text));
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
    // deep instead (the scan above read the whole text, since it was not too deep), and leave out the errors that
    // follow from the parser giving up.
    at(nesting.offset, problems.tooDeep);
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
    // An unknown tag is named as the file writes it, not in the parser's words (`Unresolved tag: tag:yaml.org,...`).
    if (warning.code === "TAG_RESOLVE_FAILED") {
      const tag = /Unresolved tag: (.*)$/.exec(firstLine(warning.message))?.[1] ?? "";
      at(warning.pos[0], problems.tag(shortTag(tag)));
    } else at(warning.pos[0], problems.parserWarning(firstLine(warning.message)));
  }
  // YAML 1.1 reads `yes` as true, `0777` as octal and dates as Date objects, and applies `<<` merge keys: the file
  // would mean something else than it does everywhere else.
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

/**
 * The deepest nesting (flow brackets and block collections) read at all. Generous: a spec's schemas nest at most
 * 32 levels, JSON enters a generated server at most 256 deep, and the parser itself reads some 900 before its
 * stack runs out; past this, a file is refused before the parser sees it.
 */
export const MAX_NESTING = 256;

/**
 * Whether a text refused before parsing starts as a YAML mapping (its first line of content is `key:`): such a
 * file gets code frames, as a parsed mapping does (policy `frames: "mapping"`), and a file that reads otherwise
 * (a credentials file behind a link) does not.
 */
function looksLikeMapping(text: string): boolean {
  for (const line of text.slice(0, 4096).split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("%") || trimmed === "---") continue;
    return /^(?:[^\s#\-?[{|>!&*%@`"',\]}][^:]*|"[^"]*"|'[^']*'):(?:\s|$)/.test(line);
  }
  return false;
}
