/**
 * Fuzzing the load and check stages: the valid fixtures, mutated at the byte level (inserted, deleted and replaced
 * characters, control characters, invalid UTF-8, YAML punctuation, shuffled and re-indented lines) and at the
 * structure level (values of other types, deleted, renamed and duplicated keys, deep nesting, huge strings,
 * template and JMESPath injections), at least 2,000 times per run, through `compileSpec` in process.
 *
 * Every run must return (never throw), every diagnostic must be placed inside the file with a known code, and
 * the whole property must finish quickly. fast-check prints the seed and the shrunk mutation of a failure;
 * replay it with `FUZZ_SEED=<seed> npx vitest run test/analyze/fuzz.slow.test.ts`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMap, isPair, isScalar, isSeq, parseDocument } from "yaml";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { CODES } from "../../packages/compiler/src/diagnostics/codes.ts";
import { REPO } from "../helpers/kervanc.ts";

const RUNS = Number(process.env["FUZZ_RUNS"] ?? 2000);
const SEED = process.env["FUZZ_SEED"] === undefined ? undefined : Number(process.env["FUZZ_SEED"]);

const seeds = ["fixtures/valid", "fixtures/specs"].flatMap((dir) =>
  readdirSync(join(REPO, dir))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => ({ file: `${dir}/${f}`, text: readFileSync(join(REPO, dir, f), "utf8") })),
);

const encoder = new TextEncoder();

// ------------------------------------------------------------------------------------------------------------
// Structure-level mutations: applied to the parsed YAML document of a seed, then written back as text.
// ------------------------------------------------------------------------------------------------------------

const KEYS = [
  "specVersion",
  "name",
  "version",
  "description",
  "secrets",
  "defaults",
  "tools",
  "http",
  "url",
  "method",
  "query",
  "headers",
  "body",
  "output",
  "select",
  "raw",
  "schema",
  "input",
  "type",
  "properties",
  "required",
  "hosts",
  "title",
  "annotations",
  "rateLimit",
  "timeoutMs",
  "$ref",
  "$id",
  "$schema",
  "pattern",
  "anyOf",
  "<<",
  "__proto__",
  "constructor",
  "format",
  "minimun",
  "x-extra",
];

/** Text pasted into the YAML as written (deep nesting, huge strings, anchors), not built as a YAML node. */
class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const rawValue: fc.Arbitrary<Raw> = fc.oneof(
  fc.integer({ min: 20, max: 1200 }).map((n) => new Raw(`${"[".repeat(n)}${"]".repeat(n)}`)),
  fc.integer({ min: 20, max: 1200 }).map((n) => new Raw(`${"{a: ".repeat(n)}1${"}".repeat(n)}`)),
  fc.integer({ min: 1000, max: 300_000 }).map((n) => new Raw(`"${"x".repeat(n)}"`)),
  fc.constantFrom(
    new Raw("&a [1, *a]"),
    new Raw("*nowhere"),
    new Raw("!!js/function 'x'"),
    new Raw("!!binary aGk="),
    new Raw('"\\u202e\\r\\x00"'),
    new Raw("|\n  block\n  text"),
  ),
);

/** Values to put where a spec expects something else. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    "",
    " ",
    "1.0",
    "\u202e",
    "\u0000",
    "\r\n",
    "\ud800",
    "{{input.x}}",
    "{{ input.id }}",
    "{{secrets.API_KEY}}",
    "{{secrets.lower}}",
    "{{",
    "}}",
    "\\{{input.id}}",
    "{{input}}",
    "https://h{{input.p}}/x",
    "http://api.example.com/{{secrets.TOKEN}}",
    "https://user:pw@api.example.com/#frag",
    "https://api.example.com/{{input.id}}/../x",
    "https://api.example.com:{{input.port}}/",
    "__proto__",
    "constructor",
    "pad_left('a', `500000000`)",
    "sort_by(@, name)",
    "length(&a)",
    "foo(",
    "a[?b > ]",
    "@.__proto__",
    "api.example.com:65536",
    "[::1]:443",
    [],
    {},
    [[[]]],
    { $ref: "https://example.com/s.json" },
    { $ref: "#/nowhere" },
    { $id: "x", $dynamicRef: "#a" },
    { type: "strin" },
    { type: "string", pattern: "[" },
    { "<<": { a: 1 } },
    { "api.example.com": 8443 },
    { select: "a", raw: true },
    { raw: false },
    { type: "object", properties: { x: { type: "integer", minimun: 1, format: "phone" } }, required: ["y"] },
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  rawValue,
);

/** Strings that keep a spec's structure but go to work on the semantic checks. */
const semanticString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "https://api.example.com/{{input.id}}",
    "https://h{{input.p}}/x",
    "http://api.example.com/x",
    "ftp://api.example.com/",
    "https://api.example.com/a/{{input.id}}/../b",
    "https://api.example.com/?q={{input.q}}",
    "https://api.example.com/#top",
    "https://u:p@api.example.com/",
    "https://[::1]:8443/x",
    "https://bücher.example/{{secrets.IDNA_KEY}}",
    "{{secrets.UNDECLARED}}",
    "{{input.nope}}",
    "{{input.id.deeper}}",
    "sort_by(items, &name)[0]",
    "pad_right(name, `10001`)",
    "unknown_fn(@)",
    "join(@)",
    "[?a == `1`].b",
    "a.constructor",
    "items[",
    '`{"a": 1}`',
  ),
  fc
    .tuple(
      fc.constantFrom("", "x", "https://api.example.com/", "Bearer ", "a b"),
      fc.constantFrom(
        "{{input.id}}",
        "{{ input.q }}",
        "{{secrets.API_KEY}}",
        "\\{{",
        "{{",
        "}}",
        "{{input['a']}}",
        "\u200b",
        "\t",
        "\n",
        "%2e%2e",
      ),
      fc.constantFrom("", "/x", "}}", "?a=1"),
    )
    .map(([a, b, c]) => a + b + c),
);

type StructureOp =
  | { readonly op: "string"; readonly at: number; readonly value: string }
  | { readonly op: "set"; readonly at: number; readonly value: unknown }
  | { readonly op: "delete"; readonly at: number }
  | { readonly op: "add"; readonly at: number; readonly key: string; readonly value: unknown }
  | { readonly op: "rename"; readonly at: number; readonly key: string }
  | { readonly op: "duplicate"; readonly at: number };

const keyArb = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 12 }));
const at = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const stringOp: fc.Arbitrary<StructureOp> = fc.record({
  op: fc.constant("string" as const),
  at,
  value: semanticString,
});
const structureOp: fc.Arbitrary<StructureOp> = fc.oneof(
  stringOp,
  fc.record({ op: fc.constant("set" as const), at, value: hostileValue }),
  fc.record({ op: fc.constant("delete" as const), at }),
  fc.record({ op: fc.constant("add" as const), at, key: keyArb, value: hostileValue }),
  fc.record({ op: fc.constant("rename" as const), at, key: keyArb }),
  fc.record({ op: fc.constant("duplicate" as const), at }),
);

const seedDocs = seeds.map((s) => parseDocument(s.text));

/** Every pair and sequence item of a document with its path, in document order. */
function nodesOf(root: unknown): { path: (string | number)[]; pair: unknown }[] {
  const out: { path: (string | number)[]; pair: unknown }[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isScalar(pair.key)) continue;
        const p = [...path, String(pair.key.value)];
        out.push({ path: p, pair });
        walk(pair.value, p);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        out.push({ path: [...path, i], pair: undefined });
        walk(item, [...path, i]);
      });
    }
  };
  walk(root, []);
  return out;
}

function applyStructure(seed: number, ops: readonly StructureOp[]): string {
  const doc = seedDocs[seed]!.clone();
  const raws: string[] = [];
  const node = (value: unknown): unknown => {
    if (!(value instanceof Raw)) return doc.createNode(value);
    raws.push(value.text);
    return doc.createNode(`__fuzz_raw_${raws.length - 1}__`);
  };
  for (const op of ops) {
    const nodes = nodesOf(doc.contents);
    const target = nodes[Math.floor(op.at * nodes.length)];
    if (target === undefined) continue;
    try {
      if (op.op === "string") {
        // Only strings in the request and in select are replaced, so the spec keeps its shape.
        const strings = nodes.filter(
          (n) =>
            typeof doc.getIn(n.path) === "string" &&
            (n.path.includes("http") || n.path[n.path.length - 1] === "select"),
        );
        const pick = strings[Math.floor(op.at * strings.length)];
        if (pick) doc.setIn(pick.path, op.value);
      } else if (op.op === "set") doc.setIn(target.path, node(op.value));
      else if (op.op === "delete") doc.deleteIn(target.path);
      else if (op.op === "add") doc.setIn([...target.path.slice(0, -1), op.key], node(op.value));
      else if (op.op === "rename" && isPair(target.pair) && isScalar(target.pair.key)) target.pair.key.value = op.key;
      else if (op.op === "duplicate" && isPair(target.pair)) {
        const parent = doc.getIn(target.path.slice(0, -1), true);
        if (isMap(parent))
          parent.items.push(doc.createPair((target.pair.key as { value: unknown }).value, doc.createNode(op.at)));
      }
    } catch {
      // A mutation yaml will not make (for example below a scalar) is skipped.
    }
  }
  let text: string;
  try {
    text = doc.toString({ lineWidth: 0 });
  } catch {
    return seeds[seed]!.text;
  }
  return text.replace(/__fuzz_raw_(\d+)__/g, (_, n: string) => raws[Number(n)]!);
}

// ------------------------------------------------------------------------------------------------------------
// Byte-level mutations: applied to the UTF-8 bytes.
// ------------------------------------------------------------------------------------------------------------

const TOKENS = [
  ":",
  ": ",
  "- ",
  "-",
  "{",
  "}",
  "[",
  "]",
  ",",
  "?",
  "? ",
  "&a ",
  "*a",
  "*",
  "&",
  "!!js/function ",
  "!foo ",
  "!!str ",
  "---\n",
  "...\n",
  "%YAML 1.1\n",
  "%TAG ! tag:x,2000:\n",
  "<<: ",
  "#",
  " #",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "'",
  '"',
  "\\",
  "|",
  ">",
  "|-\n",
  "{{",
  "}}",
  "{{input.",
  "{{secrets.",
  "\u2028",
  "\u202e",
  "\ufeff",
  "\u200b",
  "😀",
  "👩‍💻",
  "\u0085",
  "\u00a0",
];
const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0x80],
  [0xc0, 0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];

type ByteOp =
  | { readonly op: "insert"; readonly at: number; readonly bytes: Uint8Array }
  | { readonly op: "token"; readonly at: number; readonly token: string }
  | { readonly op: "invalid"; readonly at: number; readonly bytes: readonly number[] }
  | { readonly op: "delete"; readonly at: number; readonly length: number }
  | { readonly op: "replace"; readonly at: number; readonly byte: number }
  | { readonly op: "truncate"; readonly at: number }
  | {
      readonly op: "line";
      readonly at: number;
      readonly action: "duplicate" | "delete" | "swap" | "indent" | "dedent";
    };

const byteOp: fc.Arbitrary<ByteOp> = fc.oneof(
  fc.record({ op: fc.constant("insert" as const), at, bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({
    op: fc.constant("insert" as const),
    at,
    bytes: fc.uint8Array({ minLength: 1, maxLength: 3, max: 0x1f }),
  }),
  fc.record({ op: fc.constant("token" as const), at, token: fc.constantFrom(...TOKENS) }),
  fc.record({ op: fc.constant("invalid" as const), at, bytes: fc.constantFrom(...INVALID_UTF8) }),
  fc.record({ op: fc.constant("delete" as const), at, length: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant("replace" as const), at, byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ op: fc.constant("truncate" as const), at }),
  fc.record({
    op: fc.constant("line" as const),
    at,
    action: fc.constantFrom(
      "duplicate" as const,
      "delete" as const,
      "swap" as const,
      "indent" as const,
      "dedent" as const,
    ),
  }),
);

function applyBytes(input: Uint8Array, ops: readonly ByteOp[]): Uint8Array {
  let bytes = input;
  for (const op of ops) {
    const i = Math.floor(op.at * (bytes.length + 1));
    const splice = (start: number, remove: number, insert: ArrayLike<number>): Uint8Array => {
      const out = new Uint8Array(bytes.length - remove + insert.length);
      out.set(bytes.subarray(0, start), 0);
      out.set(insert, start);
      out.set(bytes.subarray(start + remove), start + insert.length);
      return out;
    };
    if (op.op === "insert" || op.op === "invalid") bytes = splice(i, 0, op.bytes);
    else if (op.op === "token") bytes = splice(i, 0, encoder.encode(op.token));
    else if (op.op === "delete") bytes = splice(i, Math.min(op.length, bytes.length - i), []);
    else if (op.op === "replace" && i < bytes.length) bytes = splice(i, 1, [op.byte]);
    else if (op.op === "truncate") bytes = bytes.subarray(0, i);
    else if (op.op === "line") {
      const lines = new TextDecoder().decode(bytes).split("\n");
      const n = Math.floor(op.at * lines.length);
      const line = lines[n] ?? "";
      if (op.action === "duplicate") lines.splice(n, 0, line);
      else if (op.action === "delete") lines.splice(n, 1);
      else if (op.action === "swap" && n + 1 < lines.length) [lines[n], lines[n + 1]] = [lines[n + 1]!, line];
      else if (op.action === "indent") lines[n] = `  ${line}`;
      else if (op.action === "dedent") lines[n] = line.replace(/^ {1,2}/, "");
      bytes = encoder.encode(lines.join("\n"));
    }
  }
  return bytes;
}

// ------------------------------------------------------------------------------------------------------------

const seedIndex = fc.integer({ min: 0, max: seeds.length - 1 });
/**
 * Byte mutations almost always break the YAML or the structure, and so do most structure mutations; replacing
 * strings in the request and in select keeps the structure and exercises the checks behind it.
 */
const mutation = fc.oneof(
  fc.record({
    seed: seedIndex,
    structure: fc.constant([] as StructureOp[]),
    bytes: fc.array(byteOp, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    seed: seedIndex,
    structure: fc.array(stringOp, { minLength: 1, maxLength: 3 }),
    bytes: fc.constant([] as ByteOp[]),
  }),
  fc.record({
    seed: seedIndex,
    structure: fc.array(structureOp, { minLength: 1, maxLength: 3 }),
    bytes: fc.constant([] as ByteOp[]),
  }),
  fc.record({
    seed: seedIndex,
    structure: fc.array(structureOp, { minLength: 1, maxLength: 2 }),
    bytes: fc.array(byteOp, { minLength: 1, maxLength: 2 }),
  }),
);

describe("fuzzing load and check", () => {
  it(`survives ${RUNS} mutations of the valid fixtures, placing every diagnostic inside the file`, () => {
    let runs = 0;
    let slowest = 0;
    let slowestCase = "";
    let withErrors = 0;
    let compiling = 0;
    let mutating = 0;
    let semantic = 0;
    const started = performance.now();
    fc.assert(
      fc.property(mutation, ({ seed, structure, bytes: byteOps }) => {
        const base = seeds[seed]!;
        const m0 = performance.now();
        const text = structure.length > 0 ? applyStructure(seed, structure) : base.text;
        mutating += performance.now() - m0;
        // At least one mutation every run.
        const ops: ByteOp[] =
          structure.length === 0 && byteOps.length === 0 ? [{ op: "delete", at: 0.5, length: 1 }] : byteOps;
        const bytes = applyBytes(encoder.encode(text), ops);

        const t0 = performance.now();
        const result = compileSpec(base.file, bytes);
        const ms = performance.now() - t0;
        compiling += ms;
        runs++;
        if (ms > slowest) {
          slowest = ms;
          slowestCase = `${base.file} (${bytes.length} bytes)`;
        }
        if (result.diagnostics.some((d) => d.severity === "error")) withErrors++;
        // Reached the checks after the structure: loaded, and no "fix the structure first".
        if (result.loaded !== null && !result.diagnostics.some((d) => d.code === "KV2012")) semantic++;

        let decoded: string | null;
        try {
          decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          decoded = null;
        }
        const lines = (decoded ?? new TextDecoder().decode(bytes)).split("\n");
        for (const d of result.diagnostics) {
          expect(Object.hasOwn(CODES, d.code), d.code).toBe(true);
          // info: a kervanc extension in use (KV8001), as fixtures/specs/catalog-views.yaml has.
          expect(["error", "warning", "info"], `${d.code} ${d.severity}`).toContain(d.severity);
          expect(d.message.length).toBeGreaterThan(0);
          expect(d.message).not.toContain("[object Object]");
          expect(d.line, `${d.code} ${d.message}`).toBeGreaterThanOrEqual(1);
          expect(d.line, `${d.code} ${d.message}`).toBeLessThanOrEqual(lines.length);
          expect(d.column, `${d.code} ${d.message}`).toBeGreaterThanOrEqual(1);
          if (decoded !== null)
            expect(d.column, `${d.code} ${d.message}`).toBeLessThanOrEqual(lines[d.line - 1]!.length + 1);
        }
        // No error means a plan; an error means none (nothing half-checked reaches the emitter).
        expect(result.planned === null).toBe(result.diagnostics.some((d) => d.severity === "error"));
      }),
      { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
    );
    const seconds = (performance.now() - started) / 1000;
    // Generous: about 10 s on an idle machine. A hang or a quadratic walk shows up as minutes, not seconds.
    expect(seconds).toBeLessThan(60);
    expect(slowest, `slowest run: ${slowestCase}`).toBeLessThan(10_000);
    expect(runs).toBeGreaterThanOrEqual(RUNS);
    // The mutations must actually break specs most of the time, or this fuzzes nothing.
    expect(withErrors / runs).toBeGreaterThan(0.5);
    // ... and still reach the semantic checks (templates, URLs, secrets, schemas, select) often enough.
    expect(semantic / runs).toBeGreaterThan(0.12);
    console.log(
      `fuzz: ${runs} runs in ${seconds.toFixed(1)} s (${(compiling / 1000).toFixed(1)} s compiling, ${(mutating / 1000).toFixed(1)} s mutating), slowest ${slowest.toFixed(0)} ms (${slowestCase}), ${withErrors} with errors, ${semantic} past the structure check`,
    );
  }, 180_000);
});
