/**
 * How deep a YAML text nests, read before the YAML parser runs (yaml-source.ts). The parser recurses once per
 * level: past some 900 levels it runs out of stack, and on Node 20 a process that has parsed such files can die
 * instead ("RegExpCompiler Allocation failed", when a regular expression is first compiled with the stack nearly
 * spent), which would take `kervanc check` over a folder of hostile specs down with it. So nesting is measured
 * here, in one pass without recursion, and a text deeper than the limit never reaches the parser.
 *
 * Levels are counted as the parser builds them: each flow `[` or `{`, and each block collection, by its
 * indentation (a mapping at the column of its first key, a sequence at the column of its `-`, with compact forms
 * such as `- - x` and `- a: x` counting a level each). What is not structure is skipped, so it cannot raise the
 * count: comments, quoted scalars (over several lines too), block scalars (`|`, `>`) by their indentation, and
 * plain scalars, whose brackets in block context are text (`url: https://x/{{input.id}}`) and whose continuation
 * lines are text. Where the reading is uncertain it counts fewer levels rather than more: a valid file must never be
 * refused, and the parser's own stack check stays behind this one.
 */

/** What the scan found: the deepest level and where the nesting first reached `pointAt` levels. */
export interface NestingScan {
  /** Whether the text nests deeper than `max` (the scan stopped there). */
  readonly tooDeep: boolean;
  /**
   * Where to point at for a text that nests too deeply: the first flow bracket at flow depth `pointAt` (as the
   * parser's stack check has always pointed), else the first node at total depth `pointAt`, else 0.
   */
  readonly offset: number;
}

const SPACE = (c: string | undefined): boolean => c === " " || c === "\t";
const BREAK_OR_END = (c: string | undefined): boolean => c === undefined || c === "\n" || c === "\r";
const BLANK = (c: string | undefined): boolean => SPACE(c) || BREAK_OR_END(c);
/** A mapping indicator: ":" before a space or the line's end. */
const KEY_INDICATOR = /:(?:[ \t\r]|$)/;
const FLOW_INDICATOR = (c: string | undefined): boolean =>
  c === "," || c === "[" || c === "]" || c === "{" || c === "}";

/**
 * Scans `text` for nesting deeper than `max` levels. `pointAt` (at most `max`) is the depth whose first place the
 * result points at.
 */
export function scanNesting(text: string, max: number, pointAt: number): NestingScan {
  const n = text.length;
  /** Columns of the open block collections, innermost last. */
  const stack: number[] = [];
  let flow = 0;
  let flowPoint = -1;
  let totalPoint = -1;
  /** A quoted scalar open across lines. */
  let quote: '"' | "'" | null = null;
  /** A block scalar: the indentation of its parent, and of its content once known. */
  let blockScalar: { parent: number; indent: number | null } | null = null;
  /** A plain scalar in block context that more-indented lines continue. */
  let plainParent: number | null = null;
  /** Whether a node may start here: at a line's start in block context, after `[`, `,`, `- `, `key: `, ... */
  let nodeStart = true;

  const deeper = (offset: number): boolean => {
    const depth = stack.length + flow;
    if (depth >= pointAt && totalPoint < 0) totalPoint = offset;
    return depth > max;
  };
  const result = (tooDeep: boolean): NestingScan => ({
    tooDeep,
    offset: flowPoint >= 0 ? flowPoint : totalPoint >= 0 ? totalPoint : 0,
  });

  let lineStart = 0;
  while (lineStart < n) {
    let lineEnd = text.indexOf("\n", lineStart);
    if (lineEnd < 0) lineEnd = n;
    let indent = 0;
    while (text[lineStart + indent] === " ") indent++;
    const first = lineStart + indent;
    const blankLine =
      first >= lineEnd || BREAK_OR_END(text[first]) || (SPACE(text[first]) && isBlank(text, first, lineEnd));
    let i = lineStart;

    if (blockScalar !== null) {
      if (blankLine) {
        lineStart = lineEnd + 1;
        continue;
      }
      if (blockScalar.indent === null && indent > blockScalar.parent) blockScalar.indent = indent;
      if (blockScalar.indent !== null && indent >= blockScalar.indent) {
        lineStart = lineEnd + 1;
        continue;
      }
      blockScalar = null;
    }

    // Where the line's structure starts, and the column of the node being read (a key's, when ": " follows).
    let nodeColumn = indent;
    if (quote === null && flow === 0) {
      nodeStart = true;
      if (blankLine || text[first] === "#") {
        // A comment line ends a plain scalar (it cannot hold one); a blank line may be part of it.
        if (!blankLine) plainParent = null;
        lineStart = lineEnd + 1;
        continue;
      }
      if (plainParent !== null && indent > plainParent && !KEY_INDICATOR.test(text.slice(first, lineEnd))) {
        // A continuation line of a plain scalar: text, brackets and all (the parser reads it so). One with ": " is
        // an error the parser reads as a mapping, so it is scanned below.
        lineStart = lineEnd + 1;
        continue;
      }
      plainParent = null;
      if (indent === 0 && (text.startsWith("---", first) || text.startsWith("...", first)) && BLANK(text[first + 3])) {
        // A document marker: what follows is a new document, at the root.
        stack.length = 0;
        i = first + 3;
      } else if (indent === 0 && text[first] === "%") {
        lineStart = lineEnd + 1;
        continue;
      } else {
        while (stack.length > 0 && stack[stack.length - 1]! >= indent) stack.pop();
        i = first;
      }
    }

    // Characters of the line: one state machine for block and flow context.
    while (i < lineEnd) {
      if (quote !== null) {
        const close = closeQuote(text, i, lineEnd, quote);
        if (close < 0) break;
        quote = null;
        i = close + 1;
        nodeStart = false;
        continue;
      }
      const c = text[i]!;
      if (SPACE(c) || c === "\r") {
        i++;
        continue;
      }
      if (c === "#" && (i === lineStart || SPACE(text[i - 1]))) break;
      if (flow > 0) {
        if (c === "[" || c === "{") {
          flow++;
          if (flow >= pointAt && flowPoint < 0) flowPoint = i;
          if (deeper(i)) return result(true);
          nodeStart = true;
        } else if (c === "]" || c === "}") {
          flow--;
          nodeStart = false;
        } else if (c === ",") nodeStart = true;
        else if ((c === "?" || c === ":") && (BLANK(text[i + 1]) || FLOW_INDICATOR(text[i + 1]))) nodeStart = true;
        else if (c === ":" && !nodeStart && (text[i - 1] === '"' || text[i - 1] === "'")) nodeStart = true;
        else if (nodeStart && (c === '"' || c === "'")) {
          quote = c;
          i++;
          continue;
        } else if (nodeStart && (c === "&" || c === "!")) {
          i = skipToken(text, i, lineEnd, true);
          continue;
        }
        i++;
        continue;
      }
      // Block context.
      if (nodeStart) {
        if ((c === "-" || c === "?") && BLANK(text[i + 1])) {
          stack.push(i - lineStart);
          if (deeper(i)) return result(true);
          i++;
          continue;
        }
        if (c === "&" || c === "!") {
          i = skipToken(text, i, lineEnd, false);
          continue;
        }
        if (c === "[" || c === "{") {
          nodeColumn = i - lineStart;
          flow = 1;
          if (flow >= pointAt && flowPoint < 0) flowPoint = i;
          if (deeper(i)) return result(true);
          nodeStart = true;
          i++;
          continue;
        }
        if (c === '"' || c === "'") {
          nodeColumn = i - lineStart;
          quote = c;
          nodeStart = false;
          i++;
          continue;
        }
        if (c === "|" || c === ">") {
          // A block scalar: the rest of the line is its indicators and a comment; its content is the lines indented
          // more than its parent (an explicit indentation indicator fixes how much more).
          const parent = stack.length > 0 ? stack[stack.length - 1]! : -1;
          const digit = /[1-9]/.exec(text.slice(i + 1, Math.min(i + 3, lineEnd)))?.[0];
          blockScalar = { parent, indent: digit === undefined ? null : Math.max(parent, 0) + Number(digit) };
          break;
        }
        nodeColumn = i - lineStart;
        nodeStart = false;
        if (c === "*") {
          i = skipToken(text, i, lineEnd, false);
          continue;
        }
        // A plain scalar, or an implicit key: up to ": " (a key), " #" (a comment) or the line's end.
        const key = plainKeyEnd(text, i, lineEnd);
        if (key >= 0) {
          stack.push(nodeColumn);
          if (deeper(i)) return result(true);
          i = key + 1;
          nodeStart = true;
          continue;
        }
        // A plain value: lines indented more than its collection continue it.
        plainParent = stack.length > 0 ? stack[stack.length - 1]! : -1;
        break;
      }
      // After a quoted scalar, an alias or a flow collection: ": " makes it a key.
      if (c === ":" && BLANK(text[i + 1])) {
        stack.push(nodeColumn);
        if (deeper(i)) return result(true);
        nodeStart = true;
      }
      i++;
    }
    lineStart = lineEnd + 1;
  }
  return result(false);
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!SPACE(text[i]) && text[i] !== "\r") return false;
  return true;
}

/** The offset of the quote that closes a quoted scalar opened before `from`, within the line; -1 if none. */
function closeQuote(text: string, from: number, lineEnd: number, quote: '"' | "'"): number {
  for (let i = from; i < lineEnd; i++) {
    const c = text[i];
    if (quote === '"' && c === "\\") i++;
    else if (c === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/** Past an anchor, tag or alias token (`&a`, `!!str`, `*a`); in flow context a flow indicator ends it too. */
function skipToken(text: string, from: number, lineEnd: number, inFlow: boolean): number {
  let i = from + 1;
  while (i < lineEnd && !BLANK(text[i]) && !(inFlow && FLOW_INDICATOR(text[i]))) i++;
  return i;
}

/** The offset of the `:` that makes the plain scalar at `from` an implicit key, or -1 (a value, or a comment). */
function plainKeyEnd(text: string, from: number, lineEnd: number): number {
  for (let i = from; i < lineEnd; i++) {
    const c = text[i];
    if (c === ":" && BLANK(text[i + 1])) return i;
    if (c === "#" && SPACE(text[i - 1])) return -1;
  }
  return -1;
}
