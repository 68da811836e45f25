/**
 * The template grammar: `{{input.a.b}}` and `{{secrets.NAME}}`, nothing else.
 *
 * `\{{` writes a literal `{{`; no other backslash sequence is special. Each `{{` ends at the first `}}` after
 * it, and whitespace inside the braces is trimmed. Input paths are identifiers only (no brackets, no dashes).
 */
import type { Template, TemplatePart, TemplateRef } from "@kervanc/runtime";

export type ParsedTemplate =
  | {
      readonly ok: true;
      readonly template: Template;
      /** For each reference part, in order, the offset of its `{{` in the source (for positioning findings). */
      readonly refOffsets: readonly number[];
    }
  | { readonly ok: false; readonly message: string; readonly offset: number };

const INPUT_REF = /^input((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;
const SECRET_REF = /^secrets\.([A-Z][A-Z0-9_]*)$/;

export function parseTemplate(source: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const refOffsets: number[] = [];
  let text = "";
  let i = 0;
  const flush = (): void => {
    if (text !== "") parts.push({ kind: "text", text });
    text = "";
  };
  while (i < source.length) {
    if (source.startsWith("\\{{", i)) {
      text += "{{";
      i += 3;
      continue;
    }
    if (source.startsWith("{{", i)) {
      const end = source.indexOf("}}", i + 2);
      if (end < 0) return { ok: false, message: `Unclosed "{{" in ${JSON.stringify(source)}`, offset: i };
      const expression = source.slice(i + 2, end).trim();
      const ref = parseRef(expression);
      if (ref === null) {
        return {
          ok: false,
          message: `Unsupported template {{${expression}}}: only {{input.<field>}} and {{secrets.<NAME>}} are allowed`,
          offset: i,
        };
      }
      flush();
      parts.push({ kind: "ref", ref });
      refOffsets.push(i);
      i = end + 2;
      continue;
    }
    text += source[i];
    i++;
  }
  flush();
  return { ok: true, template: { parts }, refOffsets };
}

function parseRef(expression: string): TemplateRef | null {
  const input = INPUT_REF.exec(expression);
  if (input) return { kind: "input", path: input[1]!.slice(1).split(".") };
  const secret = SECRET_REF.exec(expression);
  if (secret) return { kind: "secret", name: secret[1]! };
  return null;
}

export function refsOf(template: Template): TemplateRef[] {
  return template.parts.flatMap((p) => (p.kind === "ref" ? [p.ref] : []));
}

export function refText(ref: TemplateRef): string {
  return ref.kind === "input" ? `{{input.${ref.path.join(".")}}}` : `{{secrets.${ref.name}}}`;
}

/**
 * Whether an input path names a declared property: `properties` is walked level by level, and the reference
 * is accepted at the first level that declares no `properties` (the schema does not constrain it further).
 */
export function inputPathDeclared(inputSchema: unknown, path: readonly string[]): boolean {
  let schema: unknown = inputSchema;
  for (const key of path) {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return true;
    const properties = (schema as Record<string, unknown>)["properties"];
    if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return true;
    if (!Object.hasOwn(properties, key)) return false;
    schema = (properties as Record<string, unknown>)[key];
  }
  return true;
}
