/**
 * The cap on diagnostics shown per file (KV9005), for `build` (per spec) and `import` (per OpenAPI document):
 * past this many, a file is mostly what kervanc cannot read or express, and the rest are counted, not shown.
 */
import { type Diagnostic, report, toDiagnostic, WHOLE_FILE } from "./diagnostic.ts";

/** More problems than this in one file are not news: a file that has them is usually not a spec at all. */
export const MAX_DIAGNOSTICS_PER_FILE = 200;

/** Keeps the first diagnostics (already sorted) and one KV9005 that counts the rest (an error if any of them is one). */
export function capDiagnostics(file: string, diagnostics: Diagnostic[]): Diagnostic[] {
  if (diagnostics.length <= MAX_DIAGNOSTICS_PER_FILE) return diagnostics;
  const rest = diagnostics.slice(MAX_DIAGNOSTICS_PER_FILE);
  const errors = rest.filter((d) => d.severity === "error").length;
  const last = diagnostics[MAX_DIAGNOSTICS_PER_FILE - 1]!;
  const note = report("KV9005", [], (m) => m.more({ count: rest.length, errors }), {
    severity: errors > 0 ? "error" : "warning",
    at: { line: last.line, column: last.column },
  });
  return [...diagnostics.slice(0, MAX_DIAGNOSTICS_PER_FILE), toDiagnostic(file, WHOLE_FILE, note)];
}
