/**
 * `kervanc import` in every diagnostic format, through the shared printer. The import command composes JSON
 * for `--format json`; the other machine formats are made from that JSON's diagnostics here, so the import
 * module needs no knowledge of them, and its JSON gets the documentation anchor like build's. Text is printed
 * like build's too: each diagnostic with its code frame (from the OpenAPI document, or the written spec) and
 * its documentation anchor, coloured by the same rules.
 */
import type { Diagnostic } from "../diagnostics/diagnostic.ts";
import { type DiagnosticFormat, jsonDiagnostics } from "../diagnostics/formats.ts";
import type { CommandOutput } from "../import/command.ts";
import type { Io } from "../cli.ts";
import { printDiagnostics } from "./print.ts";

/** Prints what the import command composed (in JSON for every format but text) in `format`. */
export function printImport(io: Io, result: CommandOutput, format: DiagnosticFormat): number {
  if (format === "text") {
    printDiagnostics(io, result.diagnostics, "text", result.sources);
    io.stdout(result.stdout);
    io.stderr(result.stderr);
    return result.code;
  }
  const value = JSON.parse(result.stdout) as { diagnostics?: Diagnostic[] };
  const diagnostics = value.diagnostics ?? [];
  if (format === "json")
    io.stdout(`${JSON.stringify({ ...value, diagnostics: jsonDiagnostics(diagnostics) }, null, 2)}\n`);
  else printDiagnostics(io, diagnostics, format);
  io.stderr(result.stderr);
  return result.code;
}
