/**
 * `kervanc check`: spec problems like build prints them; then, for each package that is not what the specs
 * build, what the difference does to the server's surface (tools, egress, secrets; security-relevant changes
 * first) and which files differ, with a short diff of each changed text file. The verdict is the last line.
 * `--format markdown` prints the same as a block fit for a pull-request comment; `--format json` as data.
 */
import { join } from "node:path";
import { check, type CheckReport } from "../review/check.ts";
import { KERVANC_VERSION } from "../kervanc-package.ts";
import type { Io } from "./io.ts";
import { terminalJson } from "../diagnostics/diagnostic.ts";
import { fromDrift, type PackageReview, renderMarkdown, renderText, reviewJson } from "../review/render.ts";
import { plural, printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";

export type ReviewFormat = "text" | "json" | "markdown";

export interface CheckCommand {
  readonly inputs: readonly string[];
  readonly out: string;
  readonly format: ReviewFormat;
  readonly followLinksOutside?: boolean;
}

export async function checkCommand(command: CheckCommand, io: Io): Promise<number> {
  const started = performance.now();
  return printCheck(
    io,
    await check({
      inputs: command.inputs,
      outDir: command.out,
      followLinksOutside: command.followLinksOutside === true,
    }),
    command.out,
    command.format,
    started,
  );
}

function reviews(report: CheckReport, out: string): PackageReview[] {
  return report.packages
    .filter((p) => p.drift.length > 0)
    .map((p) => ({
      where: join(out, p.folder),
      status: p.exists ? "changed" : "added",
      surface: p.surface,
      files: fromDrift(p.drift),
    }));
}

function printCheck(io: Io, report: CheckReport, out: string, format: ReviewFormat, started: number): number {
  const stale = report.packages.filter((p) => p.drift.length > 0);
  const fresh = report.ok && stale.length === 0 && report.orphans.length === 0;
  if (format === "json") {
    io.stdout(
      `${terminalJson({ ok: fresh, diagnostics: report.diagnostics, packages: report.packages, review: reviewJson(reviews(report, out)), orphans: report.orphans })}\n`,
    );
    return fresh ? 0 : 1;
  }
  printDiagnostics(io, report.diagnostics, "text", report.sources);
  if (!report.ok) {
    const errors = report.diagnostics.filter((d) => d.severity === "error").length;
    io.stderr(`Found ${errors} error${errors === 1 ? "" : "s"}; nothing was compared.\n`);
    return 1;
  }
  const shownOut = printable(out);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const total = report.packages.length;
  const orphanLines = report.orphans.map(
    (orphan) =>
      `${printable(join(out, orphan))} holds a kervanc package that no given spec builds; delete it or pass its spec.`,
  );
  const files = stale.reduce((n, p) => n + p.drift.length, 0);
  const problems = [
    ...(stale.length > 0
      ? [
          `${stale.length} of ${plural(total, "package")} differ${stale.length === 1 ? "s" : ""} (${plural(files, "file")})`,
        ]
      : []),
    ...(report.orphans.length > 0 ? [plural(report.orphans.length, "extra package")] : []),
  ];
  const verdict = fresh
    ? `Checked ${plural(total, "server")}: ${shownOut} is up to date (${seconds} s).`
    : `Stale: ${problems.join(", ")} in ${shownOut}. Rebuild with: kervanc build <the same specs> -o ${shownOut} --force`;
  if (format === "markdown") {
    const body = renderMarkdown(`kervanc check: ${out}`, reviews(report, out));
    io.stdout(`${body}${orphanLines.map((l) => `\n${l}\n`).join("")}\n${verdict}\n`);
    return fresh ? 0 : 1;
  }
  if (fresh) {
    io.stdout(`${verdict}\n`);
    return 0;
  }
  const lines = [
    `kervanc ${KERVANC_VERSION} builds something else than ${shownOut} holds:`,
    "",
    ...renderText(reviews(report, out)),
  ];
  for (const line of orphanLines) lines.push(line, "");
  lines.push(verdict);
  io.stdout(`${lines.join("\n")}\n`);
  return 1;
}
