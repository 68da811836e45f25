/** Printing shared by the commands: diagnostics in every format, colour by stream and environment, counted nouns. */
import type { Diagnostic } from "../diagnostics/diagnostic.ts";
import { type DiagnosticFormat, renderGithub, renderJson, renderSarif, renderText } from "../diagnostics/formats.ts";
import { KERVANC_VERSION } from "../kervanc-package.ts";
import type { Io } from "./io.ts";

/**
 * Colour on a terminal, never when piped or with NO_COLOR, always with FORCE_COLOR (set and not "0" or
 * "false"), which wins over NO_COLOR as in Node's own convention.
 */
export function useColor(io: Io, stream: "stdout" | "stderr"): boolean {
  const env = io.env ?? {};
  const force = env["FORCE_COLOR"];
  if (force !== undefined && force !== "0" && force !== "false") return true;
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  return io.isTTY?.[stream] === true;
}

/**
 * Text goes to stderr like tsc's; the machine formats (JSON, GitHub workflow commands, SARIF) to stdout, where a
 * CI step or a redirect picks them up.
 */
export function printDiagnostics(
  io: Io,
  diagnostics: readonly Diagnostic[],
  format: DiagnosticFormat | boolean,
  sources?: ReadonlyMap<string, string>,
): void {
  const chosen: DiagnosticFormat = format === true ? "json" : format === false ? "text" : format;
  switch (chosen) {
    case "json":
      io.stdout(renderJson(diagnostics));
      return;
    case "github":
      io.stdout(renderGithub(diagnostics));
      return;
    case "sarif":
      io.stdout(renderSarif(diagnostics, { toolVersion: KERVANC_VERSION }));
      return;
    case "text":
      io.stderr(renderText(diagnostics, { ...(sources ? { sources } : {}), style: { color: useColor(io, "stderr") } }));
  }
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
