/** `kervanc test`: every case of every spec-test file, reported like a test runner. */
import process from "node:process";
import { compareDiagnostics, type Diagnostic, terminalJson } from "../diagnostics/diagnostic.ts";
import { jsonDiagnostics } from "../diagnostics/formats.ts";
import { DEV_BANNER } from "../devloop/relax.ts";
import { refuseInProduction } from "./dev-options.ts";
import { findTests } from "../spectest/find.ts";
import { type FileResult, runTestFile } from "../spectest/run.ts";
import { plural, printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";
import type { Io } from "./io.ts";

export interface TestCommand {
  readonly inputs: readonly string[];
  readonly format: "text" | "json";
  readonly followLinksOutside?: boolean;
}

export async function testCommand(command: TestCommand, io: Io): Promise<number> {
  refuseInProduction("kervanc test", process.env);
  const json = command.format === "json";
  const found = await findTests(command.inputs, { followLinksOutside: command.followLinksOutside === true });
  const results: FileResult[] = [];
  io.stderr(DEV_BANNER);
  // The server's warnings about upstream statuses are what the cases test; its errors (it stopped, a secret
  // cannot be used) are news.
  const onLog = (line: string): void => {
    if (line.startsWith("Error")) io.stderr(`  server: ${printable(line)}\n`);
  };
  for (const pair of found.pairs) {
    const result = await runTestFile(pair.testFile, pair.specFile, { env: process.env, onLog });
    results.push(result);
    if (!json) printFile(io, result);
  }
  const cases = results.flatMap((r) => r.cases);
  const passed = cases.filter((c) => c.ok).length;
  const failed = cases.length - passed;
  const diagnostics: Diagnostic[] = [...found.diagnostics, ...results.flatMap((r) => r.diagnostics)].sort(
    compareDiagnostics,
  );
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const ok = failed === 0 && errors === 0 && cases.length > 0;
  if (json) {
    // Diagnostics as build's JSON has them (with the documentation anchor), in the summary and in each file.
    const files = results.map((r) => ({ ...r, diagnostics: jsonDiagnostics(r.diagnostics) }));
    io.stdout(`${terminalJson({ ok, passed, failed, diagnostics: jsonDiagnostics(diagnostics), files })}\n`);
  } else {
    printDiagnostics(io, found.diagnostics, "text");
    const problems = errors > 0 ? `, ${plural(errors, "error")} in specs or test files` : "";
    io.stdout(`\n${passed} passed, ${failed} failed${problems}.\n`);
  }
  return ok ? 0 : 1;
}

function printFile(io: Io, result: FileResult): void {
  io.stdout(`${printable(result.testFile)} (${printable(result.specFile)})\n`);
  printDiagnostics(io, result.diagnostics, "text");
  for (const c of result.cases) {
    io.stdout(`  ${c.ok ? "PASS" : "FAIL"} ${printable(c.name)}\n`);
    for (const failure of c.failures) {
      // Each line escaped on its own: a diff is several lines, and nothing from a result may drive the terminal.
      io.stdout(
        `${failure
          .split("\n")
          .map((line, i) => `${i === 0 ? "       - " : "         "}${printable(line)}`)
          .join("\n")}\n`,
      );
    }
  }
}
