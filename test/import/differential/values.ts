/**
 * Deterministic example values from a JSON Schema (or an OpenAPI 3.0/3.1 schema object, `$ref`s resolved against
 * the document): the answers the recording upstream gives, and tool arguments from each tool's input schema.
 * Every string and number is distinct within one value (`id-3`, `name-4`, 1003), so a check can find each one in
 * what the model got back. Optional properties are filled too (unless `optional: false`), so optional query
 * parameters, headers and body fields are sent.
 */

export type Schema = Record<string, any>;

export interface ValueOptions {
  /** Resolves a `$ref` (OpenAPI documents); tool input schemas have none. */
  readonly resolve?: (ref: string) => Schema;
  /** Fill optional properties too (default true). */
  readonly optional?: boolean;
  /** Items per array (default 2, within minItems/maxItems). */
  readonly items?: number;
  /** Leave out readOnly properties (request) or writeOnly ones (response). */
  readonly mode: "request" | "response";
  /** Which branch of each `oneOf`/`anyOf` to take first (default 0). */
  readonly branch?: number;
  /** Properties deeper than this are filled only when required (default 5). */
  readonly depth?: number;
}

const MISSING = Symbol("missing");

export function exampleOf(schema: unknown, options: ValueOptions): unknown {
  let counter = 0;
  const next = (): number => ++counter;
  const out = gen(schema, options, 0, [], "value", next);
  return out === MISSING ? null : out;
}

/** Merges `allOf` branches (resolved) into one schema: properties, required, type and the first of the rest. */
export function flatten(schema: Schema, resolve: ((ref: string) => Schema) | undefined, stack: string[] = []): Schema {
  if (typeof schema !== "object" || schema === null) return {};
  if (typeof schema["$ref"] === "string" && resolve !== undefined) {
    if (stack.includes(schema["$ref"])) return {};
    return flatten(resolve(schema["$ref"]), resolve, [...stack, schema["$ref"]]);
  }
  if (!Array.isArray(schema["allOf"])) return schema;
  const merged: Schema = { ...schema };
  delete merged["allOf"];
  for (const branch of schema["allOf"] as Schema[]) {
    const b = flatten(branch, resolve, stack);
    for (const [k, v] of Object.entries(b)) {
      if (k === "properties") merged["properties"] = { ...merged["properties"], ...v };
      else if (k === "required") merged["required"] = [...new Set([...(merged["required"] ?? []), ...v])];
      else if (!(k in merged)) merged[k] = v;
    }
  }
  return merged;
}

function typesOf(s: Schema): string[] {
  const t = s["type"];
  if (Array.isArray(t)) return t.filter((x) => x !== "null");
  if (typeof t === "string") return t === "null" ? [] : [t];
  if (s["properties"] !== undefined || s["additionalProperties"] !== undefined) return ["object"];
  if (s["items"] !== undefined) return ["array"];
  return [];
}

const STRING_CANDIDATES = [
  "abc",
  "ABC",
  "a1",
  "123",
  "C1234567890",
  "2026-01-02",
  "2026-01-02T03:04:05Z",
  "a",
  "1",
  "USD",
  "usd",
  "en-US",
  "#ff0000",
  "ff0000",
  "0",
  "x@example.com",
  "https://example.com/a",
  "00000000-0000-4000-8000-000000000001",
  "abc-def",
  "abc_def",
];

function stringValue(s: Schema, name: string, n: number): string {
  const format = s["format"];
  let value: string;
  switch (format) {
    case "date-time":
      value = `2026-01-${String((n % 27) + 1).padStart(2, "0")}T03:04:05Z`;
      break;
    case "date":
      value = `2026-01-${String((n % 27) + 1).padStart(2, "0")}`;
      break;
    case "email":
      value = `user${n}@example.com`;
      break;
    case "uri":
    case "url":
    case "uri-reference":
      value = `https://example.com/${name}/${n}`;
      break;
    case "uuid":
      value = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
      break;
    case "ipv4":
      value = `192.0.2.${n % 250}`;
      break;
    case "ipv6":
      value = `2001:db8::${n}`;
      break;
    case "hostname":
      value = `host${n}.example.com`;
      break;
    case "byte":
    case "binary":
      value = Buffer.from(`bytes-${n}`).toString("base64");
      break;
    case "time":
      value = "03:04:05";
      break;
    default:
      if (/content_?type$/i.test(name)) return "text/plain";
      if (/_base64$/.test(name)) return Buffer.from(`file ${n}`).toString("base64");
      value = `${name.replace(/[^A-Za-z0-9]/g, "").slice(0, 20) || "v"}-${n}`;
  }
  if (typeof s["pattern"] === "string") {
    let re: RegExp | null = null;
    try {
      re = new RegExp(s["pattern"], "u");
    } catch {
      re = null;
    }
    if (re !== null && !re.test(value)) {
      const found = STRING_CANDIDATES.find((c) => re.test(c) && fits(c, s));
      if (found !== undefined) return found;
      const made = fromPattern(s["pattern"]);
      if (made !== null && re.test(made)) return made;
    }
  }
  const min = typeof s["minLength"] === "number" ? s["minLength"] : 0;
  const max = typeof s["maxLength"] === "number" ? s["maxLength"] : Infinity;
  if (value.length < min) value = value + "x".repeat(min - value.length);
  if (value.length > max) value = value.slice(value.length - max);
  return value;
}

/**
 * A string a simple regular expression matches: literals, escapes (\\d \\w), classes, groups with alternatives
 * (the first taken), and quantifiers (the least count, at least one for `+`). Null for what it cannot read.
 */
export function fromPattern(pattern: string): string | null {
  let i = 0;
  const src = pattern;
  const alternatives = (): string | null => {
    const first = sequence();
    while (src[i] === "|") {
      i++;
      sequence();
    }
    return first;
  };
  const sequence = (): string | null => {
    let out = "";
    while (i < src.length && src[i] !== "|" && src[i] !== ")") {
      let atom: string | null;
      const c = src[i]!;
      if (c === "^" || c === "$") {
        i++;
        continue;
      }
      if (c === "(") {
        i++;
        if (src.startsWith("?:", i)) i += 2;
        atom = alternatives();
        if (src[i] !== ")") return null;
        i++;
      } else if (c === "[") {
        const end = src.indexOf("]", i + 1);
        if (end < 0) return null;
        const body = src.slice(i + 1, end);
        i = end + 1;
        if (body.startsWith("^")) atom = "x";
        else if (body.startsWith("\\d")) atom = "1";
        else if (body.startsWith("\\w")) atom = "a";
        else atom = body[0] === "\\" ? (body[1] ?? "a") : (body[0] ?? "a");
      } else if (c === "\\") {
        const e = src[i + 1] ?? "";
        i += 2;
        atom = e === "d" ? "1" : e === "w" ? "a" : e === "s" ? " " : /[A-Za-z]/.test(e) ? null : e;
      } else if (c === ".") {
        i++;
        atom = "a";
      } else {
        i++;
        atom = c;
      }
      if (atom === null) return null;
      let count = 1;
      const q = src[i];
      if (q === "*" || q === "?") {
        count = 0;
        i++;
      } else if (q === "+") i++;
      else if (q === "{") {
        const end = src.indexOf("}", i);
        const m = /^\{(\d+)(,\d*)?\}$/.exec(src.slice(i, end + 1));
        if (m === null) return null;
        count = Number(m[1]);
        i = end + 1;
      }
      if (src[i] === "?") i++;
      out += atom.repeat(count);
    }
    return out;
  };
  const out = alternatives();
  return i === src.length ? out : null;
}

function fits(c: string, s: Schema): boolean {
  return (
    (typeof s["minLength"] !== "number" || c.length >= s["minLength"]) &&
    (typeof s["maxLength"] !== "number" || c.length <= s["maxLength"])
  );
}

function numberValue(s: Schema, integer: boolean, n: number): number {
  let lo = -Infinity;
  let hi = Infinity;
  if (typeof s["minimum"] === "number") lo = s["minimum"];
  if (typeof s["exclusiveMinimum"] === "number") lo = Math.max(lo, s["exclusiveMinimum"] + (integer ? 1 : 0.5));
  if (s["exclusiveMinimum"] === true && typeof s["minimum"] === "number") lo = s["minimum"] + (integer ? 1 : 0.5);
  if (typeof s["maximum"] === "number") hi = s["maximum"];
  if (typeof s["exclusiveMaximum"] === "number") hi = Math.min(hi, s["exclusiveMaximum"] - (integer ? 1 : 0.5));
  if (s["exclusiveMaximum"] === true && typeof s["maximum"] === "number") hi = s["maximum"] - (integer ? 1 : 0.5);
  let v = 1000 + n;
  if (v > hi) v = lo > -Infinity ? lo : hi;
  if (v < lo) v = lo;
  if (integer) v = Math.ceil(v);
  if (typeof s["multipleOf"] === "number" && s["multipleOf"] > 0) {
    v = Math.ceil(v / s["multipleOf"]) * s["multipleOf"];
    if (v > hi) v = Math.floor(hi / s["multipleOf"]) * s["multipleOf"];
  }
  return v;
}

function gen(raw: unknown, o: ValueOptions, depth: number, stack: string[], name: string, next: () => number): unknown {
  if (raw === true || raw === undefined || raw === null) return `${name}-${next()}`;
  if (raw === false || typeof raw !== "object") return MISSING;
  let s = raw as Schema;
  if (typeof s["$ref"] === "string" && o.resolve !== undefined) {
    const ref = s["$ref"];
    if (stack.filter((r) => r === ref).length >= 1) return MISSING;
    return gen(o.resolve(ref), o, depth, [...stack, ref], name, next);
  }
  if (Array.isArray(s["allOf"])) s = flatten(s, o.resolve, stack);
  if ("const" in s) return s["const"];
  if (Array.isArray(s["enum"])) {
    const v = (s["enum"] as unknown[]).find((e) => e !== null && e !== "");
    return v !== undefined ? v : s["enum"][0];
  }
  for (const key of ["oneOf", "anyOf"]) {
    const branches = s[key] as Schema[] | undefined;
    if (Array.isArray(branches) && branches.length > 0) {
      // The first branch that is not null and not an empty-string enum (Stripe's `anyOf: [..., enum: [""]]`).
      const rest: Schema = { ...s };
      delete rest[key];
      const k = Math.min(o.branch ?? 0, branches.length - 1);
      for (const branch of [...branches.slice(k), ...branches.slice(0, k)]) {
        const b = typeof branch["$ref"] === "string" && o.resolve ? o.resolve(branch["$ref"]) : branch;
        if (
          b["type"] === "null" ||
          (Array.isArray(b["enum"]) && b["enum"].every((e: unknown) => e === "" || e === null))
        )
          continue;
        const merged = Object.keys(rest).some((k) => k !== "description" && k !== "nullable")
          ? { allOf: [rest, branch] }
          : branch;
        const v = gen(merged, o, depth, stack, name, next);
        if (v !== MISSING) return v;
      }
      return gen(branches[0], o, depth, stack, name, next);
    }
  }
  const types = typesOf(s);
  const type = types[0];
  if (type === undefined) return `${name}-${next()}`;
  switch (type) {
    case "string":
      return stringValue(s, name, next());
    case "integer":
      return numberValue(s, true, next());
    case "number":
      return numberValue(s, false, next()) + (s["multipleOf"] === undefined ? 0.5 : 0);
    case "boolean":
      return true;
    case "array": {
      const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
      const max = typeof s["maxItems"] === "number" ? s["maxItems"] : Infinity;
      const count = Math.max(min, Math.min(max, o.items ?? 2));
      const out: unknown[] = [];
      const itemSchema = (Array.isArray(s["items"]) ? s["items"][0] : s["items"]) as Schema | undefined;
      const resolved =
        itemSchema && typeof itemSchema["$ref"] === "string" && o.resolve ? o.resolve(itemSchema["$ref"]) : itemSchema;
      for (let i = 0; i < count; i++) {
        if (resolved !== undefined && Array.isArray(resolved["enum"])) {
          const options = (resolved["enum"] as unknown[]).filter((e) => e !== null);
          if (i < options.length) out.push(options[i]);
          continue;
        }
        const v = gen(itemSchema, o, depth + 1, stack, name, next);
        if (v !== MISSING) out.push(v);
      }
      return out;
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(Array.isArray(s["required"]) ? s["required"] : []);
      const props = (s["properties"] ?? {}) as Record<string, Schema>;
      const fill = (o.optional ?? true) && depth < (o.depth ?? 5);
      for (const [key, sub] of Object.entries(props)) {
        if (!required.has(key) && !fill) continue;
        const resolved = typeof sub["$ref"] === "string" && o.resolve ? o.resolve(sub["$ref"]) : sub;
        if (o.mode === "request" && resolved?.["readOnly"] === true) continue;
        if (o.mode === "response" && resolved?.["writeOnly"] === true) continue;
        const v = gen(sub, o, depth + 1, stack, key, next);
        if (v === MISSING) {
          if (required.has(key)) out[key] = typesOf(flatten(resolved ?? {}, o.resolve))[0] === "array" ? [] : {};
          continue;
        }
        out[key] = v;
      }
      const extra = s["additionalProperties"];
      if (
        Object.keys(props).length === 0 &&
        typeof extra === "object" &&
        extra !== null &&
        Object.keys(extra as object).length > 0
      ) {
        for (const key of ["key_a", "key_b"]) {
          const v = gen(extra, o, depth + 1, stack, key, next);
          if (v !== MISSING) out[key] = v;
        }
      }
      return out;
    }
    default:
      return `${name}-${next()}`;
  }
}
