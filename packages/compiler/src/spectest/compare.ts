/**
 * Comparing what happened in a case with what the case expects. Each mismatch is one failure message a user can
 * act on; long values come with a line diff. Secret placeholder values never appear in a message: they are
 * shown as `{{secrets.NAME}}`, and anything else that looks like a secret is redacted.
 */
import type { JsonValue } from "../analyze/shape.ts";
import type { TestCase } from "./test-file-shape.ts";
import type { StubRequest } from "./stub.ts";
import { cutIndex } from "@kervanc/runtime/cut";

export interface Secrets {
  /** `{{secrets.NAME}}` to the placeholder value, in text from the case. */
  fill(text: string): string;
  fillJson(value: JsonValue): JsonValue;
  /** Placeholder values back to `{{secrets.NAME}}`, other secret forms redacted: for text shown to the user. */
  mask(text: string): string;
}

/** A tool call's outcome: a result, or a JSON-RPC error (shown as an error result with its message). */
export interface CallOutcome {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: unknown;
}

/** Stable JSON with sorted keys, for comparing values whatever their key order. */
export function canonical(value: unknown, indent = 0): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value), null, indent) ?? "undefined";
}

export function compareRequest(c: TestCase, requests: readonly StubRequest[], s: Secrets): string[] {
  const exchange = c.upstream;
  if (exchange === undefined) {
    return requests.length === 0
      ? []
      : [`the tool called the upstream (${describe(requests[0]!, s)}), but the case expects no upstream call`];
  }
  if (requests.length === 0) return ["the case expects an upstream request, but the tool made none"];
  if (requests.length > 1)
    return [
      `the tool made ${requests.length} upstream requests (${requests.map((r) => describe(r, s)).join(", ")}); a case answers one`,
    ];
  const got = requests[0]!;
  const want = exchange.request;
  if (want === undefined) return [];
  const failures: string[] = [];
  if (want.method !== undefined && want.method !== got.method)
    failures.push(`request method: expected ${want.method}, got ${s.mask(got.method)}`);
  if (want.path !== undefined && s.fill(want.path) !== got.path)
    failures.push(`request path: expected ${want.path}, got ${s.mask(got.path)}`);
  if (want.query !== undefined) {
    const expected = queryOf(want.query as Record<string, unknown>, s);
    const actual = parseQuery(got.query);
    if (canonical(expected) !== canonical(actual))
      failures.push(
        `request query: expected ${s.mask(canonical(shown(expected)))}, got ${s.mask(canonical(shown(actual)))}`,
      );
  }
  for (const [name, value] of Object.entries(want.headers ?? {})) {
    const raw = got.headers[name.toLowerCase()];
    const actual = Array.isArray(raw) ? raw.join(", ") : raw;
    if (actual !== s.fill(value))
      failures.push(
        `request header ${name}: expected ${JSON.stringify(value)}, got ${actual === undefined ? "none" : JSON.stringify(s.mask(actual))}`,
      );
  }
  if (want.body !== undefined) {
    if (typeof want.body === "string") {
      if (got.body !== s.fill(want.body)) failures.push(`request body differs:\n${diff(want.body, s.mask(got.body))}`);
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(got.body);
      } catch {
        failures.push(
          `request body: expected JSON, got ${JSON.stringify(s.mask(got.body.slice(0, cutIndex(got.body, 200))))}`,
        );
        return failures;
      }
      if (canonical(parsed) !== canonical(s.fillJson(want.body)))
        failures.push(`request body differs:\n${diff(canonical(want.body, 2), s.mask(canonical(parsed, 2)))}`);
    }
  }
  return failures;
}

export function compareResult(c: TestCase, got: CallOutcome, s: Secrets): string[] {
  const { text, structured, error } = c.expect;
  const shownText = s.mask(got.text);
  if (error !== undefined) {
    if (!got.isError)
      return [`expected an error containing ${JSON.stringify(error)}, got a success:\n${indent(shownText)}`];
    return got.text.includes(s.fill(error))
      ? []
      : [`error text: expected it to contain ${JSON.stringify(error)}, got:\n${indent(shownText)}`];
  }
  if (got.isError) return [`expected a success, got an error:\n${indent(shownText)}`];
  const failures: string[] = [];
  if (text !== undefined && got.text !== s.fill(text)) failures.push(`result text differs:\n${diff(text, shownText)}`);
  if (structured !== undefined) {
    if (got.structured === undefined) failures.push("expected structured content, the result has none");
    else if (canonical(got.structured) !== canonical(s.fillJson(structured)))
      failures.push(
        `structured content differs:\n${diff(canonical(structured, 2), s.mask(canonical(got.structured, 2)))}`,
      );
  }
  return failures;
}

function describe(r: StubRequest, s: Secrets): string {
  return s.mask(`${r.method} ${r.path}${r.query !== "" ? `?${r.query}` : ""}`);
}

function queryOf(query: Record<string, unknown>, s: Secrets): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(query))
    out[name] = (Array.isArray(value) ? value : [value]).map((v) => s.fill(String(v)));
  return out;
}

function parseQuery(search: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) (out[name] ??= []).push(value);
  return out;
}

/** One value as a string, several as a list: the way a test file writes them. */
function shown(query: Record<string, string[]>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.length === 1 ? v[0]! : v]));
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

/** A line diff (longest common subsequence): `- ` expected only, `+ ` actual only, `  ` both. */
export function diff(expected: string, actual: string): string {
  const a = expected.split("\n");
  const b = actual.split("\n");
  if (a.length * b.length > 1_000_000) return `  - ${a.join("\n  - ")}\n  + ${b.join("\n  + ")}`;
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`    ${a[i++]}`);
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(`  - ${a[i++]}`);
    else out.push(`  + ${b[j++]}`);
  }
  return out.join("\n");
}
