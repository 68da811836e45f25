/**
 * Reading an OpenAPI document (YAML or JSON) into a plain value, keeping the YAML tree for positions.
 *
 * JSON is YAML 1.2 flow syntax, so one parser serves both and every problem gets a line and column. The rules
 * are those of spec loading, for the same reasons, and the walk to a plain value is spec loading's own
 * (`load/plain.ts`): duplicate keys and tags beyond the core schema are refused (either would make the document
 * mean something other than it shows). Its alias policy here is "uses": an alias stands for the same value as its
 * anchor (no copy), so reading builds no copies. Later walks do copy (a schema's `const`, `default`, `enum`,
 * written out as JSON and YAML), so what all aliases expand to is capped here too (MAX_ALIAS_EXPANSION): a
 * "billion laughs" document is refused at the alias that passes the cap, before any walk expands it.
 */
import { isAlias, isCollection, isMap, isScalar, isSeq, type Node as YamlNode, type YAMLMap } from "yaml";
import { type Finding, type Locator, type MessagesOf, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { WalkProblem } from "../load/plain.ts";
import { decodeYaml, LineIndex, parseYaml, type YamlPolicy } from "../load/yaml-source.ts";

/** OpenAPI documents of large APIs run to several MiB; past this one, reading is refused. */
export const MAX_DOCUMENT_BYTES = 32 * 1_048_576;
/** How many aliases a document may use; OpenAPI documents use `$ref`, and a few aliases at most. */
export const MAX_ALIASES = 1000;
/**
 * What all aliases together may expand to (nodes plus characters of text, `load/plain.ts`): as much as the
 * largest document holds without aliases. Tools that write YAML share repeated objects as aliases, so a real
 * document may use them a lot; a "billion laughs" passes this at once. The values the import copies as they are
 * have a budget of their own (`schema.ts`), far below this one.
 */
export const MAX_ALIAS_EXPANSION = MAX_DOCUMENT_BYTES;

/**
 * A document that was read, and the Locator of its findings. A JSON document is scanned once for all findings
 * placed together, not once each (20,000 findings in 20 MB took hours).
 */
export interface OpenApiSource extends Locator {
  readonly file: string;
  readonly text: string;
  readonly value: unknown;
}

export type ReadResult =
  | { readonly ok: true; readonly source: OpenApiSource }
  | {
      readonly ok: false;
      /** Each placed (`at`): reading fails before there is a tree to place them in. */
      readonly problems: readonly Finding[];
      /** The document's text when it was decoded (for code frames); absent when it is too large or not UTF-8. */
      readonly text?: string;
    };

const MAX_PROBLEMS = 20;

/** How an OpenAPI document is read (load/yaml-source.ts), in the words of KV7001 and KV7002. */
const OPENAPI_POLICY: YamlPolicy = {
  maxBytes: MAX_DOCUMENT_BYTES,
  aliases: { kind: "uses", maxUses: MAX_ALIASES, maxExpansion: MAX_ALIAS_EXPANSION },
  maxProblems: MAX_PROBLEMS,
  frames: "decoded",
  problems: {
    tooLarge: (max, size) => report("KV7001", [], (m) => m.tooLarge({ max, size })),
    notUtf8: report("KV7001", [], (m) => m.notUtf8),
    controlCharacter: (code) => report("KV7002", [], (m) => m.controlCharacter({ code })),
    empty: report("KV7002", [], (m) => m.empty),
    unreadable: (reason) => report("KV7002", [], (m) => m.unreadable({ reason })),
    tooDeep: report("KV7002", [], (m) => m.tooDeep),
    multipleDocuments: report("KV7002", [], (m) => m.multipleDocuments),
    parser: (message) => report("KV7002", [], (m) => m.parser({ message })),
    tag: (tag) => report("KV7002", [], (m) => m.tag({ tag })),
    parserWarning: (message) => report("KV7002", [], (m) => m.parser({ message })),
    yaml11: report("KV7002", [], (m) => m.yaml11),
    walk: walkFinding,
  },
};

export function readOpenApi(file: string, bytes: Uint8Array): ReadResult {
  const decoded = decodeYaml(bytes, OPENAPI_POLICY);
  if (!decoded.ok)
    return { ok: false, problems: decoded.findings, ...(decoded.text !== undefined ? { text: decoded.text } : {}) };
  const { text, lines } = decoded;
  // Large OpenAPI documents are mostly JSON, which JSON.parse reads some 30 times faster than a YAML parser;
  // JSON that JSON.parse refuses takes the YAML path below, which places the syntax error.
  if (/^\s*[{[]/.test(text)) {
    const fast = readJson(file, text, lines);
    if (fast !== null) return fast;
  }
  const read = parseYaml(text, lines, OPENAPI_POLICY);
  if (!read.ok) return { ok: false, problems: read.findings, text };
  const { doc, value: converted } = read;
  const aliases = read.aliases as ReadonlyMap<unknown, YamlNode>;
  const root = doc.contents as YamlNode | null;
  const deref = (node: unknown): YamlNode | undefined =>
    isAlias(node) ? aliases.get(node) : ((node as YamlNode | null) ?? undefined);
  return {
    ok: true,
    source: {
      file,
      text,
      value: converted,
      place(findings) {
        return findings.map(({ path, atKey }) => position(path, atKey ?? false));
      },
    },
  };

  function position(path: SpecPath, atKey: boolean): { line: number; column: number } {
    let node = deref(root);
    let key: YamlNode | undefined;
    for (const part of path) {
      if (isMap(node)) {
        const pair = pairOf(node, String(part), deref);
        if (pair === undefined) break;
        key = (pair.key as YamlNode | null) ?? undefined;
        const value = deref(pair.value);
        if (value === undefined) {
          node = undefined;
          break;
        }
        node = value;
      } else if (isSeq(node) && typeof part === "number" && deref(node.items[part]) !== undefined) {
        node = deref(node.items[part]);
        key = undefined;
      } else break;
    }
    // Block collections are placed at their key, where a reader looks; so is a missing value.
    const useKey = key?.range && (atKey || node === undefined || (isCollection(node) && !node.flow));
    const offset = useKey ? key!.range![0] : (node?.range?.[0] ?? key?.range?.[0] ?? 0);
    return lines.position(offset);
  }
}

/** Each mapping's pairs by key, built once: placing many problems in a mapping with many keys stays linear. */
const pairIndexes = new WeakMap<YAMLMap, Map<string, { key: unknown; value: unknown }>>();

function pairOf(
  map: YAMLMap,
  key: string,
  deref: (node: unknown) => YamlNode | undefined,
): { key: unknown; value: unknown } | undefined {
  let index = pairIndexes.get(map);
  if (index === undefined) {
    index = new Map();
    for (const pair of map.items) {
      const k = deref(pair.key);
      if (isScalar(k) && !index.has(String(k.value ?? ""))) index.set(String(k.value ?? ""), pair);
    }
    pairIndexes.set(map, index);
  }
  return index.get(key);
}

/** Each walk problem (the walk is shared with spec loading: load/plain.ts) as this reader words it. */
function walkFinding(problem: WalkProblem): Finding {
  return report("KV7002", [], (M) => walkMessage(M, problem));
}

function walkMessage(M: MessagesOf<"KV7002">, problem: WalkProblem): string {
  switch (problem.kind) {
    case "tag":
      return M.tag({ tag: problem.tag.replace(/^tag:yaml\.org,2002:/, "!!") });
    case "collection-key":
      return M.collectionKey;
    case "duplicate-key":
      return M.duplicateKey({ key: JSON.stringify(problem.key) });
    case "no-anchor":
      return M.aliasWithoutAnchor({ name: problem.name });
    case "self-alias":
      return M.selfAlias({ name: problem.name });
    case "alias-budget":
      return M.tooManyAliases({ max: MAX_ALIASES });
    case "expansion-budget":
      return M.aliasesExpandTooMuch({ max: MAX_ALIAS_EXPANSION });
    case "too-deep":
      return M.tooDeep;
  }
}

/**
 * The JSON fast path: JSON.parse for the value (it keeps "__proto__" as an own data property), and a scanner
 * over the text for what JSON.parse does not say: repeated keys (JSON.parse keeps the last one silently) and
 * the position of a path. Null when the text is not JSON.
 */
function readJson(file: string, text: string, lines: LineIndex): ReadResult | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const duplicates = scanJson(text, null).duplicates;
  if (duplicates.length > 0) {
    return {
      ok: false,
      problems: duplicates
        .slice(0, MAX_PROBLEMS)
        .map(({ key, offset }) =>
          report("KV7002", [], (m) => m.duplicateKey({ key: JSON.stringify(key) }), { at: lines.position(offset) }),
        ),
      text,
    };
  }
  return {
    ok: true,
    source: {
      file,
      text,
      value,
      place(findings) {
        const root = trieOf(findings.map((r) => r.path));
        scanJson(text, root);
        return findings.map(({ path, atKey }) => {
          const found = deepestReached(root, path);
          const useKey = found.keyOffset !== null && (atKey || found.container);
          return lines.position(useKey ? found.keyOffset! : found.valueOffset);
        });
      },
    },
  };
}

/** Where a value was found in the text: its start, its key's start when it has one, and whether it is a container. */
interface Reached {
  readonly valueOffset: number;
  readonly keyOffset: number | null;
  /** Whether the value found is an object or an array (placed at its key, like a YAML block collection). */
  readonly container: boolean;
}

/** The paths asked for, as a tree of segments; the scan marks each node whose value it passes. */
interface PathTrie {
  readonly children: Map<string, PathTrie>;
  reached?: Reached;
}

function trieOf(paths: readonly SpecPath[]): PathTrie {
  const root: PathTrie = { children: new Map() };
  for (const path of paths) {
    let node = root;
    for (const part of path) {
      const key = String(part);
      let child = node.children.get(key);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
  }
  return root;
}

/** The value at `path`, or at its deepest parent the scan reached. */
function deepestReached(root: PathTrie, path: SpecPath): Reached {
  let best: Reached = root.reached ?? { valueOffset: 0, keyOffset: null, container: false };
  let node: PathTrie | undefined = root;
  for (const part of path) {
    node = node.children.get(String(part));
    if (node?.reached === undefined) break;
    best = node.reached;
  }
  return best;
}

/**
 * One pass over valid JSON text, without recursion: collects repeated keys, and marks in `targets` (when given)
 * where each asked-for value starts. Strings are skipped by scanning for their closing quote; only keys are
 * decoded.
 */
function scanJson(text: string, targets: PathTrie | null): { duplicates: { key: string; offset: number }[] } {
  interface Frame {
    readonly array: boolean;
    readonly keys: Set<string> | null;
    index: number;
    key: string | null;
    keyOffset: number | null;
    /** The trie node of this container's own value, when a target passes through it. */
    readonly node: PathTrie | null;
  }
  const duplicates: { key: string; offset: number }[] = [];
  const frames: Frame[] = [];
  let i = 0;
  // A value starts at the current position: marks it when a target asks for it; returns its trie node.
  const startValue = (offset: number, container: boolean): PathTrie | null => {
    if (targets === null) return null;
    const parent = frames[frames.length - 1];
    const node =
      parent === undefined
        ? targets
        : (parent.node?.children.get(parent.array ? String(parent.index) : (parent.key ?? "")) ?? null);
    if (node !== null && node.reached === undefined)
      node.reached = { valueOffset: offset, keyOffset: parent && !parent.array ? parent.keyOffset : null, container };
    return node;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\n" || c === "\r" || c === "\t" || c === ":") {
      i++;
      continue;
    }
    const top = frames[frames.length - 1];
    if (c === ",") {
      if (top?.array) top.index++;
      else if (top) top.key = null;
      i++;
      continue;
    }
    if (c === "}" || c === "]") {
      frames.pop();
      i++;
      continue;
    }
    const isKey = top !== undefined && !top.array && top.key === null;
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (isKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys!.has(key)) duplicates.push({ key, offset: i });
        top.keys!.add(key);
        top.key = key;
        top.keyOffset = i;
      } else startValue(i, false);
      i = j + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      const node = startValue(i, true);
      frames.push({
        array: c === "[",
        keys: c === "{" ? new Set() : null,
        index: 0,
        key: null,
        keyOffset: null,
        node,
      });
      i++;
      continue;
    }
    // A number, true, false or null.
    startValue(i, false);
    while (i < text.length && /[0-9A-Za-z.+-]/.test(text[i]!)) i++;
  }
  return { duplicates };
}
