/**
 * docs/diagnostics.md, generated from the code table (codes.ts). `npm run docs` writes it; a test fails when the
 * committed file differs from what this renders.
 */
import { CODES, type CodeInfo, type MessageTemplate } from "./codes.ts";

/** A template as docs show it: each argument as `{name}`. */
export function messageText(template: MessageTemplate): string {
  if (typeof template === "string") return template;
  const holes = new Proxy({}, { get: (_target, key) => `{${String(key)}}` });
  return template(holes);
}

/** Section titles by code range; a range without a title here still gets a section (see below). */
const RANGE_TITLES: Readonly<Record<string, string>> = {
  KV1: "Reading the file (KV1xxx)",
  KV2: "The structure of a spec (KV2xxx)",
  KV3: "URLs, templates and the request (KV3xxx)",
  KV4: "Secrets (KV4xxx)",
  KV5: "JSON Schemas (KV5xxx)",
  KV6: "select expressions (KV6xxx)",
  KV7: "kervanc import: OpenAPI to a spec (KV7xxx)",
  KV9: "The command line and its output (KV9xxx)",
};

/** A message as a code span. A message with backticks needs a longer fence (and spaces, so a backtick at either end stays text). */
function span(text: string): string {
  return text.includes("`") ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** An example message as a code span in a table cell; pipes are escaped so they do not split the row. */
function cell(text: string): string {
  if (text === "") return "";
  return span(text).replace(/\|/g, "\\|");
}

function plain(text: string): string {
  return text.replace(/\|/g, "\\|");
}

export function renderDiagnosticsDoc(): string {
  const lines: string[] = [
    "<!-- Generated from packages/compiler/src/diagnostics/codes.ts by `npm run docs`. Do not edit. -->",
    "",
    "# kervanc diagnostics",
    "",
    "Every problem kervanc reports is data: a stable code (`KV` and four digits), a severity, the file, the",
    "1-based line and column of the YAML node (or of its nearest parent that exists; inside a string, of the",
    "character), the spec path (`tools[0].http.url`) and a message. A run collects every problem in every spec.",
    "",
    "```",
    "specs/weather.yaml:12:12 - error KV3009: tools[0].http.url: The URL's host and port cannot be templated.",
    "  11 |     http:",
    '> 12 |       url: "https://{{input.host}}/forecast"',
    "     |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    "  13 |     output:",
    "  see kervanc docs/diagnostics.md#kv3009",
    "```",
    "",
    "The first line is the same as tsc's and stays stable for scripts; under it come the source line with a",
    "caret range and a line of context on each side, and the anchor of the code in this file (which the kervanc",
    "package ships as `docs/diagnostics.md`). Colour is used when the stream is a terminal, never with `NO_COLOR`",
    "or when piped, and always with `FORCE_COLOR`.",
    "",
    "`--format json` prints the same diagnostics as a JSON array of",
    "`{ code, severity, file, line, column, path, message }` objects, with `endLine` and `endColumn` where the",
    "place has an extent, `fix` (`{ description, replacement? }`) where one fix is clear, and `doc` (the anchor).",
    "`--format github` prints GitHub Actions workflow commands (`::error file=...,line=...,col=...::message`), and",
    "`--format sarif` a SARIF 2.1.0 log (one rule per code, with its help text). Exit codes: `0` no errors (warnings",
    "allowed), `1` at least one error (nothing is written), `2` usage error. A file with more than 200 problems",
    "shows the first 200 and one KV9005 line that counts the rest.",
    "",
    "Codes never change meaning. Errors stop the build; warnings are printed and the build goes on.",
    "",
  ];
  // Every code is listed, in code order, grouped by its range (a new range cannot be left out by mistake).
  const all = (Object.entries(CODES) as [string, CodeInfo][]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const prefixes = [...new Set(all.map(([code]) => code.slice(0, 3)))];
  for (const prefix of prefixes) {
    const entries = all.filter(([code]) => code.startsWith(prefix));
    const title = RANGE_TITLES[prefix] ?? `${prefix}xxx`;
    lines.push(`## ${title}`, "", "| code | severity | summary | example message |", "| --- | --- | --- | --- |");
    for (const [code, info] of entries) {
      const summary = info.retired ? `(retired) ${info.summary}` : info.summary;
      // The anchor each diagnostic names (`docs/diagnostics.md#kv3018`).
      lines.push(
        `| <a id="${code.toLowerCase()}"></a>${code} | ${info.severity} | ${plain(summary)} | ${cell(info.example)} |`,
      );
    }
    lines.push("");
  }
  lines.push(
    "## Message templates",
    "",
    "The messages of each code, as written in codes.ts; `{name}` stands for a value filled in where the problem is",
    "found (a field name, a number, or a clause such as a did-you-mean that may be empty).",
    "",
  );
  for (const [code, info] of all) {
    if (info.messages === undefined) continue;
    lines.push(`- ${code}:`);
    for (const [name, template] of Object.entries(info.messages))
      lines.push(`  - ${name}: ${span(messageText(template))}`);
  }
  lines.push(
    "",
    "## JSON Schema findings: errors and warnings",
    "",
    "Kervan validates with Ajv in non-strict mode, so it accepts unknown keywords and formats and ignores them.",
    "kervanc compiles every schema with Ajv in strict mode at build time and reports what strict mode finds, at",
    "the schema node's position. The split:",
    "",
    "- **Errors**, because the schema would silently not check what its author meant:",
    "  - KV5011: an unknown keyword that is a misspelling or wrong case of a validation keyword (`minimun`,",
    "    `maxlength`, `require`), or `additionalItems`, which 2020-12 replaced with `items`;",
    "  - KV2013: a YAML merge key `<<` inside a schema (nothing is merged);",
    "  - KV5007: `$async` (validation is synchronous), besides `$id` and the dynamic and recursive references;",
    '  - KV5014: the schema is not valid JSON Schema 2020-12 (`type: strin`, `minimum: "1"`);',
    "  - KV5015: Ajv cannot compile it (an invalid regular expression, a `$ref` to nothing);",
    "  - KV5017: `__proto__` in `properties` or `patternProperties`: Ajv skips that name, so nothing would check it.",
    "- **Warnings**, because the schema works, but something in it is ignored or probably not as meant:",
    "  - KV5016: any other unknown keyword (`example`, `x-order`): published in the schema, checks nothing;",
    "  - KV5012: an unknown `format` (2020-12 treats formats as annotations): any string passes;",
    "  - KV5013: the rest of strict mode: `required` naming a property `properties` does not declare (not",
    "    reported inside `anyOf`/`oneOf`/`allOf`/`not`/`if`/`then`/`else`, where it usually names the",
    "    enclosing schema's properties), a keyword without the `type` it applies to (`minLength` without",
    "    `type: string`), a tuple without `minItems`, `then` without `if`;",
    "  - KV5019: a `pattern`, a `patternProperties` key or a format's regular expression (ajv-formats' `url`) that",
    "    backtracks super-linearly on a string crafted for it. The server runs it on every argument (or upstream",
    "    result) on the thread that serves every call. A `maxLength` in the same schema bounds it: Ajv checks every",
    "    keyword even after one fails, but a generated validator does not run a pattern or a format on a string",
    "    already over its schema's `maxLength` (that string fails either way; only their error lines are left out).",
    "    The analysis is",
    "    [scslre](https://github.com/RunDevelopment/scslre)'s, static and deterministic; when it has a rewrite that",
    "    matches the same strings without backtracking, the message gives it. It runs in a worker for at most 1 s a",
    "    pattern and 10 s a spec, so a pathological pattern (or many of them in an imported document) cannot",
    "    hang the build: one it does not finish is reported as not checked. Kervan lists regex ReDoS as an accepted",
    "    risk; this is a warning, so kervanc accepts the same specs.",
    "",
    "A property in `properties` whose name also matches a `patternProperties` pattern is not reported (it is valid",
    "JSON Schema; the value must then match both subschemas): finding it means running the spec's regular",
    "expressions against the spec's names while building, and a pattern like `^(a+)+$` can take exponential time.",
    "",
    "Union types (`type: [string, number]`) are valid JSON Schema and are not reported.",
    "",
  );
  return lines.join("\n");
}
