/**
 * The structural check: a parsed YAML value against the spec format's shapes.
 *
 * Every object is strict (unknown fields are errors), every limit is checked, and every problem is reported;
 * the walk never stops at the first one. The walk only descends where the format has structure: `input`,
 * `output.schema` and `body` are opaque JSON here and get their own checks.
 */
import {
  type Finding,
  formatPath,
  type MessagesOf,
  messagesOf,
  report,
  sentences,
  type SpecPath,
} from "../diagnostics/diagnostic.ts";
import type { Shape } from "./shape.ts";
import { closest } from "./suggest.ts";
import { visibleTextProblem } from "./visible-text.ts";

export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return "nothing (an empty value)";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return v.length <= 40 ? `the string ${quoteName(v)}` : "a string";
  if (typeof v === "number") return `the number ${String(v)}`;
  if (typeof v === "boolean") return `${v}`;
  return typeof v;
}

/** Names quoted for a message, with hidden characters made visible. */
export function quoteName(name: string): string {
  return JSON.stringify(name).replace(
    /[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

/** A mapping with many unknown fields is probably not a spec at all; list the first ones only. */
const MAX_UNKNOWN_FIELDS = 10;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export interface ShapeContext {
  /** The source text of the scalar at a path, as written in the file (`1.0` where YAML read the number 1). */
  readonly sourceOf?: (path: SpecPath) => string | undefined;
  /** The mapping one level up, for "this key belongs one level up" (set by the walk, not by callers). */
  readonly parent?: { readonly fields: Record<string, { shape: Shape; required: boolean }>; readonly path: SpecPath };
}

/** The fields of an object shape, unwrapping a union whose alternatives are objects (the first that has them). */
function objectFields(shape: Shape): Record<string, { shape: Shape; required: boolean }> | undefined {
  return shape.kind === "object" ? (shape.fields as Record<string, { shape: Shape; required: boolean }>) : undefined;
}

/**
 * A key that is unknown here but a field one level down (`timeoutMs` at tool level, which belongs under `http`)
 * or one level up: where it belongs, with its full path.
 */
function otherLevel(
  key: string,
  fields: Record<string, { shape: Shape; required: boolean }>,
  parent: ShapeContext["parent"],
  path: SpecPath,
): ((m: MessagesOf<"KV2001">) => string) | undefined {
  const below = Object.entries(fields).flatMap(([name, field]) => {
    const inner = objectFields(field.shape);
    if (!inner) return [];
    const match = Object.hasOwn(inner, key) ? key : closest(key, Object.keys(inner));
    return match !== undefined ? [`${name}.${match}`] : [];
  });
  if (below.length === 1) {
    const [where] = below;
    const field = where!;
    const to = formatPath([...path, ...field.split(".")]);
    return (m) => m.movedDown({ field, path: to });
  }
  if (parent) {
    const match = Object.hasOwn(parent.fields, key) ? key : closest(key, Object.keys(parent.fields));
    if (
      match !== undefined &&
      !(parent.fields[match]!.shape.kind === "object" && path.length > 0 && path[path.length - 1] === match)
    ) {
      const to = formatPath([...parent.path, match]) || match;
      return (m) => m.movedUp({ field: match, path: to });
    }
  }
  return undefined;
}

export function checkShape(value: unknown, shape: Shape, path: SpecPath, out: Finding[], ctx: ShapeContext = {}): void {
  // Below a record or list the mapping one level up is not the parent of a key; only objects set it.
  const recurse = (v: unknown, s: Shape, p: SpecPath): void =>
    checkShape(v, s, p, out, { ...(ctx.sourceOf ? { sourceOf: ctx.sourceOf } : {}) });
  switch (shape.kind) {
    case "string": {
      if (typeof value !== "string") {
        out.push(
          report("KV2003", path, (m) => {
            const got = describeValue(value);
            const quote = quoteHint(value, path, ctx);
            return quote ? m.notStringQuote({ got, ...quote }) : m.notString({ got });
          }),
        );
        return;
      }
      const { min, max, pattern, enum: allowed } = shape;
      if (min !== undefined && value.length < min) {
        out.push(report("KV2004", path, (m) => (min === 1 ? m.empty : m.tooShort({ min }))));
      }
      if (max !== undefined && value.length > max) {
        out.push(report("KV2004", path, (m) => m.tooLong({ length: value.length, max })));
      }
      if (pattern && !new RegExp(pattern.source, "u").test(value)) {
        out.push(report("KV2005", path, (m) => m[pattern.rule]({ value: quoteName(value) })));
      }
      if (allowed && !allowed.includes(value)) {
        out.push(report("KV2005", path, (m) => m.notInEnum({ value: quoteName(value), allowed: allowed.join(", ") })));
      }
      if (shape.visible) {
        const problem = visibleTextProblem(value, shape.visible);
        if (problem) {
          const lineBreak = shape.visible === "line" && (problem.codePoint === 0x0a || problem.codePoint === 0x09);
          out.push(
            report(
              "KV2010",
              path,
              (m) => (lineBreak ? m.hiddenLineBreak({ code: problem.code }) : m.hidden({ code: problem.code })),
              { offset: problem.offset },
            ),
          );
        }
      }
      return;
    }
    case "integer":
      if (typeof value !== "number")
        out.push(report("KV2003", path, (m) => m.notInteger({ got: describeValue(value) })));
      else if (!Number.isInteger(value) || value < shape.min || value > shape.max) {
        out.push(report("KV2006", path, (m) => m.range({ min: shape.min, max: shape.max, got: value })));
      }
      return;
    case "boolean":
      if (typeof value !== "boolean")
        out.push(report("KV2003", path, (m) => m.notBoolean({ got: describeValue(value) })));
      return;
    case "literal":
      if (value !== shape.value) out.push(report("KV2007", path, (m) => m[shape.rule]({ got: describeValue(value) })));
      return;
    case "scalar":
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
        out.push(report("KV2003", path, (m) => m.notScalar({ got: describeValue(value) })));
      }
      return;
    case "json":
      return;
    case "schema":
      if (!isPlainObject(value)) out.push(report("KV2003", path, (m) => m.notSchema({ got: describeValue(value) })));
      return;
    case "array": {
      if (!Array.isArray(value)) {
        out.push(report("KV2003", path, (m) => m.notList({ got: describeValue(value) })));
        return;
      }
      const { min, max } = shape;
      if (min !== undefined && value.length < min) {
        out.push(report("KV2008", path, (m) => m.tooFew({ min, items: min === 1 ? "item" : "items" })));
      }
      if (max !== undefined && value.length > max) {
        out.push(report("KV2008", path, (m) => m.tooMany({ length: value.length, max })));
      }
      // Items past the maximum are already wrong; checking them too would only bury the list's own problem.
      value.slice(0, shape.max ?? value.length).forEach((item, i) => recurse(item, shape.items, [...path, i]));
      return;
    }
    case "record": {
      if (!isPlainObject(value)) {
        out.push(report("KV2003", path, (m) => m.notRecord({ got: describeValue(value) })));
        return;
      }
      for (const key of Object.keys(value)) {
        if (key === "<<") out.push(report("KV2013", [...path, key], (m) => m.mergeKeyEntries, { atKey: true }));
        else recurse(value[key], shape.values, [...path, key]);
      }
      return;
    }
    case "object": {
      if (!isPlainObject(value)) {
        out.push(report("KV2003", path, (m) => m.notObject({ got: describeValue(value) })));
        return;
      }
      const fields = shape.fields as Record<string, { shape: Shape; required: boolean }>;
      const known = Object.keys(fields);
      const unknown = Object.keys(value).filter((key) => !Object.hasOwn(fields, key));
      // A misspelled required field is one problem: the unknown key names its fix, and "missing" is not repeated.
      const missing = known.filter(
        (key) => fields[key]!.required && (!Object.hasOwn(value, key) || value[key] === undefined),
      );
      const explained = new Set<string>();
      unknown.slice(0, MAX_UNKNOWN_FIELDS).forEach((key, i) => {
        // The last one listed says how many are not.
        const more =
          i === MAX_UNKNOWN_FIELDS - 1 && unknown.length > MAX_UNKNOWN_FIELDS ? unknown.length - MAX_UNKNOWN_FIELDS : 0;
        if (key === "<<") {
          out.push(
            report(
              "KV2013",
              [...path, key],
              (m) => sentences(m.mergeKeyFields, more > 0 && m.moreNotListed({ count: more })),
              { atKey: true },
            ),
          );
          return;
        }
        const required = closest(
          key,
          missing.filter((m) => !explained.has(m)),
        );
        if (required !== undefined) {
          explained.add(required);
          out.push(
            report(
              "KV2001",
              [...path, key],
              (m) =>
                sentences(
                  m.missingRequired({ key: quoteName(key), required }),
                  more > 0 && m.moreNotListed({ count: more }),
                ),
              {
                atKey: true,
                fix: { description: `Rename the key to ${required}`, replacement: required },
              },
            ),
          );
          return;
        }
        const close = closest(key, known);
        if (close !== undefined) {
          out.push(
            report(
              "KV2001",
              [...path, key],
              (m) =>
                sentences(
                  m.didYouMean({ key: quoteName(key), close, allowed: known.join(", ") }),
                  more > 0 && m.moreNotListed({ count: more }),
                ),
              { atKey: true, fix: { description: `Rename the key to ${close}`, replacement: close } },
            ),
          );
          return;
        }
        const moved = otherLevel(key, fields, ctx.parent, path);
        out.push(
          report(
            "KV2001",
            [...path, key],
            (m) =>
              sentences(
                m.unknown({ key: quoteName(key) }),
                moved?.(m),
                m.allowedHere({ allowed: known.join(", ") }),
                more > 0 && m.moreNotListed({ count: more }),
              ),
            { atKey: true, ...(moved ? { fix: { description: moved(messagesOf("KV2001")) } } : {}) },
          ),
        );
      });
      for (const key of known) {
        const field = fields[key]!;
        if (!Object.hasOwn(value, key) || value[key] === undefined) {
          if (field.required && !explained.has(key)) out.push(report("KV2002", path, (m) => m.missing({ key })));
          continue;
        }
        checkShape(value[key], field.shape, [...path, key], out, { ...ctx, parent: { fields, path } });
      }
      return;
    }
    case "union": {
      const picked = shape.pick(value);
      if (typeof picked === "function") out.push(picked(path));
      else recurse(value, picked, path);
      return;
    }
  }
}

/**
 * YAML reads `1.0` as a number and `true` as a boolean; say what was written and how to quote it. The source
 * text shows what the user typed (`1.0`), not what YAML made of it (`1`).
 */
/** How YAML read a number or boolean that was probably meant as text: what was written and what it became. */
function quoteHint(value: unknown, path: SpecPath, ctx: ShapeContext): { text: string; as: string } | null {
  if (typeof value !== "number" && typeof value !== "boolean") return null;
  const written = ctx.sourceOf?.(path)?.trim();
  const text = written !== undefined && written !== "" && !/^[!&*]|[\n"\\]/.test(written) ? written : String(value);
  const as =
    typeof value === "number"
      ? text === String(value)
        ? "a number"
        : `the number ${String(value)}`
      : `the boolean ${String(value)}`;
  return { text, as };
}
