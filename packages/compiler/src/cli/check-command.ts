/**
 * `kervanc check`: spec problems like build prints them, then each stale package with its changed, missing and
 * extra files and a short diff per changed text file. The verdict is the last line.
 */
import { join } from "node:path";
import { check, type CheckReport } from "../build.ts";
import { KERVANC_VERSION } from "../emit/versions.ts";
import type { Io } from "../cli.ts";
import { plural, printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";

export interface CheckCommand {
  readonly inputs: readonly string[];
  readonly out: string;
  readonly format: "text" | "json";
}

export async function checkCommand(command: CheckCommand, io: Io): Promise<number> {
  const started = performance.now();
  return printCheck(io, await check({ inputs: command.inputs, outDir: command.out }), command.out, command.format === "json", started);
}

function printCheck(io: Io, report: CheckReport, out: string, json: boolean, started: number): number {
  const stale = report.packages.filter((p) => p.drift.length > 0);
  const fresh = report.ok && stale.length === 0 && report.orphans.length === 0;
  if (json) {
    io.stdout(`${JSON.stringify({ ok: fresh, diagnostics: report.diagnostics, packages: report.packages, orphans: report.orphans }, null, 2)}\n`);
    return fresh ? 0 : 1;
  }
  printDiagnostics(io, report.diagnostics, false);
  if (!report.ok) {
    const errors = report.diagnostics.filter((d) => d.severity === "error").length;
    io.stderr(`Found ${errors} error${errors === 1 ? "" : "s"}; nothing was compared.\n`);
    return 1;
  }
  const shownOut = printable(out);
  const lines: string[] = [];
  for (const pkg of stale) {
    const where = printable(join(out, pkg.folder));
    if (!pkg.exists) {
      lines.push(`${where} is missing: kervanc ${KERVANC_VERSION} builds ${plural(pkg.drift.length, "file")} there from ${printable(pkg.file)}.`, "");
      continue;
    }
    lines.push(`${where} is not what kervanc ${KERVANC_VERSION} builds from ${printable(pkg.file)}:`);
    for (const d of pkg.drift) lines.push(`  ${d.status.padEnd(7)} ${printable(d.path)}${d.note ? ` (${d.note})` : ""}`);
    for (const d of pkg.drift) {
      if (d.diff === null) continue;
      lines.push("", `--- ${where}/${printable(d.path)} (on disk)`, `+++ ${where}/${printable(d.path)} (expected)`, d.diff);
    }
    lines.push("");
  }
  for (const orphan of report.orphans) lines.push(`${printable(join(out, orphan))} holds a kervanc package that no given spec builds; delete it or pass its spec.`, "");
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const total = report.packages.length;
  if (fresh) {
    io.stdout(`Checked ${plural(total, "server")}: ${shownOut} is up to date (${seconds} s).\n`);
    return 0;
  }
  const files = stale.reduce((n, p) => n + p.drift.length, 0);
  const problems = [
    ...(stale.length > 0 ? [`${stale.length} of ${plural(total, "package")} differ${stale.length === 1 ? "s" : ""} (${plural(files, "file")})`] : []),
    ...(report.orphans.length > 0 ? [plural(report.orphans.length, "extra package")] : []),
  ];
  lines.push(`Stale: ${problems.join(", ")} in ${shownOut}. Rebuild with: kervanc build <the same specs> -o ${shownOut} --force`);
  io.stdout(`${lines.join("\n")}\n`);
  return 1;
}
