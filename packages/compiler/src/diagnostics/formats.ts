/**
 * Diagnostics in every output format the commands offer: text (tsc's first line, then a code frame and the
 * documentation anchor), JSON (with the end position, a fix where one is known, and the anchor), GitHub Actions
 * workflow commands, and SARIF 2.1.0 for code-scanning tools.
 *
 * Every field printed as text goes through `oneLine` (control characters as `\uXXXX`); the GitHub format then
 * applies the workflow-command escaping on top, and JSON and SARIF are JSON.stringify'd.
 */
import type { Log, ReportingDescriptor, Result } from "sarif";
import { CODES, type DiagnosticCode } from "./codes.ts";
import { type Diagnostic, formatDiagnostic, oneLine, terminalJson } from "./diagnostic.ts";
import { codeFrame, paint, type Style } from "./frame.ts";

export type DiagnosticFormat = "text" | "json" | "github" | "sarif";
export const DIAGNOSTIC_FORMATS: readonly DiagnosticFormat[] = ["text", "json", "github", "sarif"];

/** Where each code is documented: an anchor into docs/diagnostics.md, which the kervanc package ships. */
export const DOCS_FILE = "docs/diagnostics.md";
export function docAnchor(code: DiagnosticCode): string {
  return `${DOCS_FILE}#${code.toLowerCase()}`;
}

export interface RenderOptions {
  /** The text of each file, for code frames (a file without one gets no frame). */
  readonly sources?: ReadonlyMap<string, string>;
  readonly style?: Style;
  readonly toolVersion?: string;
}

/** Text: the tsc-like line (unchanged, so scripts that read it keep working), the frame, and the anchor. */
export function renderText(diagnostics: readonly Diagnostic[], options: RenderOptions = {}): string {
  const style = options.style ?? { color: false };
  let out = "";
  for (const d of diagnostics) {
    const first = formatDiagnostic(d);
    const colour = d.severity === "error" ? "red" : "yellow";
    out += `${style.color ? first.replace(` - ${d.severity} ${d.code}: `, ` - ${paint(style, colour, `${d.severity} ${d.code}`)}: `) : first}\n`;
    const source = options.sources?.get(d.file);
    const frame = source === undefined ? [] : codeFrame(source, d, style);
    for (const line of frame) out += `${line}\n`;
    out += `  ${paint(style, "dim", `see kervanc ${docAnchor(d.code)}`)}\n`;
  }
  return out;
}

/** JSON: each diagnostic with its documentation anchor (end positions and fixes are already on it). */
export function jsonDiagnostics(diagnostics: readonly Diagnostic[]): object[] {
  return diagnostics.map((d) => ({ ...d, doc: docAnchor(d.code) }));
}

export function renderJson(diagnostics: readonly Diagnostic[]): string {
  return `${terminalJson(jsonDiagnostics(diagnostics))}\n`;
}

/** GitHub Actions: `%`, CR and LF are escaped in a command's message, and `:` and `,` too in its properties. */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export function renderGithub(diagnostics: readonly Diagnostic[]): string {
  let out = "";
  for (const d of diagnostics) {
    const props = [
      `file=${escapeProperty(oneLine(d.file))}`,
      `line=${d.line}`,
      `col=${d.column}`,
      ...(d.endLine !== undefined ? [`endLine=${d.endLine}`] : []),
      ...(d.endColumn !== undefined ? [`endColumn=${d.endColumn}`] : []),
      `title=${escapeProperty(`${d.code} (${docAnchor(d.code)})`)}`,
    ];
    const where = d.path === "" ? "" : `${oneLine(d.path)}: `;
    out += `::${d.severity} ${props.join(",")}::${escapeData(`${d.code} ${where}${oneLine(d.message)}`)}\n`;
  }
  return out;
}

/** A file name as a SARIF artifact URI: relative paths stay relative (to the working folder), each segment encoded. */
function artifactUri(file: string): string {
  const slashed = file.replace(/\\/g, "/");
  const absolute = slashed.startsWith("/");
  const drive = /^[A-Za-z]:\//.test(slashed);
  const encoded = slashed
    .split("/")
    .map((segment, i) => (drive && i === 0 ? segment : encodeURIComponent(segment)))
    .join("/");
  return absolute ? `file://${encoded}` : drive ? `file:///${encoded}` : encoded;
}

/** SARIF's levels: kervanc's `info` (a spec no longer portable to Kervan) is a SARIF `note`. */
function sarifLevel(severity: Diagnostic["severity"]): "error" | "warning" | "note" {
  return severity === "info" ? "note" : severity;
}

export function sarifLog(diagnostics: readonly Diagnostic[], options: RenderOptions = {}): Log {
  const used = [...new Set(diagnostics.map((d) => d.code))].sort();
  const rules: ReportingDescriptor[] = used.map((code) => {
    const info = CODES[code];
    return {
      id: code,
      shortDescription: { text: info.summary },
      fullDescription: { text: info.summary },
      help: {
        text: `${info.summary} Example: ${info.example} See ${docAnchor(code)} in the kervanc package.`,
        markdown: `${info.summary}\n\nExample: \`${info.example.replace(/`/g, "'")}\`\n\nSee \`${docAnchor(code)}\` in the kervanc package.`,
      },
      defaultConfiguration: { level: sarifLevel(info.severity) },
      properties: { documentation: docAnchor(code) },
    };
  });
  const results: Result[] = diagnostics.map((d) => ({
    ruleId: d.code,
    ruleIndex: used.indexOf(d.code),
    level: sarifLevel(d.severity),
    message: { text: `${d.path === "" ? "" : `${oneLine(d.path)}: `}${oneLine(d.message)}` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: artifactUri(d.file) },
          region: {
            startLine: d.line,
            startColumn: d.column,
            ...(d.endLine !== undefined ? { endLine: d.endLine } : {}),
            ...(d.endColumn !== undefined ? { endColumn: d.endColumn } : {}),
          },
        },
        ...(d.path !== "" ? { logicalLocations: [{ fullyQualifiedName: d.path, kind: "member" }] } : {}),
      },
    ],
    ...(d.fix?.replacement !== undefined && d.endLine !== undefined && d.endColumn !== undefined
      ? {
          fixes: [
            {
              description: { text: d.fix.description },
              artifactChanges: [
                {
                  artifactLocation: { uri: artifactUri(d.file) },
                  replacements: [
                    {
                      deletedRegion: {
                        startLine: d.line,
                        startColumn: d.column,
                        endLine: d.endLine,
                        endColumn: d.endColumn,
                      },
                      insertedContent: { text: d.fix.replacement },
                    },
                  ],
                },
              ],
            },
          ],
        }
      : {}),
  }));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "kervanc",
            ...(options.toolVersion !== undefined ? { version: options.toolVersion } : {}),
            rules,
          },
        },
        columnKind: "utf16CodeUnits",
        results,
      },
    ],
  };
}

export function renderSarif(diagnostics: readonly Diagnostic[], options: RenderOptions = {}): string {
  return `${terminalJson(sarifLog(diagnostics, options))}\n`;
}
