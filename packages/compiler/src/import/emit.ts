/**
 * Writing the imported spec as YAML, with the `yaml` package's Document API.
 *
 * The text must be deterministic (same document and options, same bytes) and read like a hand-written spec:
 * small mappings and lists on one line (`{ type: string }`), everything else in block style, the version
 * quoted, and review comments on the keys they are about. No aliases: a value that appears twice is written
 * twice, because the spec loader caps alias expansion and a reader should not have to follow anchors.
 *
 * Header and comment lines quote the document (its file name, routes, operationIds, media types): each line is
 * made one line of visible text (`oneLine`), so no line break in them (LF, CR, NEL, LS, PS) starts a line of YAML
 * and no bidi control reorders what a reviewer reads. The importer's own line breaks are the "\n"s it writes.
 */
import {
  Document,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Node as YamlNode,
  type Scalar,
  visit,
} from "yaml";
import { oneLine } from "../diagnostics/diagnostic.ts";

/** A comment written on the line(s) above the key at `path` (or above the list item, for a number last). */
export interface Comment {
  readonly path: readonly (string | number)[];
  readonly text: string;
}

/** Characters JSON.stringify leaves raw that are line breaks to YAML 1.1 readers, or invisible or reordering. */
const HIDDEN = "\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff";
const HIDDEN_RAW = new RegExp(`[${HIDDEN}]`);
const HIDDEN_RAW_ALL = new RegExp(`[${HIDDEN}]`, "g");

/** Collections whose one-line form is at most this long are written on one line. */
const FLOW_WIDTH = 72;

export function emitSpec(
  value: Record<string, unknown>,
  header: readonly string[],
  comments: readonly Comment[],
): string {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  const version = doc.get("version", true);
  if (isScalar(version)) (version as Scalar).type = "QUOTE_DOUBLE";
  // Strings holding characters that some readers take for line breaks (NEL, LS, PS) or that reorder or hide text
  // (C1 controls, bidi controls) are written double-quoted, where YAML escapes them (below): an editor, another
  // YAML parser or a reviewer's eye then reads the spec as kervanc does.
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && HIDDEN_RAW.test(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  const commented = new Set<YamlNode>();
  for (const comment of comments) {
    const node = nodeForComment(doc, comment.path);
    if (node === undefined) continue;
    const lines = comment.text
      .split("\n")
      .map((l) => ` ${oneLine(l)}`)
      .join("\n");
    node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${lines}` : lines;
    commented.add(node);
  }
  // One-line form for small collections that hold no comment (a comment inside a flow collection would be lost
  // or misplaced); decided top-down, so a collection is either one line or block all the way to its small parts.
  visit(doc, {
    Map(_, node) {
      return flowIfSmall(node, commented);
    },
    Seq(_, node) {
      return flowIfSmall(node, commented);
    },
  });
  // JSON escapes C0 controls in double-quoted strings, not these; they occur only in double-quoted strings now
  // (comment lines went through oneLine), where a \uXXXX escape means the same character.
  const body = doc
    .toString({ lineWidth: 0, flowCollectionPadding: true })
    .replace(HIDDEN_RAW_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
  return `${header.map((line) => `# ${oneLine(line)}`.trimEnd()).join("\n")}\n${body}`;
}

function flowIfSmall(node: YamlNode, commented: ReadonlySet<YamlNode>): symbol | undefined {
  if (!isCollection(node)) return undefined;
  if (containsComment(node, commented)) return undefined;
  const json = JSON.stringify(node.toJSON());
  if (json.length <= FLOW_WIDTH && !/\\n/.test(json)) {
    node.flow = true;
    return visit.SKIP;
  }
  return undefined;
}

function containsComment(node: unknown, commented: ReadonlySet<YamlNode>): boolean {
  if (node === null || node === undefined || typeof node !== "object") return false;
  if (commented.has(node as YamlNode)) return true;
  if (isPair(node)) return containsComment(node.key, commented) || containsComment(node.value, commented);
  if (isCollection(node)) return (node.items as unknown[]).some((item) => containsComment(item, commented));
  return false;
}

/** The node a comment attaches to: the key scalar for a mapping entry, the item for a list entry. */
function nodeForComment(doc: Document, path: readonly (string | number)[]): YamlNode | undefined {
  let node: unknown = doc.contents;
  let target: YamlNode | undefined;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === part);
      if (pair === undefined) return undefined;
      target = pair.key as YamlNode;
      node = pair.value;
    } else if (isSeq(node) && typeof part === "number") {
      node = node.items[part];
      target = node as YamlNode;
    } else return undefined;
  }
  return target;
}
