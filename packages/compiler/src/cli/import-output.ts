/**
 * `kervanc import` in every diagnostic format, through the shared printer. The import command composes JSON
 * for `--format json`; the other machine formats are made from that JSON's diagnostics here, so the import
 * module needs no knowledge of them, and its JSON gets the documentation anchor like build's. Text is printed
 * like build's too: each diagnostic with its code frame (from the OpenAPI document, or the written spec) and
 * its documentation anchor, coloured by the same rules.
 */
import { type DiagnosticFormat, jsonDiagnostics } from "../diagnostics/formats.ts";
import type { CommandOutput } from "../import/command.ts";
import type { Io } from "./io.ts";
import { terminalJson } from "../diagnostics/diagnostic.ts";
import { printDiagnostics } from "./print.ts";

/** Prints what the import command composed (a report value for every format but text) in `format`. */
export function printImport(io: Io, result: CommandOutput, format: DiagnosticFormat): number {
  if (format === "text" || result.json === null) {
    printDiagnostics(io, result.diagnostics, "text", result.sources);
    io.stderr(result.stderr);
    return result.code;
  }
  // The report is a value, serialized here once (it was JSON text the CLI parsed back before).
  if (format === "json")
    io.stdout(`${terminalJson({ ...result.json, diagnostics: jsonDiagnostics(result.diagnostics) })}\n`);
  else printDiagnostics(io, result.diagnostics, format);
  io.stderr(result.stderr);
  return result.code;
}
