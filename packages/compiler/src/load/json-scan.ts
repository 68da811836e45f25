/**
 * One pass over JSON text that JSON.parse accepted, for what JSON.parse does not say: keys that repeat (it keeps
 * the last one silently), how deep the nesting goes, and where the values of given paths start.
 *
 * It serves the JSON fast path of the YAML reader (`yaml-source.ts`: repeated keys and depth, before the value is
 * trusted) and the placing of an OpenAPI JSON document's findings (`import/document.ts`: all paths asked for in
 * one pass, since a scan per finding made 20,000 findings in 20 MB take hours). It does not recurse, so no
 * nesting can exhaust the stack, and it decodes only keys: strings are skipped by scanning for their closing
 * quote.
 */
import type { SpecPath } from "../diagnostics/diagnostic.ts";

/** Where a value was found in the text: its start, its key's start when it has one, and whether it is a container. */
export interface Reached {
  readonly valueOffset: number;
  readonly keyOffset: number | null;
  /** Whether the value found is an object or an array (placed at its key, like a YAML block collection). */
  readonly container: boolean;
}

/** The paths asked for, as a tree of segments; the scan marks each node whose value it passes. */
export interface PathTrie {
  readonly children: Map<string, PathTrie>;
  reached?: Reached;
}

export interface JsonScan {
  /** Each key that repeats a key of its object, at its second (third, ...) occurrence. */
  readonly duplicates: readonly { readonly key: string; readonly offset: number }[];
  /** Whether the nesting went past `maxDepth` (then the scan stopped there, and `duplicates` is partial). */
  readonly tooDeep: boolean;
}

export function trieOf(paths: readonly SpecPath[]): PathTrie {
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
export function deepestReached(root: PathTrie, path: SpecPath): Reached {
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
 * Scans valid JSON `text`: collects repeated keys, stops once objects and arrays nest deeper than `maxDepth`, and
 * marks in `targets` (when given) where each asked-for value starts.
 */
export function scanJson(text: string, targets: PathTrie | null, maxDepth = Infinity): JsonScan {
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
      if (frames.length === maxDepth) return { duplicates, tooDeep: true };
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
  return { duplicates, tooDeep: false };
}
