/**
 * Stage 1, load: bytes to a YAML document with positions, and its plain value.
 *
 * The parse is YAML 1.2 with the core schema, as Kervan reads specs: duplicate keys, several documents and
 * tags beyond the core ones are refused, every parser warning counts as an error, and alias expansion is
 * bounded (a "billion laughs" document is refused, not expanded). A file that fails here gets one clear
 * diagnostic per problem and no further checks.
 *
 * The document is turned into a plain value by the walk in `plain.ts` (shared with `kervanc import`; why not
 * `yaml`'s `toJS()` is said there), with the alias budget of `toJS({ maxAliasCount: 50 })` (empty collections
 * counted) and a cap on how much all aliases together expand to.
 */
import { createHash } from "node:crypto";
import {
  type Alias,
  type Document,
  isAlias,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  type Node as YamlNode,
  parseDocument,
  type YAMLMap,
} from "yaml";
import { type Finding, type Locator, type Place, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { SPEC_LIMITS } from "../analyze/spec-format.ts";
import { toPlain, type WalkProblem } from "./plain.ts";

/** The largest spec file (SPEC_LIMITS, the one place the format's limits are written). */
export const MAX_SPEC_BYTES = SPEC_LIMITS.maxSpecBytes;
/** Aliases may expand to at most this many copies (`yaml`'s `maxAliasCount`, as Kervan sets it). */
export const MAX_ALIAS_COUNT = 50;
/**
 * All aliases together may expand to at most this much (nodes plus characters of text, `plain.ts`): as much as
 * the largest spec holds without aliases, so the checks and the emit, which walk the expanded value, do at most
 * about twice the work of a full-size spec. The copy count alone does not bound it: many anchors, or one long
 * text, each used 49 times stay under 50 copies.
 */
export const MAX_ALIAS_EXPANSION = MAX_SPEC_BYTES;

export interface LoadedSpec {
  /** The file name as given on the command line (relative paths stay relative). */
  readonly file: string;
  readonly text: string;
  /** sha256 of the file's bytes, hex. */
  readonly sha256: string;
  readonly doc: Document.Parsed;
  /** Line starts of `text`, for turning offsets into line and column. */
  readonly lines: LineIndex;
  /** Each alias node and the node it stands for, so positions can follow aliases. */
  readonly aliases: ReadonlyMap<Alias, YamlNode>;
  /** The plain JavaScript value of the document. */
  readonly value: unknown;
}

export type LoadResult =
  | { readonly ok: true; readonly spec: LoadedSpec }
  | {
      readonly ok: false;
      /** Each placed (`at`): load problems happen before there is a tree to place them in. */
      readonly findings: readonly Finding[];
      /**
       * The file's text, for code frames, when it reads as a YAML mapping at its root (what every spec is); absent
       * otherwise. A file that is not one (a credentials file, `.git/config`, `/proc/self/environ` behind a link)
       * is shown by position and a one-line message only, so its lines are never printed into a build log.
       */
      readonly text?: string;
    };

// C0 controls other than tab, LF and CR, and DEL: YAML does not allow them in a stream.
export const BINARY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Parser problems listed after this many are cascades of the first ones, not news. */
const MAX_PARSE_PROBLEMS = 20;

export function loadSpec(file: string, bytes: Uint8Array): LoadResult {
  const at = (line: number, column: number, f: Finding): Finding => ({ ...f, at: { line, column } });
  if (bytes.byteLength > MAX_SPEC_BYTES) {
    return fail(
      at(
        1,
        1,
        report("KV1001", [], (m) => m.tooLarge({ max: MAX_SPEC_BYTES, size: bytes.byteLength })),
      ),
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const { line, column } = firstInvalidUtf8(bytes);
    return fail(
      at(
        line,
        column,
        report("KV1002", [], (m) => m.notUtf8),
      ),
    );
  }
  const binary = BINARY.exec(text);
  if (binary) {
    const pos = new LineIndex(text).position(binary.index);
    const code = binary[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    // Not a text file a spec could be: no frame.
    return {
      ok: false,
      findings: [
        at(
          pos.line,
          pos.column,
          report("KV1004", [], (m) => m.controlCharacter({ code })),
        ),
      ],
    };
  }
  const lines = new LineIndex(text);
  let doc: Document.Parsed;
  try {
    doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, merge: false });
  } catch (error) {
    // The parser reports its own problems as data; this is for a parser bug, which must not become a crash.
    return { ok: false, findings: [at(1, 1, unreadable(error))] };
  }
  // From here on a failure hands back the decoded text (so no caller decodes the bytes again) when, and only
  // when, the file reads as a mapping at its root: then it is a spec with mistakes, and frames help fix them.
  const framed = isMap(doc.contents) ? { text } : {};
  const failWithText = (f: Finding): LoadResult => ({ ok: false, findings: [f], ...framed });
  const placed: Finding[] = [];
  const place = (offset: number | undefined, f: Finding): void => {
    const pos = lines.position(offset ?? 0);
    placed.push(at(pos.line, pos.column, f));
  };
  if (doc.errors.some((e) => /Maximum call stack size exceeded/.test(e.message))) {
    // Where the parser ran out of stack depends on the stack size, so place the problem where the nesting gets
    // deep instead, and leave out the errors that follow from the parser giving up.
    const pos = lines.position(deepNestingOffset(text));
    return failWithText(
      at(
        pos.line,
        pos.column,
        report("KV1009", [], (m) => m.tooDeep),
      ),
    );
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
    if (error.code === "MULTIPLE_DOCS")
      place(
        error.pos[0],
        report("KV1007", [], (m) => m.multipleDocuments),
      );
    else
      place(
        error.pos[0],
        report("KV1004", [], (m) => m.parser({ message })),
      );
  }
  for (const warning of doc.warnings) {
    if (warning.code === "TAG_RESOLVE_FAILED") {
      const tag = /Unresolved tag: (.*)$/.exec(firstLine(warning.message))?.[1] ?? "";
      place(
        warning.pos[0],
        report("KV1006", [], (m) => m.tag({ tag: shortTag(tag) })),
      );
    } else
      place(
        warning.pos[0],
        report("KV1011", [], (m) => m.parserWarning({ message: firstLine(warning.message) })),
      );
  }
  if (doc.directives?.yaml.explicit && doc.directives.yaml.version === "1.1") {
    // YAML 1.1 reads `yes` as true, `0777` as octal and dates as Date objects, and applies `<<` merge keys:
    // the spec would mean something else than it does everywhere else.
    place(
      Math.max(0, text.search(/^%YAML/m)),
      report("KV1013", [], (m) => m.yaml11),
    );
  }
  if (placed.length > 0) return { ok: false, findings: placed.slice(0, MAX_PARSE_PROBLEMS), ...framed };
  if (doc.contents === null)
    return failWithText(
      at(
        1,
        1,
        report("KV1003", [], (m) => m.empty),
      ),
    );

  const converted = toPlain(
    doc.contents,
    { kind: "expansion", maxCount: MAX_ALIAS_COUNT, maxExpansion: MAX_ALIAS_EXPANSION },
    (node, problem) => place(node.range?.[0], walkFinding(problem)),
  );
  if (placed.length > 0) return { ok: false, findings: placed.slice(0, MAX_PARSE_PROBLEMS), ...framed };
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { ok: true, spec: { file, text, sha256, doc, lines, aliases: converted.aliases, value: converted.value } };
}

/** A tag as a spec writes it: `!!str` for the core schema's `tag:yaml.org,2002:str`. */
function shortTag(tag: string): string {
  return tag.replace(/^tag:yaml\.org,2002:/, "!!");
}

/** The parser gave up: too deep for the stack (KV1009), or anything else (KV1004). */
function unreadable(error: unknown): Finding {
  const reason = error instanceof Error ? firstLine(error.message) : String(error);
  return error instanceof RangeError
    ? report("KV1009", [], (m) => m.unreadable({ reason }))
    : report("KV1004", [], (m) => m.unreadable({ reason }));
}

/** Nesting deeper than this is where a file stops looking like a spec: the place to point at. */
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

function fail(f: Finding): LoadResult {
  return { ok: false, findings: [f] };
}

/** The first line of a yaml error message, without its position (the diagnostic carries that). */
export function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}

/** Each walk problem as a spec-loading finding (the walk itself is shared with kervanc import: plain.ts). */
function walkFinding(problem: WalkProblem): Finding {
  switch (problem.kind) {
    case "tag":
      return report("KV1006", [], (m) => m.tag({ tag: shortTag(problem.tag) }));
    case "collection-key":
      return report("KV1014", [], (m) => {
        const template = keyTemplate(problem.node);
        return template === null ? m.keyNotScalar : m.keyIsTemplate({ template });
      });
    case "duplicate-key":
      return report("KV1005", [], (m) => m.duplicateKey({ key: JSON.stringify(problem.key) }));
    case "no-anchor":
      return report("KV1004", [], (m) => m.aliasWithoutAnchor({ name: problem.name }));
    case "self-alias":
      return report("KV1012", [], (m) => m.selfAlias({ name: problem.name }));
    case "alias-budget":
      return report("KV1008", [], (m) => m.aliasBudget({ max: MAX_ALIAS_COUNT }));
    case "expansion-budget":
      return report("KV1008", [], (m) => m.expansionBudget({ max: MAX_ALIAS_EXPANSION }));
    case "too-deep":
      return report("KV1009", [], (m) => m.tooDeep);
  }
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

/** The YAML node at `path` (following aliases), and the key node of its last segment when it is a mapping value. */
function nodeAt(
  spec: LoadedSpec,
  path: SpecPath,
): { found: number; node: YamlNode | undefined; key: YamlNode | undefined } {
  let node = deref(spec, spec.doc.contents as YamlNode | null);
  let key: YamlNode | undefined;
  for (let i = 0; i < path.length; i++) {
    const part = path[i]!;
    if (isMap(node)) {
      const pair = pairIndex(spec, node).get(String(part));
      if (pair === undefined) return { found: i, node, key };
      key = (pair.key as YamlNode | null) ?? undefined;
      const value = deref(spec, pair.value as YamlNode | null);
      if (value === undefined || value === null) return { found: i + 1, node: undefined, key };
      node = value;
    } else if (isSeq(node) && typeof part === "number") {
      const item = deref(spec, node.items[part] as YamlNode | null | undefined);
      if (item === undefined || item === null) return { found: i, node, key };
      node = item;
      key = undefined;
    } else return { found: i, node, key };
  }
  return { found: path.length, node: node ?? undefined, key };
}

/**
 * Each mapping's pairs by key text, built once per mapping: placing thousands of findings in a mapping with
 * thousands of keys must not scan it for every finding.
 */
const pairIndexes = new WeakMap<YamlNode, Map<string, { key: unknown; value: unknown }>>();

function pairIndex(spec: LoadedSpec, map: YAMLMap): Map<string, { key: unknown; value: unknown }> {
  let index = pairIndexes.get(map);
  if (index === undefined) {
    index = new Map();
    for (const p of map.items) {
      const k = deref(spec, p.key as YamlNode | null);
      if (isScalar(k)) index.set(k.value === null ? "" : String(k.value), p);
    }
    pairIndexes.set(map, index);
  }
  return index;
}

function deref(spec: LoadedSpec, node: YamlNode | null | undefined): YamlNode | undefined {
  if (node === null || node === undefined) return undefined;
  return isAlias(node) ? (spec.aliases.get(node) ?? node) : node;
}

/**
 * The position of the YAML node at `path`, or of its nearest parent that exists. A block mapping or sequence is
 * placed at its key (`http:`), which is where a reader looks; `atKey` places any value at its key.
 */
export function locate(
  spec: LoadedSpec,
  path: SpecPath,
  offset?: number,
  atKey = false,
): { line: number; column: number } {
  const { found, node, key } = nodeAt(spec, path);
  const complete = found === path.length;
  // A value that is missing or empty (`url:`) is placed at its key.
  if (complete && node === undefined && key?.range) return pos(spec, key.range[0]);
  if (!complete) {
    // The path ends below `node` (a missing field, say): place at the parent node as found.
    if (node && isCollection(node) && !node.flow && key?.range) return pos(spec, key.range[0]);
    if (node?.range) return pos(spec, node.range[0]);
    return { line: 1, column: 1 };
  }
  if (key?.range && (atKey || (node && isCollection(node) && !node.flow))) return pos(spec, key.range[0]);
  const range = node?.range;
  if (!range) return { line: 1, column: 1 };
  const start = offset !== undefined && isScalar(node) ? offsetInScalar(spec.text, node!, offset) : range[0];
  return pos(spec, start);
}

/**
 * Where the reported thing ends (exclusive), for the caret range and machine formats: the end of `length`
 * characters from `offset` inside a one-line scalar, else the end of the key or scalar that `locate` points at.
 * Undefined where the place is a whole block (a missing field, a block mapping), which has no useful extent.
 */
export function locateEnd(
  spec: LoadedSpec,
  path: SpecPath,
  offset?: number,
  length?: number,
  atKey = false,
): { line: number; column: number } | undefined {
  const { found, node, key } = nodeAt(spec, path);
  if (found !== path.length) return undefined;
  if (key?.range && (atKey || node === undefined || (node && isCollection(node) && !node.flow)))
    return pos(spec, key.range[1]);
  if (!node?.range) return undefined;
  if (offset !== undefined && length !== undefined && isScalar(node)) {
    const start = offsetInScalar(spec.text, node, offset);
    const end = offsetInScalar(spec.text, node, offset + length);
    if (end > start) return pos(spec, end);
    return undefined;
  }
  if (!isScalar(node) && !(isCollection(node) && node.flow)) return undefined;
  return pos(spec, node.range[1]);
}

/**
 * The loaded spec as a Locator: each finding at the node of its path (`locate`), with its extent when it has one
 * (`locateEnd`).
 */
export function specLocator(spec: LoadedSpec): Locator {
  return { place: (findings) => findings.map((f) => placeIn(spec, f)) };
}

function placeIn(spec: LoadedSpec, f: Finding): Place {
  const { line, column } = locate(spec, f.path, f.offset, f.atKey);
  const end = locateEnd(spec, f.path, f.offset, f.length, f.atKey);
  // An end before the start (a multi-line scalar placed at its start) is no range.
  return end && (end.line > line || (end.line === line && end.column > column))
    ? { line, column, endLine: end.line, endColumn: end.column }
    : { line, column };
}

/** The source text of the scalar at `path` as written (`1.0` where the value is the number 1), if there is one. */
export function sourceText(spec: LoadedSpec, path: SpecPath): string | undefined {
  const { found, node } = nodeAt(spec, path);
  if (found !== path.length || !node || !isScalar(node) || !node.range) return undefined;
  return spec.text.slice(node.range[0], node.range[1]);
}

function pos(spec: LoadedSpec, offset: number): { line: number; column: number } {
  return spec.lines.position(offset);
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

/**
 * Maps a character offset inside a scalar's value to an offset in the source. Exact for plain, single- and
 * double-quoted scalars on one line (escapes are decoded as they are walked); other scalars point at their start.
 */
function offsetInScalar(text: string, node: YamlNode, offset: number): number {
  const [start, end] = node.range!;
  const source = text.slice(start, end);
  const type = (node as { type?: string }).type;
  if (source.includes("\n")) return start;
  if (type === "PLAIN") return start + Math.min(offset, source.length);
  if (type === "QUOTE_SINGLE") {
    let i = 1;
    for (let k = 0; k < offset && i < source.length - 1; k++) i += source[i] === "'" && source[i + 1] === "'" ? 2 : 1;
    return start + i;
  }
  if (type === "QUOTE_DOUBLE") {
    let i = 1;
    for (let k = 0; k < offset && i < source.length - 1; k++) {
      if (source[i] !== "\\") {
        i++;
        continue;
      }
      const e = source[i + 1];
      // \U escapes beyond U+FFFF decode to two UTF-16 units; count the second one here.
      if (e === "U") k++;
      i += e === "x" ? 4 : e === "u" ? 6 : e === "U" ? 10 : 2;
    }
    return start + Math.min(i, source.length - 1);
  }
  return start;
}

/**
 * `q: {{input.q}}` unquoted: YAML reads a flow mapping whose key is the mapping `{input.q}`. Say so, and how to
 * quote it, instead of only that the key is a mapping.
 */
/** `{{input.q}}` when YAML read an unquoted template as a flow mapping key, else null. */
function keyTemplate(key: unknown): string | null {
  if (!isMap(key) || !key.flow || key.items.length !== 1) return null;
  const pair = key.items[0]!;
  const inner = isScalar(pair.key) ? pair.key.value : undefined;
  if (typeof inner !== "string" || (pair.value !== null && !(isScalar(pair.value) && pair.value.value === null)))
    return null;
  return `{{${inner}}}`;
}
