/** Printing shared by the commands: diagnostics in text or JSON, and counted nouns. */
import { type Diagnostic, formatDiagnostic } from "../diagnostics/diagnostic.ts";
import type { Io } from "../cli.ts";

export function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[], json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(diagnostics, null, 2)}\n`);
    return;
  }
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
