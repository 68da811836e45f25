/**
 * Stage 1, load: bytes to a YAML document with positions, and its plain value, by the one YAML reader
 * (yaml-source.ts) with the spec's policy.
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
  type YAMLMap,
} from "yaml";
import { type Finding, type Locator, type Place, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { SPEC_LIMITS } from "../analyze/spec-format.ts";
import { LineIndex } from "./line-index.ts";
import type { WalkProblem } from "./plain.ts";
import { readYaml, shortTag, type YamlPolicy } from "./yaml-source.ts";

export { LineIndex };

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

/** Parser problems listed after this many are cascades of the first ones, not news. */
const MAX_PARSE_PROBLEMS = 20;

/**
 * How a spec is read (yaml-source.ts), in the words of the KV1xxx codes. No JSON fast path: a spec's findings are
 * placed in its YAML tree, which JSON.parse does not build, and specs are small.
 */
const SPEC_POLICY: YamlPolicy & { readonly jsonFastPath: false } = {
  maxBytes: MAX_SPEC_BYTES,
  boms: 1,
  jsonFastPath: false,
  aliases: { kind: "expansion", maxCount: MAX_ALIAS_COUNT, maxExpansion: MAX_ALIAS_EXPANSION },
  maxProblems: MAX_PARSE_PROBLEMS,
  frames: "mapping",
  problems: {
    tooLarge: (max, size) => report("KV1001", [], (m) => m.tooLarge({ max, size })),
    notUtf8: report("KV1002", [], (m) => m.notUtf8),
    controlCharacter: (code) => report("KV1004", [], (m) => m.controlCharacter({ code })),
    empty: report("KV1003", [], (m) => m.empty),
    unreadable: (reason, deep) =>
      deep
        ? report("KV1009", [], (m) => m.unreadable({ reason }))
        : report("KV1004", [], (m) => m.unreadable({ reason })),
    tooDeep: report("KV1009", [], (m) => m.tooDeep),
    multipleDocuments: report("KV1007", [], (m) => m.multipleDocuments),
    parser: (message) => report("KV1004", [], (m) => m.parser({ message })),
    tag: (tag) => report("KV1006", [], (m) => m.tag({ tag })),
    parserWarning: (message) => report("KV1011", [], (m) => m.parserWarning({ message })),
    yaml11: report("KV1013", [], (m) => m.yaml11),
    walk: walkFinding,
  },
};

/** The spec identity a package's manifest records: the SHA-256 of the file's bytes, hex. */
export function specSha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function loadSpec(file: string, bytes: Uint8Array): LoadResult {
  const read = readYaml(bytes, SPEC_POLICY);
  if (!read.ok) return read;
  const sha256 = specSha256(bytes);
  const { text, doc, lines, aliases, value } = read;
  return { ok: true, spec: { file, text, sha256, doc, lines, aliases, value } };
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
 * Maps a character offset inside a scalar's value to an offset in the source. Exact for plain, single- and
 * double-quoted scalars on one line (escapes are decoded as they are walked); a scalar over several lines (a
 * block scalar, `select: >-`, or a folded flow scalar) is aligned with its value by `multiLineOffset`.
 */
function offsetInScalar(text: string, node: YamlNode, offset: number): number {
  const [start, end] = node.range!;
  const source = text.slice(start, end);
  const type = (node as { type?: string }).type;
  if (source.includes("\n")) {
    const value = (node as { value?: unknown }).value;
    return typeof value === "string" ? multiLineOffset(source, type, value, offset, start) : start;
  }
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
 * The source offset of the value's character `offset` in a scalar that spans lines, found by walking the source
 * and the value side by side. Every character that is not white space appears in both, in the same order (an
 * escape in a double-quoted scalar, a doubled quote in a single-quoted one, decoded as it is walked), so a token
 * (a field name, a function name) maps exactly; what folding changes is only white space: indentation and the
 * block header are skipped, a line break may become a space, a line break or nothing. An offset past the value's
 * end maps just past its last character. Where the walk cannot follow (an explicit indentation indicator, a value
 * that does not match its source) it gives the scalar's start, as before.
 */
function multiLineOffset(
  source: string,
  type: string | undefined,
  value: string,
  offset: number,
  start: number,
): number {
  let i = 0;
  let indent = 0;
  const block = type === "BLOCK_LITERAL" || type === "BLOCK_FOLDED";
  if (block) {
    const header = source.indexOf("\n");
    // `|2`: the indentation is counted from the parent's, which this walk does not know.
    if (/\d/.test(source.slice(0, header).replace(/#.*$/, ""))) return start;
    i = header + 1;
    const first = /^(?: *\n)*( *)\S/.exec(source.slice(i));
    indent = first?.[1]?.length ?? 0;
  } else if (type === "QUOTE_SINGLE" || type === "QUOTE_DOUBLE") i = 1;
  const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";
  let atLineStart = block;
  let last = i;
  for (let j = 0; j <= offset && j < value.length;) {
    if (i >= source.length) return start;
    if (atLineStart) {
      for (let k = 0; k < indent && source[i] === " "; k++) i++;
      atLineStart = false;
      continue;
    }
    const s = source[i]!;
    const v = value[j]!;
    let width = 1;
    let units = 1;
    if (type === "QUOTE_DOUBLE" && s === "\\") {
      const e = source[i + 1];
      if (e === "\n" || e === "\r") {
        // An escaped line break: it and the next line's indentation are nothing in the value.
        i += 2;
        while (source[i] === " " || source[i] === "\t" || source[i] === "\n") i++;
        continue;
      }
      width = e === "x" ? 4 : e === "u" ? 6 : e === "U" ? 10 : 2;
      // \U escapes beyond U+FFFF decode to two UTF-16 units.
      units = e === "U" && value.codePointAt(j)! > 0xffff ? 2 : 1;
    } else if (type === "QUOTE_SINGLE" && s === "'" && source[i + 1] === "'") width = 2;
    // White space against white space is one place (a line break folded to a space, say): taken here, so a
    // range that ends at a folded line break ends on its line.
    else if (s !== v && !(isSpace(s) && isSpace(v))) {
      if (isSpace(s)) {
        // Folded or trimmed away: indentation, a line break that joined lines, trailing white space.
        if (s === "\n") atLineStart = block;
        i++;
        continue;
      }
      // The value has white space here that the source spelt as a line break already passed.
      if (isSpace(v)) {
        if (j === offset) return start + i;
        j++;
        continue;
      }
      return start;
    }
    if (j === offset) return start + i;
    if (s === "\n") atLineStart = block;
    i += width;
    j += units;
    last = i;
  }
  return start + last;
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
