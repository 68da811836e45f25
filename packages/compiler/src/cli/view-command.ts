/**
 * `kervanc view`: a tool's view page (kervanc extension views) with a given tool result rendered, written as one
 * standalone HTML file a person opens in a browser, no MCP Apps host needed (emit/view/standalone.ts). The spec
 * is compiled in memory as for `call` (nothing is called, no server runs), the page is the one the server
 * serves, and the result reaches the renderer on the same ext-apps message path a host uses.
 */
import { lstat, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { closest } from "../analyze/suggest.ts";
import { compileDev } from "../devloop/dev-package.ts";
import { formatPath, type SpecPath } from "../diagnostics/diagnostic.ts";
import { standaloneViewPage, type StandaloneResult } from "../emit/view/standalone.ts";
import { viewRenderer } from "../emit/view/renderer-script.ts";
import { type LoadedSpec, locate } from "../load/load.ts";
import { errorCode, fileKind } from "../load/regular-file.ts";
import { UsageError } from "./args.ts";
import { plural, printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";
import { type Io, readAll } from "./io.ts";

export interface ViewCommand {
  readonly spec: string;
  readonly tool: string;
  /** The tool result as JSON text; undefined: from stdin when it is not a terminal. */
  readonly result: string | undefined;
  /** The file to write; undefined: `<tool>.view.html` in the current folder. */
  readonly out: string | undefined;
}

/** Where the result came from, for messages. */
const ARGUMENT = "<json result>";

export async function viewCommand(
  command: ViewCommand,
  io: Io,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  let text = command.result;
  if (text === undefined) {
    if (stdin.isTTY === true)
      throw new UsageError("view takes the tool result as JSON: kervanc view <spec> <tool> '<json result>'.");
    text = await readAll(stdin);
  }
  const compiled = await compileDev(command.spec);
  printDiagnostics(io, compiled.diagnostics, "text", compiled.sources);
  if (!compiled.ok) {
    io.stderr(
      `Found ${plural(compiled.diagnostics.filter((d) => d.severity === "error").length, "error")}; nothing was written.\n`,
    );
    return 1;
  }
  const planned = compiled.compiled.planned;
  const names = planned.tools.map((t) => t.plan.listing.name);
  const index = names.indexOf(command.tool);
  if (index < 0) {
    const close = closest(command.tool, names);
    throw new UsageError(
      `${printable(command.spec)} has no tool "${printable(command.tool)}".${close !== undefined ? ` Did you mean "${close}"?` : ""} Its tools: ${names.join(", ")}.`,
    );
  }
  const view = planned.views.find((v) => v.tool === index);
  if (view === undefined) {
    const withViews = planned.views.map((v) => v.name);
    const spec = compiled.compiled.loaded;
    const output = spec !== null ? place(spec, ["tools", index, "output"]) : printable(command.spec);
    io.stderr(
      `kervanc view: ${output}: the tool "${printable(command.tool)}" has no view (output.view is none or absent, or the spec does not declare kervancExtensions: [views]). ` +
        (withViews.length > 0
          ? `Tools with a view: ${withViews.join(", ")}.\n`
          : "The spec has no tool with a view.\n"),
    );
    return 1;
  }
  const parsed = parseResult(text);
  if (typeof parsed === "string") {
    io.stderr(`kervanc view: ${parsed}\n`);
    return 1;
  }
  const out = command.out ?? `${command.tool}.view.html`;
  const html = standaloneViewPage(view.model, await viewRenderer(), parsed);
  const written = await writePage(out, html);
  if (written !== null) {
    io.stderr(`kervanc view: ${written}\n`);
    return 1;
  }
  io.stderr(
    `Wrote ${printable(out)} (${Math.round(Buffer.byteLength(html) / 1024)} KB): the ${view.model.kind} view of ${printable(command.tool)}; open it in a browser.\n`,
  );
  return 0;

  function place(spec: LoadedSpec, path: SpecPath): string {
    const where = locate(spec, path);
    return `${printable(command.spec)}:${where.line}:${where.column} ${formatPath(path)}`;
  }
}

/**
 * The result as the page receives it. A JSON object with `structuredContent`, `content` or `isError` is a whole
 * tool result (what `kervanc call --json` prints); any other object is the structured result itself, given the
 * text content the server would send with it. Anything else is refused: a message, positioned in the argument.
 */
export function parseResult(text: string): StandaloneResult | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = jsonErrorOffset(text, message);
    const { line, column } = lineColumn(text, offset);
    return `${ARGUMENT}:${line}:${column}: not valid JSON (${printable(message)}).`;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const what = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return (
      `${ARGUMENT}:1:1: the result must be a JSON object, not ${what}: the tool result as kervanc call --json prints it ` +
      `({"structuredContent": ...}), or the structured result when it is an object.` +
      (Array.isArray(value) ? ` For a list, give {"structuredContent": [...]}.` : "")
    );
  }
  const object = value as Record<string, unknown>;
  if (
    Object.hasOwn(object, "structuredContent") ||
    Object.hasOwn(object, "content") ||
    Object.hasOwn(object, "isError")
  ) {
    const content = object["content"];
    if (content !== undefined && !Array.isArray(content))
      return `${ARGUMENT}: the result's "content" must be a list of content blocks.`;
    if (object["isError"] !== undefined && typeof object["isError"] !== "boolean")
      return `${ARGUMENT}: the result's "isError" must be true or false.`;
    const structured = object["structuredContent"];
    return {
      content: (content as unknown[] | undefined) ?? textContent(structured),
      ...(structured !== undefined ? { structuredContent: structured } : {}),
      ...(object["isError"] === true ? { isError: true } : {}),
    };
  }
  return { content: textContent(object), structuredContent: object };
}

function textContent(structured: unknown): unknown[] {
  return structured === undefined ? [] : [{ type: "text", text: JSON.stringify(structured) }];
}

/** Where JSON.parse stopped: the position its message gives, or the end of the longest prefix that parses so far. */
function jsonErrorOffset(text: string, message: string): number {
  const at = /at position (\d+)/.exec(message);
  if (at !== null) return Math.min(Number(at[1]), text.length);
  // "Unexpected token 'x', ..." carries no position: search for the first place no JSON text can continue.
  const viable = (n: number): boolean => {
    try {
      JSON.parse(text.slice(0, n));
      return true;
    } catch (error) {
      // A prefix that stops only because the text ends: "end of JSON input", or a position at its very end.
      const m = error instanceof Error ? error.message : "";
      const at = /at position (\d+)/.exec(m);
      return /end of JSON input/.test(m) || (at !== null && Number(at[1]) >= n);
    }
  };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (viable(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split("\n");
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

/** Writes the page aside and renames it over `out`; only a regular file is ever replaced. A message, or null. */
async function writePage(out: string, html: string): Promise<string | null> {
  const existing = await lstat(out).catch(() => null);
  if (existing !== null && !existing.isFile())
    return `${printable(out)} is ${fileKind(existing)}, not a file; nothing was written. Choose another -o.`;
  const temp = join(dirname(out), `.${basename(out)}.view-${process.pid}`);
  let created = false;
  try {
    await mkdir(dirname(out), { recursive: true });
    // "wx": never through something already there (a link planted at the temporary name writes elsewhere).
    await writeFile(temp, html, { flag: "wx" });
    created = true;
    await rename(temp, out);
    return null;
  } catch (error) {
    if (created) await rm(temp, { force: true });
    return `cannot write ${printable(out)} (${errorCode(error)}); nothing was written.`;
  }
}
