/**
 * Stage 1, load: bytes to a YAML document with positions, and its plain value.
 *
 * The parse is YAML 1.2 with the core schema, as Kervan reads specs: duplicate keys, several documents and
 * tags beyond the core ones are refused, every parser warning counts as an error, and alias expansion is
 * bounded (a "billion laughs" document is refused, not expanded). A file that fails here gets one clear
 * diagnostic per problem and no further checks.
 */
import { createHash } from "node:crypto";
import { type Document, LineCounter, parseDocument, type Node as YamlNode, isCollection, isScalar } from "yaml";
import { type Finding, finding, type SpecPath } from "../diagnostics/diagnostic.ts";

export const MAX_SPEC_BYTES = 1_048_576;
/** Aliases may expand to at most this many nodes' worth of copies (yaml's `maxAliasCount`). */
export const MAX_ALIAS_COUNT = 50;

export interface LoadedSpec {
  /** The file name as given on the command line (relative paths stay relative). */
  readonly file: string;
  readonly text: string;
  /** sha256 of the file's bytes, hex. */
  readonly sha256: string;
  readonly doc: Document.Parsed;
  readonly lineCounter: LineCounter;
  /** The plain JavaScript value of the document. */
  readonly value: unknown;
}

export type LoadResult = { readonly ok: true; readonly spec: LoadedSpec } | { readonly ok: false; readonly findings: readonly PlacedFinding[] };

/** A finding with a known position (load problems happen before there is a tree to place them in). */
export interface PlacedFinding extends Finding {
  readonly line: number;
  readonly column: number;
}

const CORE_TAGS = new Set([
  "tag:yaml.org,2002:str",
  "tag:yaml.org,2002:int",
  "tag:yaml.org,2002:float",
  "tag:yaml.org,2002:bool",
  "tag:yaml.org,2002:null",
  "tag:yaml.org,2002:map",
  "tag:yaml.org,2002:seq",
]);

// C0 controls other than tab, LF and CR, and DEL: YAML does not allow them in a stream.
const BINARY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export function loadSpec(file: string, bytes: Uint8Array): LoadResult {
  const at = (line: number, column: number, f: Finding): PlacedFinding => ({ ...f, line, column });
  if (bytes.byteLength > MAX_SPEC_BYTES) {
    return fail(at(1, 1, finding("KV1001", [], `The spec is larger than ${MAX_SPEC_BYTES} bytes (it has ${bytes.byteLength}).`)));
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const { line, column } = firstInvalidUtf8(bytes);
    return fail(at(line, column, finding("KV1002", [], "The spec is not valid UTF-8 text; save it as UTF-8.")));
  }
  const lineCounter = new LineCounter();
  const binary = BINARY.exec(text);
  if (binary) {
    const pos = positionIn(text, binary.index);
    const code = binary[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    return fail(at(pos.line, pos.column, finding("KV1004", [], `YAML does not allow the control character U+${code}; is this a text file?`)));
  }
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, merge: false });
  const placed: PlacedFinding[] = [];
  const place = (offset: number | undefined, f: Finding): void => {
    const pos = lineCounter.linePos(offset ?? 0);
    placed.push(at(pos.line, pos.col, f));
  };
  let tooDeep = false;
  for (const error of doc.errors) {
    const message = firstLine(error.message);
    if (/Maximum call stack size exceeded/.test(error.message)) {
      if (!tooDeep) place(error.pos[0], finding("KV1009", [], "The YAML is nested too deeply to read."));
      tooDeep = true;
    } else if (error.code === "DUPLICATE_KEY") place(error.pos[0], finding("KV1005", [], `${message}: this key appears twice in the same mapping.`));
    else if (error.code === "MULTIPLE_DOCS") place(error.pos[0], finding("KV1007", [], "The file holds more than one YAML document; a spec is one document (remove the second ---)."));
    else place(error.pos[0], finding("KV1004", [], message));
  }
  for (const warning of doc.warnings) {
    if (warning.code === "TAG_RESOLVE_FAILED") place(warning.pos[0], finding("KV1006", [], `${firstLine(warning.message)}: YAML tags are not allowed in a spec.`));
    else place(warning.pos[0], finding("KV1011", [], firstLine(warning.message)));
  }
  // Core-schema tags resolve without a warning; anything else explicit is refused as well.
  visitNodes(doc.contents, (node) => {
    const tag = (node as { tag?: string }).tag;
    if (tag !== undefined && !CORE_TAGS.has(tag) && !placed.some((p) => p.code === "KV1006")) {
      place(node.range?.[0], finding("KV1006", [], `The tag ${tag} is not allowed in a spec.`));
    }
  });
  if (placed.length > 0) return { ok: false, findings: placed };
  if (doc.contents === null) return fail(at(1, 1, finding("KV1003", [], "The spec file is empty: it has no YAML document.")));

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof RangeError) return fail(at(1, 1, finding("KV1009", [], "The YAML is nested too deeply to read.")));
    const message = error instanceof Error ? firstLine(error.message) : String(error);
    if (/alias/i.test(message)) {
      return fail(at(1, 1, finding("KV1008", [], `The YAML aliases expand too much (more than ${MAX_ALIAS_COUNT} copies): ${message}`)));
    }
    return fail(at(1, 1, finding("KV1004", [], message)));
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { ok: true, spec: { file, text, sha256, doc, lineCounter, value } };
}

function fail(f: PlacedFinding): LoadResult {
  return { ok: false, findings: [f] };
}

function firstLine(message: string): string {
  return (message.split("\n")[0] ?? message).replace(/ at line \d+, column \d+:?$/, "");
}

/** Walks every node without recursion (the tree can be deep). */
function visitNodes(root: unknown, visit: (node: YamlNode) => void): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || node === undefined || typeof node !== "object") continue;
    if (isScalar(node)) visit(node);
    else if (isCollection(node)) {
      visit(node);
      for (const item of node.items as unknown[]) {
        if (item !== null && typeof item === "object" && "key" in item && "value" in item) {
          stack.push((item as { key: unknown }).key, (item as { value: unknown }).value);
        } else stack.push(item);
      }
    }
  }
}

export function positionIn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
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
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return { line, column };
    }
    if (b === 0x0a) {
      line++;
      column = 1;
    } else column++;
    i += need + 1;
  }
  return { line, column };
}

/**
 * The position of the YAML node at `path`, or of its nearest parent that exists. A block mapping or sequence is
 * placed at its key (`http:`), which is where a reader looks; `atKey` places any value at its key.
 */
export function locate(spec: LoadedSpec, path: SpecPath, offset?: number, atKey = false): { line: number; column: number } {
  for (let n = path.length; n >= 0; n--) {
    const prefix = path.slice(0, n) as (string | number)[];
    const node = spec.doc.getIn(prefix, true) as YamlNode | undefined;
    const key = n > 0 ? keyNode(spec, prefix) : undefined;
    if (key?.range && (node === undefined || (n === path.length && atKey) || (isCollection(node) && !(node as { flow?: boolean }).flow))) {
      return pos(spec, key.range[0]);
    }
    const range = node?.range;
    if (range) {
      const start = n === path.length && offset !== undefined && isScalar(node) ? offsetInScalar(spec.text, node, offset) : range[0];
      return pos(spec, start);
    }
  }
  return { line: 1, column: 1 };
}

function pos(spec: LoadedSpec, offset: number): { line: number; column: number } {
  const p = spec.lineCounter.linePos(offset);
  return { line: p.line, column: p.col };
}

/** The key node of the pair at `path` (only for mapping keys). */
function keyNode(spec: LoadedSpec, path: (string | number)[]): YamlNode | undefined {
  const last = path[path.length - 1];
  if (typeof last !== "string") return undefined;
  const parent = spec.doc.getIn(path.slice(0, -1), true) as YamlNode | undefined;
  if (!parent || !isCollection(parent)) return undefined;
  for (const item of parent.items as unknown[]) {
    const k = (item as { key?: YamlNode }).key;
    if (k && isScalar(k) && String(k.value) === last) return k;
  }
  return undefined;
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
      i += e === "x" ? 4 : e === "u" ? 6 : e === "U" ? 10 : 2;
    }
    return start + i;
  }
  return start;
}
