/**
 * The structural check: a parsed YAML value against the spec format's shapes.
 *
 * Every object is strict (unknown fields are errors), every limit is checked, and every problem is reported;
 * the walk never stops at the first one. The walk only descends where the format has structure: `input`,
 * `output.schema` and `body` are opaque JSON here and get their own checks.
 */
import { type Finding, finding, type SpecPath } from "../diagnostics/diagnostic.ts";
import type { Shape } from "./shape.ts";
import { visibleTextProblem } from "./visible-text.ts";

export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return "nothing (an empty value)";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return `a string`;
  if (typeof v === "number") return Number.isInteger(v) ? `the number ${v}` : `the number ${v}`;
  if (typeof v === "boolean") return `${v}`;
  return typeof v;
}

/** Names quoted for a message, with hidden characters made visible. */
export function quoteName(name: string): string {
  return JSON.stringify(name).replace(/[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function checkShape(value: unknown, shape: Shape, path: SpecPath, out: Finding[]): void {
  switch (shape.kind) {
    case "string": {
      if (typeof value !== "string") {
        const hint = typeof value === "number" ? ` YAML reads ${String(value)} as a number; quote it: "${String(value)}".` : "";
        out.push(finding("KV2003", path, `Expected a string, got ${describeValue(value)}.${hint}`));
        return;
      }
      if (shape.min !== undefined && value.length < shape.min) {
        out.push(finding("KV2004", path, shape.min === 1 ? "The value must not be empty." : `The value must have at least ${shape.min} characters.`));
      }
      if (shape.max !== undefined && value.length > shape.max) {
        out.push(finding("KV2004", path, `The value has ${value.length} characters; at most ${shape.max} are allowed.`));
      }
      if (shape.pattern && !new RegExp(shape.pattern.source, "u").test(value)) {
        out.push(finding("KV2005", path, `${quoteName(value)} is not valid here. ${shape.pattern.message}`));
      }
      if (shape.enum && !shape.enum.includes(value)) {
        out.push(finding("KV2005", path, `${quoteName(value)} is not one of ${shape.enum.join(", ")}.`));
      }
      if (shape.visible) {
        const problem = visibleTextProblem(value, shape.visible);
        if (problem) out.push(finding("KV2010", path, `The text ${problem.message}`, { offset: problem.offset }));
      }
      return;
    }
    case "integer":
      if (typeof value !== "number") out.push(finding("KV2003", path, `Expected a whole number, got ${describeValue(value)}.`));
      else if (!Number.isInteger(value) || value < shape.min || value > shape.max) {
        out.push(finding("KV2006", path, `Expected a whole number from ${shape.min} to ${shape.max}, got ${value}.`));
      }
      return;
    case "boolean":
      if (typeof value !== "boolean") out.push(finding("KV2003", path, `Expected true or false, got ${describeValue(value)}.`));
      return;
    case "literal":
      if (value !== shape.value) out.push(finding("KV2007", path, `${shape.message} Got ${describeValue(value)}.`));
      return;
    case "scalar":
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
        out.push(finding("KV2003", path, `Expected a string, number or boolean, got ${describeValue(value)}.`));
      }
      return;
    case "json":
      return;
    case "schema":
      if (!isPlainObject(value)) out.push(finding("KV2003", path, `Expected a JSON Schema (a mapping), got ${describeValue(value)}.`));
      return;
    case "array": {
      if (!Array.isArray(value)) {
        out.push(finding("KV2003", path, `Expected a list, got ${describeValue(value)}.`));
        return;
      }
      if (shape.min !== undefined && value.length < shape.min) {
        out.push(finding("KV2008", path, `The list needs at least ${shape.min} item${shape.min === 1 ? "" : "s"}.`));
      }
      if (shape.max !== undefined && value.length > shape.max) {
        out.push(finding("KV2008", path, `The list has ${value.length} items; at most ${shape.max} are allowed.`));
      }
      value.forEach((item, i) => checkShape(item, shape.items, [...path, i], out));
      return;
    }
    case "record": {
      if (!isPlainObject(value)) {
        out.push(finding("KV2003", path, `Expected a mapping (name: value), got ${describeValue(value)}.`));
        return;
      }
      for (const key of Object.keys(value)) checkShape(value[key], shape.values, [...path, key], out);
      return;
    }
    case "object": {
      if (!isPlainObject(value)) {
        out.push(finding("KV2003", path, `Expected a mapping (key: value pairs), got ${describeValue(value)}.`));
        return;
      }
      const fields = shape.fields as Record<string, { shape: Shape; required: boolean }>;
      const known = Object.keys(fields);
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(fields, key)) continue;
        if (key === "<<") {
          out.push(finding("KV2013", [...path, key], "YAML merge keys (<<) are not applied in a spec (YAML 1.2); write the fields out.", { atKey: true }));
        } else {
          out.push(finding("KV2001", [...path, key], `Unknown field ${quoteName(key)}.${suggest(key, known)} Allowed here: ${known.join(", ")}.`, { atKey: true }));
        }
      }
      for (const key of known) {
        const field = fields[key]!;
        if (!Object.hasOwn(value, key) || value[key] === undefined) {
          if (field.required) out.push(finding("KV2002", path, `Missing required field "${key}".`));
          continue;
        }
        checkShape(value[key], field.shape, [...path, key], out);
      }
      return;
    }
    case "union": {
      const picked = shape.pick(value);
      if ("kind" in picked) checkShape(value, picked as Shape, path, out);
      else out.push(finding(picked.code ?? "KV2003", path, picked.message));
      return;
    }
  }
}

/** A "did you mean" for a mistyped field name: the known name at edit distance 1 or 2, if exactly one. */
function suggest(key: string, known: readonly string[]): string {
  const close = known.filter((k) => editDistance(k.toLowerCase(), key.toLowerCase()) <= 2);
  return close.length === 1 ? ` Did you mean "${close[0]}"?` : "";
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
