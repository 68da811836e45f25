/**
 * Inputs for a JSON Schema that reach its checks: values built to fit the schema (from its own enums, consts,
 * examples, limits and property names), the same values broken in one place, and arbitrary JSON. Nothing here
 * decides whether a value is valid; a test compares two validators on them, so what matters is that many
 * different checks pass and fail. Seeded, so a failure reproduces.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = boolean | { readonly [key: string]: unknown };

/** A small seeded generator (mulberry32). */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

const STRINGS = [
  "",
  "a",
  "abc",
  "x".repeat(33),
  "y".repeat(260),
  "2024-01-31",
  "2024-02-30",
  "2024-01-31T10:00:00Z",
  "2024-01-31 10:00",
  "10:00:00Z",
  "P1D",
  "a@example.com",
  "not an email",
  "https://example.com/a?b=c",
  "/relative/path",
  "127.0.0.1",
  "999.1.1.1",
  "::1",
  "550e8400-e29b-41d4-a716-446655440000",
  "host.example",
  'quote"and\\backslash',
  "it's",
  "slash/tilde~",
  "é👩‍💻",
  "\u2028",
  "en",
  "de",
  "tr",
  "a_b,c",
  "UPPER",
];
const NUMBERS = [0, 1, -1, 0.5, 2, 3, 5, 7, 10, 32, 100, 1e6, 2147483647, 2147483648, -0.0001, 3.14159, 1e21];
const KEYS = ["extra", "x-a", "x-", "a/b", "~t", "", "constructor", 'q"k', "0"];

/** Every literal a schema mentions (enums, consts, examples, defaults, limits, property names), to build from. */
function harvest(schema: unknown, into: { strings: Set<string>; numbers: Set<number>; keys: Set<string> }): void {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === "string") into.strings.add(node);
    else if (typeof node === "number") {
      into.numbers.add(node);
      into.numbers.add(node + 1);
      into.numbers.add(node - 1);
      into.numbers.add(node + 0.5);
    } else if (Array.isArray(node)) stack.push(...node);
    else if (node !== null && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "properties" || key === "patternProperties" || key === "dependentRequired")
          for (const name of Object.keys(value as object)) into.keys.add(name);
        if (key === "pattern" || key === "$ref" || key === "$schema" || key === "$id") continue;
        stack.push(value);
      }
    }
  }
}

export class SampleMaker {
  readonly #root: Schema;
  readonly #rng: Rng;
  readonly #strings: string[];
  readonly #numbers: number[];
  readonly #keys: string[];

  constructor(root: Schema, rng: Rng) {
    this.#root = root;
    this.#rng = rng;
    const found = { strings: new Set<string>(), numbers: new Set<number>(), keys: new Set<string>() };
    harvest(root, found);
    this.#strings = [...STRINGS, ...found.strings];
    this.#numbers = [...NUMBERS, ...found.numbers];
    this.#keys = [...KEYS, ...found.keys];
  }

  /** `count` inputs: a third built to fit, a half of those broken in one or two places, the rest arbitrary. */
  samples(count: number): Json[] {
    const out: Json[] = [null, {}, [], "", 0, true];
    const fitting: Json[] = [];
    for (let i = 0; i < count / 3; i++) fitting.push(this.fit(this.#root, 0));
    out.push(...fitting);
    for (let i = 0; i < count / 2 && fitting.length > 0; i++) {
      let value = structuredClone(this.#rng.pick(fitting));
      value = this.#break(value);
      if (this.#rng.chance(0.4)) value = this.#break(value);
      out.push(value);
    }
    while (out.length < count) out.push(this.#any(3));
    return out;
  }

  /** A value meant to satisfy `schema` (it often will not: patterns and formats are not solved). */
  fit(schema: unknown, depth: number): Json {
    const rng = this.#rng;
    if (schema === true || schema === undefined) return this.#any(2);
    if (schema === false || schema === null || typeof schema !== "object" || Array.isArray(schema)) return this.#any(1);
    const s = schema as Record<string, unknown>;
    if (depth > 6) return null;
    if (typeof s["$ref"] === "string" && rng.chance(0.9)) return this.fit(this.#resolve(s["$ref"]), depth + 1);
    if ("const" in s && rng.chance(0.8)) return structuredClone(s["const"] as Json);
    if (Array.isArray(s["enum"]) && rng.chance(0.8)) return structuredClone(rng.pick(s["enum"] as Json[]));
    if (Array.isArray(s["examples"]) && s["examples"].length > 0 && rng.chance(0.3))
      return structuredClone(rng.pick(s["examples"] as Json[]));
    let value = this.#ofType(s, depth);
    for (const key of ["allOf", "anyOf", "oneOf"]) {
      const list = s[key];
      if (!Array.isArray(list) || list.length === 0) continue;
      const branches = key === "allOf" ? list : [rng.pick(list)];
      for (const branch of branches) value = merge(value, this.fit(branch, depth + 1));
    }
    if (s["if"] !== undefined) {
      const branch = rng.chance(0.5) ? s["then"] : s["else"];
      value = merge(merge(value, this.fit(s["if"], depth + 1)), this.fit(branch, depth + 1));
    }
    return value;
  }

  #ofType(s: Record<string, unknown>, depth: number): Json {
    const rng = this.#rng;
    const types = Array.isArray(s["type"]) ? (s["type"] as string[]) : typeof s["type"] === "string" ? [s["type"]] : [];
    const type =
      types.length > 0
        ? rng.pick(types)
        : s["properties"] || s["required"] || s["additionalProperties"] !== undefined
          ? "object"
          : s["items"] || s["prefixItems"]
            ? "array"
            : rng.pick(["object", "string", "number", "array"]);
    switch (type) {
      case "object": {
        const out: Record<string, Json> = {};
        const properties = (s["properties"] ?? {}) as Record<string, unknown>;
        const required = new Set(Array.isArray(s["required"]) ? (s["required"] as string[]) : []);
        for (const [name, sub] of Object.entries(properties))
          if (required.has(name) || rng.chance(0.6)) out[name] = this.fit(sub, depth + 1);
        for (const name of required) if (!(name in out)) out[name] = this.#any(1);
        const patterns = s["patternProperties"] as Record<string, unknown> | undefined;
        if (patterns && rng.chance(0.5)) {
          const [pattern, sub] = rng.pick(Object.entries(patterns));
          const key = this.#keys.find((k) => new RegExp(pattern, "u").test(k)) ?? rng.pick(this.#keys);
          out[key] = this.fit(sub, depth + 1);
        }
        const additional = s["additionalProperties"];
        if (additional !== undefined && additional !== false && rng.chance(0.3))
          out[rng.pick(this.#keys)] = this.fit(additional, depth + 1);
        const dependent = s["dependentRequired"] as Record<string, string[]> | undefined;
        if (dependent && rng.chance(0.7))
          for (const [name, needs] of Object.entries(dependent))
            if (name in out) for (const need of needs) out[need] ??= this.#any(1);
        // Now and then one member too many, so maxProperties is reached on purpose rather than by chance.
        const most = s["maxProperties"];
        if (typeof most === "number" && rng.chance(0.25))
          for (const key of this.#keys) if (Object.keys(out).length <= most) out[key] ??= this.#any(1);
        return out;
      }
      case "array": {
        const out: Json[] = [];
        const prefix = Array.isArray(s["prefixItems"]) ? (s["prefixItems"] as unknown[]) : [];
        for (const sub of prefix) if (rng.chance(0.9)) out.push(this.fit(sub, depth + 1));
        const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
        const n = Math.max(min, rng.int(4));
        for (let i = out.length; i < n; i++)
          out.push(s["items"] === false ? this.#any(1) : this.fit(s["items"] ?? s["contains"], depth + 1));
        return out;
      }
      case "string":
        return rng.pick(this.#strings);
      case "integer":
        return Math.round(rng.pick(this.#numbers));
      case "number":
        return rng.pick(this.#numbers);
      case "boolean":
        return rng.chance(0.5);
      case "null":
        return null;
      default:
        return this.#any(1);
    }
  }

  #resolve(ref: string): unknown {
    if (ref === "#") return this.#root;
    if (ref.startsWith("#/")) {
      let node: unknown = this.#root;
      for (const raw of ref.slice(2).split("/")) {
        const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
        node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
      }
      return node;
    }
    return true;
  }

  /** Arbitrary JSON, up to `depth` levels. */
  #any(depth: number): Json {
    const rng = this.#rng;
    switch (rng.int(depth > 0 ? 7 : 5)) {
      case 0:
        return null;
      case 1:
        return rng.chance(0.5);
      case 2:
        return rng.pick(this.#numbers);
      case 3:
      case 4:
        return rng.pick(this.#strings);
      case 5:
        return Array.from({ length: rng.int(4) }, () => this.#any(depth - 1));
      default:
        return Object.fromEntries(
          Array.from({ length: rng.int(4) }, () => [rng.pick(this.#keys), this.#any(depth - 1)]),
        );
    }
  }

  /** `value` with one node replaced, removed, added to or nudged. */
  #break(value: Json): Json {
    const rng = this.#rng;
    const nodes: { parent: Json[] | Record<string, Json> | null; key: string | number; node: Json }[] = [];
    const walk = (node: Json, parent: Json[] | Record<string, Json> | null, key: string | number): void => {
      nodes.push({ parent, key, node });
      if (Array.isArray(node)) node.forEach((child, i) => walk(child, node, i));
      else if (node !== null && typeof node === "object")
        for (const [k, child] of Object.entries(node)) walk(child, node, k);
    };
    walk(value, null, "");
    const target = rng.pick(nodes);
    const replace = (next: Json): Json => {
      if (target.parent === null) return next;
      (target.parent as Record<string | number, Json>)[target.key] = next;
      return value;
    };
    const node = target.node;
    switch (rng.int(5)) {
      case 0:
        return replace(this.#any(2));
      case 1:
        if (target.parent !== null && !Array.isArray(target.parent)) {
          delete target.parent[target.key as string];
          return value;
        }
        return replace(null);
      case 2:
        if (Array.isArray(node)) {
          if (node.length > 0 && rng.chance(0.5)) node.push(structuredClone(node[0]!));
          else node.push(this.#any(1));
          return value;
        }
        if (node !== null && typeof node === "object") {
          node[rng.pick(this.#keys)] = this.#any(1);
          return value;
        }
        return replace(this.#any(1));
      case 3:
        if (typeof node === "string")
          return replace(rng.pick(["", node.repeat(20), `${node}!`, rng.pick(this.#strings)]));
        if (typeof node === "number") return replace(rng.pick([node + 0.5, node * 1000, -node - 1, String(node)]));
        if (Array.isArray(node)) {
          node.pop();
          return value;
        }
        return replace(rng.pick(this.#strings));
      default:
        return replace(rng.pick([null, true, 1.5, "s", [], {}]));
    }
  }
}

/** Objects meet by taking both sides' members; anything else keeps the later value. */
function merge(a: Json, b: Json): Json {
  if (
    a !== null &&
    b !== null &&
    typeof a === "object" &&
    typeof b === "object" &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  )
    return { ...a, ...b };
  return b === undefined ? a : b;
}
