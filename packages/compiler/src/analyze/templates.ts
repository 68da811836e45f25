/**
 * The template grammar: `{{input.a.b}}` and `{{secrets.NAME}}`, nothing else.
 *
 * `\{{` writes a literal `{{`; no other backslash sequence is special. Each `{{` ends at the first `}}` after
 * it, and whitespace inside the braces is trimmed. Input paths are identifiers only (no brackets, no dashes).
 */
import type { Template, TemplatePart, TemplateRef } from "@kervanc/runtime";
import { CODES } from "../diagnostics/codes.ts";

export type ParsedTemplate =
  | {
      readonly ok: true;
      readonly template: Template;
      /** For each reference part, in order, the offset of its `{{` in the source (for positioning findings). */
      readonly refOffsets: readonly number[];
      /** For each reference part, how many characters it spans in the source, braces and inner spaces included. */
      readonly refLengths: readonly number[];
    }
  | {
      readonly ok: false;
      readonly code: "KV3001" | "KV3002";
      readonly message: string;
      readonly offset: number;
      /** How many characters the refused template spans (for the caret range). */
      readonly length: number;
      /** What was probably meant, as it should be written, when that is clear. */
      readonly replacement?: string;
    };

const INPUT_REF = /^input((?:\.[A-Za-z_][A-Za-z0-9_]*)+)$/;
const SECRET_REF = /^secrets\.([A-Z][A-Z0-9_]*)$/;
/** kervanc extension upstream-auth: `{{credentials.<name>}}` (analyze.ts refuses it unless the spec declares it). */
const CREDENTIAL_REF = /^credentials\.([A-Za-z_][A-Za-z0-9_]*)$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseTemplate(source: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  const refOffsets: number[] = [];
  const refLengths: number[] = [];
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
      if (end < 0) return unclosed(source, i);
      const expression = source.slice(i + 2, end).trim();
      const ref = parseRef(expression);
      if (ref === null) {
        const why = refusalReason(expression);
        return {
          ok: false,
          code: "KV3002",
          message: CODES.KV3002.messages.unsupported({
            expression,
            reason: why.reason,
            meant: why.meant ? ` Did you mean ${why.meant}?` : "",
          }),
          offset: i,
          length: end + 2 - i,
          ...(why.meant ? { replacement: why.meant } : {}),
        };
      }
      flush();
      parts.push({ kind: "ref", ref });
      refOffsets.push(i);
      refLengths.push(end + 2 - i);
      i = end + 2;
      continue;
    }
    text += source[i];
    i++;
  }
  flush();
  return { ok: true, template: { parts }, refOffsets, refLengths };
}

/** `{{input.x}` or `{{input.x` : say what closes it, and where it probably ends. */
function unclosed(source: string, at: number): ParsedTemplate {
  const rest = source.slice(at + 2);
  const single = /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}/.exec(rest);
  if (single) {
    const meant = `{{${single[1]!}}}`;
    return {
      ok: false,
      code: "KV3001",
      message: CODES.KV3001.messages.singleBrace({ source: JSON.stringify(source), meant }),
      offset: at,
      length: single[0].length + 2,
      replacement: meant,
    };
  }
  return {
    ok: false,
    code: "KV3001",
    message: CODES.KV3001.messages.unclosed({ source: JSON.stringify(source) }),
    offset: at,
    length: source.length - at,
  };
}

/** Why an expression between `{{ }}` is refused, and what was probably meant. */
export function refusalReason(expression: string): { reason: string; meant?: string } {
  const allowed = "only {{input.<field>}} and {{secrets.<NAME>}} are allowed.";
  if (expression === "") return { reason: `the braces are empty; ${allowed}` };
  if (expression.startsWith("{") || expression.endsWith("}")) {
    const inner = expression.replace(/^\{+\s*/, "").replace(/\s*\}+$/, "");
    return {
      reason: `a template has exactly two braces on each side (this is not Mustache's triple-brace form); ${allowed}`,
      ...(parseRef(inner) ? { meant: `{{${inner}}}` } : {}),
    };
  }
  const split = /[.[]/.exec(expression);
  const head = split ? expression.slice(0, split.index) : expression;
  const tail = split ? expression.slice(split.index + (split[0] === "." ? 1 : 0)) : "";
  if (/[|(]/.test(expression))
    return {
      reason: `templates have no filters, pipes or function calls (the value is inserted as it is, encoded for its place); ${allowed}`,
    };
  if (/\s/.test(expression) || /[+*/%<>=!?:]/.test(expression)) {
    return {
      reason: `a template holds one reference, with no spaces, operators or expressions inside (the value is inserted as it is); ${allowed}`,
    };
  }
  if (/^(env|ENV|process\.env|environment|vars?|VARS?|Env)$/.test(head) || expression.startsWith("process.env.")) {
    const name = expression.startsWith("process.env.") ? expression.slice("process.env.".length) : tail;
    const upper = name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
    return {
      reason: `a spec reads no environment variables in templates: declare the value in "secrets" and the server reads it from its environment at start.`,
      ...(IDENT.test(name) ? { meant: `{{secrets.${upper}}}` } : {}),
    };
  }
  if (/^(secret|SECRETS|SECRET|Secrets|Secret|secrets_)$/.test(head) && tail !== "") {
    return {
      reason: `the prefix is "secrets" (plural, lower case); ${allowed}`,
      ...(/^[A-Za-z][A-Za-z0-9_]*$/.test(tail) ? { meant: `{{secrets.${tail.toUpperCase()}}}` } : {}),
    };
  }
  if (head === "secrets") {
    if (/^[A-Za-z][A-Za-z0-9_]*$/.test(tail))
      return {
        reason: `secret names are upper-case letters, digits and "_" (as in the "secrets" list), so ${JSON.stringify(tail)} is not one.`,
        meant: `{{secrets.${tail.toUpperCase()}}}`,
      };
    const bad = firstBad(tail, /[A-Z0-9_]/);
    return {
      reason: `a secret name is upper-case letters, digits and "_"; ${describeChar(bad.char)} at character ${bad.index + 1} of the name is not allowed.`,
    };
  }
  if (/^(inputs|Input|INPUT|Inputs|args|arguments|params|parameters|in|arg|param)$/.test(head) && tail !== "") {
    const fixed = `input.${tail}`;
    return {
      reason: `the prefix is "input" (singular, lower case); ${allowed}`,
      ...(INPUT_REF.test(fixed) ? { meant: `{{${fixed}}}` } : {}),
    };
  }
  if (head === "input") {
    if (tail === "") return { reason: "name a property of the input: {{input.<field>}}." };
    const bad = firstBad(tail, /[A-Za-z0-9_.]/);
    if (bad.index >= 0) {
      const kind =
        bad.char === "["
          ? "brackets are not supported (a template names a property by a dotted path of identifiers)"
          : `input paths are identifiers (letters, digits and "_") joined by "."; a property whose name has ${describeChar(bad.char)} cannot be referenced: rename it (for example ${JSON.stringify(tail.replace(/[^A-Za-z0-9_.]/g, "_"))})`;
      return { reason: `${describeChar(bad.char)} at character ${bad.index + 1} of the path is not allowed: ${kind}.` };
    }
    return {
      reason: `each part of an input path is an identifier that starts with a letter or "_", with no empty parts; ${allowed}`,
    };
  }
  if (IDENT.test(expression)) {
    const meant = /^[A-Z][A-Z0-9_]*$/.test(expression) ? `{{secrets.${expression}}}` : `{{input.${expression}}}`;
    return {
      reason: `a template names its source: "input." for an argument or "secrets." for a secret; ${allowed}`,
      meant,
    };
  }
  return { reason: allowed };
}

function firstBad(text: string, ok: RegExp): { index: number; char: string } {
  for (let i = 0; i < text.length; i++) if (!ok.test(text[i]!)) return { index: i, char: text[i]! };
  return { index: -1, char: "" };
}

function describeChar(c: string): string {
  const names: Record<string, string> = {
    "-": 'the dash "-"',
    " ": "a space",
    "[": 'the bracket "["',
    "]": 'the bracket "]"',
    "/": 'the slash "/"',
  };
  return names[c] ?? JSON.stringify(c);
}

/** A piece of literal template text that looks like a template but is not one: it would be sent as written. */
export interface LookAlike {
  readonly offset: number;
  readonly length: number;
  readonly written: string;
  /** What was probably meant, as a template; absent when only a name check can tell. */
  readonly meant: string;
  /** Whether the text is almost certainly a mistake (`{input.q}`), or could be intended (`{id}`). */
  readonly certain: boolean;
  /** The bare name inside single braces (`{id}`), for the caller to compare with the input's properties. */
  readonly bareName?: string;
}

/**
 * Template look-alikes in the literal text of a template: `{input.q}`, `{secrets.X}`, `${X}`, `${input.q}`,
 * `{id}` (an OpenAPI path parameter). `{{...}}` templates and `\{{` escapes are skipped.
 */
export function findLookAlikes(source: string): LookAlike[] {
  const found: LookAlike[] = [];
  let i = 0;
  while (i < source.length) {
    if (source.startsWith("\\{{", i)) {
      i += 3;
      continue;
    }
    if (source.startsWith("{{", i)) {
      const end = source.indexOf("}}", i + 2);
      if (end < 0) break;
      i = end + 2;
      continue;
    }
    const dollar = source[i] === "$" ? /^\$\{\s*([^{}\s]+)\s*\}/.exec(source.slice(i)) : null;
    if (dollar) {
      const name = dollar[1]!;
      found.push({ offset: i, length: dollar[0].length, written: dollar[0], meant: meantFor(name), certain: true });
      i += dollar[0].length;
      continue;
    }
    const single = source[i] === "{" ? /^\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}/.exec(source.slice(i)) : null;
    if (single) {
      const name = single[1]!;
      const prefixed = /^(input|inputs|secrets?|env)\./i.test(name);
      found.push({
        offset: i,
        length: single[0].length,
        written: single[0],
        meant: meantFor(name),
        certain: prefixed,
        ...(prefixed ? {} : { bareName: name }),
      });
      i += single[0].length;
      continue;
    }
    i++;
  }
  return found;
}

function meantFor(name: string): string {
  const expression = `${name}`;
  if (parseRef(expression)) return `{{${expression}}}`;
  const reason = refusalReason(expression);
  if (reason.meant) return reason.meant;
  return /^[A-Z][A-Z0-9_]*$/.test(name) ? `{{secrets.${name}}}` : `{{input.${name}}}`;
}

export function refsOf(template: Template): TemplateRef[] {
  return template.parts.flatMap((p) => (p.kind === "ref" ? [p.ref] : []));
}

export function refText(ref: TemplateRef): string {
  return ref.kind === "input"
    ? `{{input.${ref.path.join(".")}}}`
    : ref.kind === "secret"
      ? `{{secrets.${ref.name}}}`
      : `{{credentials.${ref.name}}}`;
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

/**
 * The property names at the level where `path` leaves the declared properties, and that level's depth: for
 * `input.user.nmae`, the properties of `user` at depth 1. Undefined when the path is declared or unconstrained.
 */
export function propertiesAt(
  inputSchema: unknown,
  path: readonly string[],
): { depth: number; names: string[] } | undefined {
  let schema: unknown = inputSchema;
  for (let depth = 0; depth <= path.length; depth++) {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return undefined;
    const properties = (schema as Record<string, unknown>)["properties"];
    if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return undefined;
    if (depth === path.length || !Object.hasOwn(properties, path[depth]!))
      return { depth, names: Object.keys(properties) };
    schema = (properties as Record<string, unknown>)[path[depth]!];
  }
  return undefined;
}

function parseRef(expression: string): TemplateRef | null {
  const input = INPUT_REF.exec(expression);
  if (input) return { kind: "input", path: input[1]!.slice(1).split(".") };
  const secret = SECRET_REF.exec(expression);
  if (secret) return { kind: "secret", name: secret[1]! };
  const credential = CREDENTIAL_REF.exec(expression);
  if (credential) return { kind: "credential", name: credential[1]! };
  return null;
}
