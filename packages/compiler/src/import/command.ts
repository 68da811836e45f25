/**
 * The `kervanc import` command: reads the OpenAPI document, imports it, writes the spec, and composes what the
 * CLI prints (the CLI stays the only module that prints).
 *
 * An existing spec is not overwritten without `--force`: an imported spec is meant to be reviewed and edited,
 * and a second import would silently throw those edits away.
 */
import { lstat, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, basename } from "node:path";
import { type Diagnostic, type Finding, oneLine, report, toDiagnostic, WHOLE_FILE } from "../diagnostics/diagnostic.ts";
import { errorCode, fileKind, readRegularFile } from "../load/regular-file.ts";
import { DEFAULT_TOOLS_BUDGET, sizeLine } from "../plan/budget.ts";
import { importOpenApi, type ImportOptions, type ImportResult } from "./openapi.ts";

export interface ImportCommand extends ImportOptions {
  readonly input: string;
  readonly out: string;
  readonly force: boolean;
  readonly json: boolean;
}

export interface CommandOutput {
  readonly code: number;
  /**
   * With `json`, the report every machine format is made from, as a value: the CLI adds the diagnostics in the
   * chosen format and serializes it once. Null for text.
   */
  readonly json: ImportReport | null;
  /** What follows the diagnostics on stderr (the summary, or why nothing was written). */
  readonly stderr: string;
  /** Printed by the CLI in the chosen format. */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The text of each file the diagnostics point into, for code frames: the OpenAPI document as read, and the spec
   * when it was written (only then does the file on disk hold the text the frame would show).
   */
  readonly sources: ReadonlyMap<string, string>;
}

/** What `--format json` prints (the diagnostics get their documentation anchors in the CLI). */
export interface ImportReport {
  readonly ok: boolean;
  readonly written: boolean;
  readonly out?: string;
  readonly diagnostics: readonly Diagnostic[];
  readonly error?: "exists" | "write";
  readonly operations?: number;
  readonly tools?: ImportResult["tools"];
  readonly secrets?: readonly string[];
  readonly toolsList?: (NonNullable<ImportResult["size"]> & { readonly budget: number }) | null;
}

export async function importCommand(command: ImportCommand): Promise<CommandOutput> {
  const started = performance.now();
  // Read without blocking, and only a regular file: reading a named pipe would wait forever.
  const read = await readRegularFile(command.input);
  if (!read.ok) {
    const file = command.input;
    const { code, what } = read;
    const problem = report("KV7001", [], (m) =>
      code === "ENOENT"
        ? m.missing({ file })
        : what === "a folder"
          ? m.folder({ file })
          : what !== undefined
            ? m.notRegularFile({ file, what })
            : m.unreadable({ code: String(code) }),
    );
    return summarize(command, failure(file, problem), started, new Map());
  }
  const result = importOpenApi(command.input, read.bytes, command.out, command);
  // The document's text as the importer decoded it, for the frames (decoded once). None for a file that is not
  // UTF-8 or does not say it is OpenAPI: such a file (a credentials file behind a link) is shown by position only.
  const sources = new Map(result.documentText === undefined ? [] : [[command.input, result.documentText]]);
  if (!result.ok || result.text === null) return summarize(command, result, started, sources);
  const existing = await lstat(command.out).catch(() => null);
  // Only a regular file is ever replaced (with --force): a folder, a link or a device at -o is the user's.
  if (existing !== null && (!existing.isFile() || !command.force)) {
    const why = existing.isFile()
      ? "exists; it may hold your edits. Pass --force to replace it, or choose another -o."
      : `is ${fileKind(existing)}, not a spec file; choose another -o.`;
    return {
      code: 1,
      json: command.json ? { ok: false, written: false, diagnostics: result.diagnostics, error: "exists" } : null,
      stderr: `kervanc: ${oneLine(command.out)} ${why}\n`,
      diagnostics: result.diagnostics,
      sources,
    };
  }
  // Write next to the target, then rename: a reader never sees half a spec.
  const temp = join(dirname(command.out), `.${basename(command.out)}.import-${process.pid}`);
  let created = false;
  try {
    await mkdir(dirname(command.out), { recursive: true });
    // "wx": never through something already there (a link planted at the temporary name writes elsewhere).
    await writeFile(temp, result.text, { flag: "wx" });
    created = true;
    await rename(temp, command.out);
  } catch (error) {
    if (created) await rm(temp, { force: true });
    const where =
      typeof (error as { path?: unknown }).path === "string" ? (error as { path: string }).path : command.out;
    return {
      code: 1,
      json: command.json ? { ok: false, written: false, diagnostics: result.diagnostics, error: "write" } : null,
      stderr: `kervanc: cannot write ${oneLine(where)} (${errorCode(error)}); nothing was written.\n`,
      diagnostics: result.diagnostics,
      sources,
    };
  }
  sources.set(command.out, result.text);
  return summarize(command, result, started, sources);
}

function failure(file: string, problem: Finding): ImportResult {
  const d = toDiagnostic(file, WHOLE_FILE, problem);
  return { ok: false, diagnostics: [d], text: null, tools: [], operations: 0, secrets: [], size: null };
}

function summarize(
  command: ImportCommand,
  result: ImportResult,
  started: number,
  sources: ReadonlyMap<string, string>,
): CommandOutput {
  const { diagnostics } = result;
  const budget = command.toolsBudget ?? DEFAULT_TOOLS_BUDGET;
  if (command.json) {
    const value: ImportReport = {
      ok: result.ok,
      written: result.ok,
      out: command.out,
      diagnostics: result.diagnostics,
      operations: result.operations,
      tools: result.tools,
      secrets: result.secrets,
      toolsList: result.size === null ? null : { ...result.size, budget },
    };
    return { code: result.ok ? 0 : 1, json: value, stderr: "", diagnostics, sources };
  }
  let stderr = "";
  if (!result.ok) {
    const errors = result.diagnostics.filter((d) => d.severity === "error").length;
    stderr += `Found ${errors} error${errors === 1 ? "" : "s"}; nothing was written.\n`;
    return { code: 1, json: null, stderr, diagnostics, sources };
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  stderr += `Imported ${result.tools.length} of ${result.operations} operation${result.operations === 1 ? "" : "s"} from ${oneLine(command.input)} into ${oneLine(command.out)} in ${seconds} s.\n`;
  if (result.secrets.length > 0)
    stderr += `The server reads these secrets from environment variables of the same name: ${result.secrets.join(", ")}.\n`;
  stderr += `${oneLine(sizeLine(basename(command.out), result.size!, budget))}\n`;
  stderr += `Review the outputs marked "proposal" in ${oneLine(command.out)}, then build it: kervanc build ${oneLine(command.out)} -o <out>.\n`;
  return { code: 0, json: null, stderr, diagnostics, sources };
}
