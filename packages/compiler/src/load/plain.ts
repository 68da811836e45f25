/**
 * The one walk from a parsed YAML tree to its plain JavaScript value, shared by spec loading (`load.ts`) and
 * `kervanc import` (`import/document.ts`).
 *
 * The value is built here rather than by `yaml`'s own `toJS()`, for reasons found with hostile files: `toJS()`
 * resolves aliases by walking the whole document again for every alias inside an aliased collection (a 500 KB
 * file took minutes), it happily builds cyclic values from an alias inside its own anchor (which then sends every
 * later walk into an endless loop), and it turns a list used as a mapping key into text with a process warning
 * on stderr. Duplicate keys are found here too, with a set per mapping: `yaml`'s `uniqueKeys` compares every key
 * with every other (60,000 keys took 17 s).
 *
 * The two callers differ in how aliases are paid for, so that is the parameter:
 * - `expansion` (specs): `toJS({ maxAliasCount })`'s rule, as Kervan reads specs: an alias costs the number of
 *   copies it would expand to, and the total is capped. Unlike `yaml`'s own count, an empty list or mapping
 *   counts as one copy: `yaml` counts it as none, so an alias tree whose leaves are `[]` passed with 10^10 copies.
 * - `uses` (OpenAPI documents): an alias stands for the same value as its anchor (no copy), so the number of
 *   alias uses is capped.
 *
 * Under both, the value is built with shared values for aliases (cheap), but every later walk that copies or
 * writes it (JSON.stringify, the checks, emitting a spec) pays for the expansion. So both also cap `maxExpansion`:
 * what all alias uses together stand for once expanded, each charged the expanded size of its anchor's subtree
 * (aliases inside it included): one per node, empty lists and mappings too, plus the characters of each text
 * (keys included), since one long text aliased many times expands as surely as many nodes.
 *
 * Problems are reported as data (`WalkProblem`); each caller words them with its own codes.
 */
import {
  type Alias,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type Node as YamlNode,
  type Scalar,
} from "yaml";

/** The core schema tags; any other explicit tag is refused. */
export const CORE_TAGS: ReadonlySet<string> = new Set([
  "tag:yaml.org,2002:str",
  "tag:yaml.org,2002:int",
  "tag:yaml.org,2002:float",
  "tag:yaml.org,2002:bool",
  "tag:yaml.org,2002:null",
  "tag:yaml.org,2002:map",
  "tag:yaml.org,2002:seq",
]);

export type AliasPolicy = (
  { readonly kind: "expansion"; readonly maxCount: number } | { readonly kind: "uses"; readonly maxUses: number }
) & {
  /** The most that alias uses together may expand to: nodes plus characters of text (see above). */
  readonly maxExpansion: number;
};

export type WalkProblem =
  | { readonly kind: "tag"; readonly tag: string }
  /** `node` is the key: the caller may explain it (an unquoted `{{input.q}}` is a flow mapping). */
  | { readonly kind: "collection-key"; readonly node: unknown }
  | { readonly kind: "duplicate-key"; readonly key: string }
  | { readonly kind: "no-anchor"; readonly name: string }
  | { readonly kind: "self-alias"; readonly name: string }
  | { readonly kind: "alias-budget" }
  | { readonly kind: "expansion-budget" }
  | { readonly kind: "too-deep" };

interface AnchorData {
  count: number;
  aliasCount: number;
  res: unknown;
  /** The node's expanded size (nodes and characters, aliases inside it expanded), set once it is converted. */
  size: number;
}

/** Thrown inside the walk to stop it at the first problem that makes the value meaningless. */
class Stop extends Error {}

/**
 * The plain value of `root` (same key text and same shared values for aliases as `toJS()`), with the problems
 * `toJS()` would hide reported instead: tags outside the core schema, keys that repeat (compared as the
 * JavaScript keys they become, so `1:` and `"1":` collide too), keys that are lists or mappings, aliases inside
 * their own anchor, and aliases past the policy's budget.
 */
export function toPlain(
  root: unknown,
  policy: AliasPolicy,
  report: (node: YamlNode, problem: WalkProblem) => void,
): { value: unknown; aliases: Map<Alias, YamlNode> } {
  const aliases = resolveAliases(root);
  const anchors = new Map<YamlNode, AnchorData>();
  const converting = new Set<YamlNode>();
  let aliasUses = 0;
  // The expanded size of everything converted so far (aliases charged what they stand for), and the part of it
  // that alias uses added: the difference of `size` around a node is that node's expanded size.
  let size = 0;
  let aliasSize = 0;
  const stop = (node: YamlNode, problem: WalkProblem): never => {
    report(node, problem);
    throw new Stop();
  };

  // yaml's getAliasCount, with aliases resolved from the table above instead of by walking the document, and
  // an empty collection counted as one copy (yaml counts it as none, which let an alias tree of `[]` through).
  const aliasCount = (node: unknown): number => {
    if (isAlias(node)) {
      const target = aliases.get(node);
      const data = target && anchors.get(target);
      return data ? data.count * data.aliasCount : 0;
    }
    if (isCollection(node)) {
      let count = 0;
      for (const item of node.items as unknown[]) {
        const c = isPair(item) ? Math.max(aliasCount(item.key), aliasCount(item.value)) : aliasCount(item);
        if (c > count) count = c;
      }
      return Math.max(count, 1);
    }
    return 1;
  };

  const checkTag = (node: YamlNode): void => {
    const tag = node.tag;
    if (tag !== undefined && !CORE_TAGS.has(tag)) report(node, { kind: "tag", tag });
  };

  const keyText = (key: unknown): string => {
    if (key === null || key === undefined) return "";
    const node = isAlias(key) ? aliases.get(key) : key;
    if (isCollection(node)) stop(key as YamlNode, { kind: "collection-key", node });
    if (isScalar(node)) {
      checkTag(node);
      return node.value === null ? "" : String(node.value);
    }
    return String(node);
  };

  const convert = (node: unknown): unknown => {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = aliases.get(node);
      if (target === undefined) return stop(node, { kind: "no-anchor", name: node.source });
      if (converting.has(target)) return stop(node, { kind: "self-alias", name: node.source });
      if (policy.kind === "uses" && ++aliasUses > policy.maxUses) return stop(node, { kind: "alias-budget" });
      let data = anchors.get(target);
      if (data === undefined) {
        // A target the walk has not converted (an anchored key): convert it for its value and size only, since
        // the alias is charged below and the key itself is counted where it stands.
        const before = size;
        convert(target);
        size = before;
        data = anchors.get(target)!;
      }
      if (policy.kind === "expansion") {
        data.count += 1;
        if (data.aliasCount === 0) data.aliasCount = aliasCount(target);
        if (data.count * data.aliasCount > policy.maxCount) return stop(node, { kind: "alias-budget" });
      }
      size += data.size;
      aliasSize += data.size;
      if (aliasSize > policy.maxExpansion) return stop(node, { kind: "expansion-budget" });
      return data.res;
    }
    const yamlNode = node as YamlNode;
    // Every converted node is remembered under the "uses" policy (an alias may point at any of them); under
    // "expansion" only anchored ones, as toJS() does.
    const remembered =
      (isScalar(yamlNode) || isCollection(yamlNode)) && (policy.kind === "uses" || yamlNode.anchor)
        ? { count: 1, aliasCount: 0, res: undefined as unknown, size: 0 }
        : null;
    if (remembered) anchors.set(yamlNode, remembered);
    const start = size;
    size += 1;
    if (isScalar(yamlNode)) {
      checkTag(yamlNode);
      const value = (yamlNode as Scalar).value;
      if (typeof value === "string") size += value.length;
      if (remembered) {
        remembered.res = value;
        remembered.size = size - start;
      }
      return value;
    }
    if (isMap(yamlNode)) {
      checkTag(yamlNode);
      const out: Record<string, unknown> = {};
      if (remembered) remembered.res = out;
      converting.add(yamlNode);
      const seen = new Set<string>();
      for (const pair of yamlNode.items) {
        const key = keyText(pair.key);
        if (seen.has(key)) {
          report((pair.key as YamlNode | null) ?? yamlNode, { kind: "duplicate-key", key });
          continue;
        }
        seen.add(key);
        size += key.length;
        // Own, enumerable data properties even for "__proto__": the key stays data and never sets a prototype.
        Object.defineProperty(out, key, {
          value: convert(pair.value),
          writable: true,
          enumerable: true,
          configurable: true,
        });
      }
      converting.delete(yamlNode);
      if (remembered) remembered.size = size - start;
      return out;
    }
    if (isSeq(yamlNode)) {
      checkTag(yamlNode);
      const out: unknown[] = [];
      if (remembered) remembered.res = out;
      converting.add(yamlNode);
      for (const item of yamlNode.items) out.push(convert(item));
      converting.delete(yamlNode);
      if (remembered) remembered.size = size - start;
      return out;
    }
    return null;
  };

  let value: unknown = null;
  try {
    value = convert(root);
  } catch (error) {
    if (!(error instanceof Stop)) {
      if (error instanceof RangeError) report(root as YamlNode, { kind: "too-deep" });
      else throw error;
    }
  }
  return { value, aliases };
}

/** Each alias and the last node before it (in document order) with its anchor name, as YAML defines it. */
export function resolveAliases(root: unknown): Map<Alias, YamlNode> {
  const current = new Map<string, YamlNode>();
  const out = new Map<Alias, YamlNode>();
  // Pre-order, without recursion: children are pushed in reverse so they pop in document order.
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || node === undefined || typeof node !== "object") continue;
    if (isPair(node)) {
      stack.push(node.value, node.key);
      continue;
    }
    if (isAlias(node)) {
      const target = current.get(node.source);
      if (target !== undefined) out.set(node, target);
      continue;
    }
    if ((isScalar(node) || isCollection(node)) && node.anchor) current.set(node.anchor, node);
    if (isCollection(node)) {
      const items = node.items as unknown[];
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
    }
  }
  return out;
}
