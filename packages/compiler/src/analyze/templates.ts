/**
 * The template grammar: `{{input.a.b}}` and `{{secrets.NAME}}`, nothing else.
 *
 * `\{{` writes a literal `{{`; no other backslash sequence is special. Each `{{` ends at the first `}}` after
 * it, and whitespace inside the braces is trimmed. Input paths are identifiers only (no brackets, no dashes).
 */
import type { Template, TemplatePart, TemplateRef } from "@kervanc/runtime";
import { type Finding, type MessagesOf, report } from "../diagnostics/diagnostic.ts";

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
      /**
       * KV3001 or KV3002 at the spec path `[]` (the caller puts it at the template's path), with the refused
       * template's offset and length, and a fix when what was meant is clear.
       */
      readonly finding: Finding;
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
        const why = refusal(expression);
        return refused(report("KV3002", [], why.message, { offset: i, length: end + 2 - i }), why.meant);
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

function refused(finding: Finding, meant: string | undefined): ParsedTemplate {
  return {
    ok: false,
    finding: meant === undefined ? finding : { ...finding, fix: { description: `Write ${meant}`, replacement: meant } },
  };
}

/** `{{input.x}` or `{{input.x` : say what closes it, and where it probably ends. */
function unclosed(source: string, at: number): ParsedTemplate {
  const rest = source.slice(at + 2);
  const single = /^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}/.exec(rest);
  const quoted = JSON.stringify(source);
  if (single) {
    const meant = `{{${single[1]!}}}`;
    return refused(
      report("KV3001", [], (m) => m.singleBrace({ source: quoted, meant }), {
        offset: at,
        length: single[0].length + 2,
      }),
      meant,
    );
  }
  return refused(
    report("KV3001", [], (m) => m.unclosed({ source: quoted }), { offset: at, length: source.length - at }),
    undefined,
  );
}

/** Why an expression between `{{ }}` is refused (one KV3002 message per reason), and what was probably meant. */
function refusal(expression: string): { message: (m: MessagesOf<"KV3002">) => string; meant?: string } {
  const e = { expression };
  if (expression === "") return { message: (m) => m.emptyBraces(e) };
  if (expression.startsWith("{") || expression.endsWith("}")) {
    const inner = expression.replace(/^\{+\s*/, "").replace(/\s*\}+$/, "");
    if (!parseRef(inner)) return { message: (m) => m.tripleBraces(e) };
    const meant = `{{${inner}}}`;
    return { message: (m) => m.tripleBracesMeant({ expression, meant }), meant };
  }
  const split = /[.[]/.exec(expression);
  const head = split ? expression.slice(0, split.index) : expression;
  const tail = split ? expression.slice(split.index + (split[0] === "." ? 1 : 0)) : "";
  if (/[|(]/.test(expression)) return { message: (m) => m.filters(e) };
  if (/\s/.test(expression) || /[+*/%<>=!?:]/.test(expression)) return { message: (m) => m.expression(e) };
  if (/^(env|ENV|process\.env|environment|vars?|VARS?|Env)$/.test(head) || expression.startsWith("process.env.")) {
    const name = expression.startsWith("process.env.") ? expression.slice("process.env.".length) : tail;
    if (!IDENT.test(name)) return { message: (m) => m.environment(e) };
    const meant = `{{secrets.${name.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}}}`;
    return { message: (m) => m.environmentMeant({ expression, meant }), meant };
  }
  if (/^(secret|SECRETS|SECRET|Secrets|Secret|secrets_)$/.test(head) && tail !== "") {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(tail)) return { message: (m) => m.secretsPrefix(e) };
    const meant = `{{secrets.${tail.toUpperCase()}}}`;
    return { message: (m) => m.secretsPrefixMeant({ expression, meant }), meant };
  }
  if (head === "secrets") {
    if (/^[A-Za-z][A-Za-z0-9_]*$/.test(tail)) {
      const meant = `{{secrets.${tail.toUpperCase()}}}`;
      return { message: (m) => m.secretCase({ expression, name: JSON.stringify(tail), meant }), meant };
    }
    const bad = firstBad(tail, /[A-Z0-9_]/);
    return {
      message: (m) => m.secretCharacter({ expression, character: describeChar(bad.char), position: bad.index + 1 }),
    };
  }
  if (/^(inputs|Input|INPUT|Inputs|args|arguments|params|parameters|in|arg|param)$/.test(head) && tail !== "") {
    const fixed = `input.${tail}`;
    if (!INPUT_REF.test(fixed)) return { message: (m) => m.inputPrefix(e) };
    const meant = `{{${fixed}}}`;
    return { message: (m) => m.inputPrefixMeant({ expression, meant }), meant };
  }
  if (head === "input") {
    if (tail === "") return { message: (m) => m.inputWithoutPath(e) };
    const bad = firstBad(tail, /[A-Za-z0-9_.]/);
    if (bad.index >= 0) {
      const at = { expression, character: describeChar(bad.char), position: bad.index + 1 };
      if (bad.char === "[") return { message: (m) => m.inputBracket(at) };
      const renamed = JSON.stringify(tail.replace(/[^A-Za-z0-9_.]/g, "_"));
      return { message: (m) => m.inputCharacter({ ...at, renamed }) };
    }
    return { message: (m) => m.inputPathPart(e) };
  }
  if (IDENT.test(expression)) {
    const meant = /^[A-Z][A-Z0-9_]*$/.test(expression) ? `{{secrets.${expression}}}` : `{{input.${expression}}}`;
    return { message: (m) => m.withoutSource({ expression, meant }), meant };
  }
  return { message: (m) => m.other(e) };
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
  const reason = refusal(expression);
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
