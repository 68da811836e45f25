/**
 * The JSON Schema of the spec format for editors (yaml-language-server, VS Code), generated from the shapes in
 * spec-format.ts, the same definition the structural checker uses.
 *
 * It is draft-07 because that is what yaml-language-server understands best. It gives completion, hover text
 * (the shapes' `doc`), and the structural rules a JSON Schema can state: strict objects, required fields,
 * lengths, patterns, ranges, enums and the two output forms. The rules it cannot state (visible text, templates,
 * URLs, secrets, JSON Schema limits, JMESPath) are left to `kervanc build`. The committed copy is
 * schema/kervan-spec.schema.json (`npm run docs` writes it; a test fails when it drifts).
 */
import { KERVANC_VERSION } from "../kervanc-package.ts";
import type { Shape } from "./shape.ts";
import { specShape } from "./spec-format.ts";

export type JsonSchema = { [key: string]: unknown };

const VISIBLE_NOTE = {
  line: "Visible single-line text: no control, format or separator characters (tabs and line breaks included).",
  multiline: "Visible text: no control, format or separator characters; tabs and line breaks are allowed.",
} as const;

export function editorSchema(): JsonSchema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    // The schema belongs to one kervanc version (the format's rules can tighten between versions); a URN names
    // it without claiming a web address nothing serves.
    $id: `urn:kervanc:${KERVANC_VERSION}:kervan-spec.schema.json`,
    title: "Kervan spec (format v1)",
    ...toSchema(specShape),
  };
}

/** The committed file's text: stable key order, two-space indentation, a final newline. */
export function renderEditorSchema(): string {
  return `${JSON.stringify(editorSchema(), null, 2)}\n`;
}

export function toSchema(shape: Shape): JsonSchema {
  const doc = (extra?: string): JsonSchema => {
    const text = [shape.doc, extra].filter((t): t is string => t !== undefined && t !== "").join(" ");
    return text === "" ? {} : { description: text };
  };
  switch (shape.kind) {
    case "string": {
      const out: JsonSchema = { type: "string", ...doc(shape.visible ? VISIBLE_NOTE[shape.visible] : undefined) };
      if (shape.enum) out["enum"] = [...shape.enum];
      if (shape.min !== undefined && shape.min > 0) out["minLength"] = shape.min;
      if (shape.max !== undefined && Number.isSafeInteger(shape.max) && shape.max < Number.MAX_SAFE_INTEGER)
        out["maxLength"] = shape.max;
      if (shape.pattern) out["pattern"] = shape.pattern.source;
      return out;
    }
    case "integer":
      return { type: "integer", minimum: shape.min, maximum: shape.max, ...doc() };
    case "boolean":
      return { type: "boolean", ...doc() };
    case "literal":
      return { const: shape.value, ...doc() };
    case "scalar":
      return { type: ["string", "number", "boolean"], ...doc() };
    case "json":
      return { ...doc() };
    case "schema":
      return { type: "object", ...doc() };
    case "array": {
      const out: JsonSchema = { type: "array", ...doc(), items: toSchema(shape.items) };
      if (shape.min !== undefined) out["minItems"] = shape.min;
      if (shape.max !== undefined) out["maxItems"] = shape.max;
      return out;
    }
    case "record":
      return { type: "object", ...doc(), additionalProperties: toSchema(shape.values) };
    case "object": {
      const fields = shape.fields as Record<string, { shape: Shape; required: boolean }>;
      const properties: JsonSchema = {};
      for (const [name, field] of Object.entries(fields)) properties[name] = toSchema(field.shape);
      const required = Object.entries(fields)
        .filter(([, f]) => f.required)
        .map(([name]) => name);
      return {
        type: "object",
        ...doc(),
        properties,
        ...(required.length > 0 ? { required } : {}),
        additionalProperties: false,
      };
    }
    case "union": {
      const options = (shape.options as readonly Shape[]).map(toSchema);
      if (options.length === 1) return { ...options[0], ...doc() };
      return { ...doc(), oneOf: options };
    }
  }
}
