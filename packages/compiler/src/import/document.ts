/**
 * Reading an OpenAPI document (YAML or JSON) into a plain value, and the Locator of its findings.
 *
 * The reading is spec loading's own (`load/yaml-source.ts`, the one YAML reader) under this document's policy:
 * a larger size limit, KV7001/KV7002 for its problems, the JSON fast path, and the alias policy "uses" where
 * specs use "expansion": an alias stands for the same value as its anchor (no copy), so reading builds no
 * copies. Later walks do copy (a schema's `const`, `default`, `enum`, written out as JSON and YAML), so what all
 * aliases expand to is capped here too (MAX_ALIAS_EXPANSION): a "billion laughs" document is refused at the alias
 * that passes the cap, before any walk expands it. Duplicate keys and tags beyond the core schema are refused, as
 * in a spec: either would make the document mean something other than it shows.
 */
import { isAlias, isCollection, isMap, isScalar, isSeq, type Node as YamlNode, type YAMLMap } from "yaml";
import {
  type Finding,
  type Locator,
  type MessagesOf,
  type Place,
  report,
  type SpecPath,
} from "../diagnostics/diagnostic.ts";
import { deepestReached, scanJson, trieOf } from "../load/json-scan.ts";
import type { LineIndex } from "../load/line-index.ts";
import type { WalkProblem } from "../load/plain.ts";
import { readYaml, shortTag, type YamlPolicy } from "../load/yaml-source.ts";

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
  // A doubled BOM is dropped too, as this reader did before it shared the spec reader: JSON stays on the fast path.
  boms: 2,
  jsonFastPath: true,
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
  const read = readYaml(bytes, OPENAPI_POLICY);
  if (!read.ok) return { ok: false, problems: read.findings, ...(read.text !== undefined ? { text: read.text } : {}) };
  const { text, lines, doc, aliases, value } = read;
  // A document the JSON fast path read has no YAML tree: its findings are placed by one scan of its text.
  if (doc === null)
    return { ok: true, source: { file, text, value, place: (findings) => placeInJson(text, lines, findings) } };
  const root = doc.contents as YamlNode | null;
  const deref = (node: unknown): YamlNode | undefined =>
    isAlias(node) ? aliases.get(node) : ((node as YamlNode | null) ?? undefined);
  return {
    ok: true,
    source: {
      file,
      text,
      value,
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
      return M.tag({ tag: shortTag(problem.tag) });
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

/** Each finding's position in a JSON document: all paths asked for are marked in one scan (`load/json-scan.ts`). */
function placeInJson(text: string, lines: LineIndex, findings: readonly Finding[]): Place[] {
  const root = trieOf(findings.map((f) => f.path));
  scanJson(text, root);
  return findings.map(({ path, atKey }) => {
    const found = deepestReached(root, path);
    const useKey = found.keyOffset !== null && (atKey || found.container);
    return lines.position(useKey ? found.keyOffset! : found.valueOffset);
  });
}
