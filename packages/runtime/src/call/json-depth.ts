/**
 * Bounds on how deeply untrusted JSON nests, checked where it enters: tool arguments before validation and
 * rendering, upstream bodies before parsing. Past the bound, the walks that follow (Ajv's generated
 * validators, JSON.stringify, the SDK's result handling) recurse once per level and would overflow the stack,
 * which a caller saw as "Internal error in tool ..."; now it sees a tool error naming the limit.
 */
import { SELECT_MAX_NESTING } from "../select/core.ts";

/** Levels of arrays and objects allowed in arguments and upstream JSON: the select interpreter's own bound. */
export const MAX_JSON_NESTING = SELECT_MAX_NESTING;

/** Whether JSON text opens more than `max` arrays or objects inside one another; a scan, no parse. */
export function jsonTextNestsDeeper(text: string, max: number): boolean {
  // Text with at most `max` opening brackets anywhere (strings included) cannot nest deeper: counted with
  // indexOf, which skips the text natively, about ten times faster than the scan below for a typical body.
  if (bracketsAtMost(text, max)) return false;
  return scanNestsDeeper(text, max);
}

function bracketsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const bracket of OPENING) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++count > max) return false;
  }
  return true;
}

const OPENING = ["{", "["] as const;

/** The exact count: brackets outside strings, one level each. */
export function scanNestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, honouring escapes.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** Whether a value nests more than `max` arrays or objects inside one another; iterative. */
export function valueNestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
