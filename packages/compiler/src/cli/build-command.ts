/** `kervanc build`: the pipeline over every spec, then the summary a user reads. */
import { realpath, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { build } from "../build.ts";
import { DEFAULT_TOOLS_BUDGET, sizeLine } from "../plan/budget.ts";
import { UsageError } from "./args.ts";
import type { DiagnosticFormat } from "../diagnostics/formats.ts";
import { plural, printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";
import type { Io } from "./io.ts";

export interface BuildCommand {
  readonly inputs: readonly string[];
  readonly out: string;
  readonly force: boolean;
  readonly format: DiagnosticFormat;
  readonly toolsBudget: number | undefined;
  readonly strictKervan?: boolean;
  readonly followLinksOutside?: boolean;
}

export async function buildCommand(command: BuildCommand, io: Io): Promise<number> {
  await refuseOutputInSpecs(command.inputs, command.out);
  const started = performance.now();
  // The machine formats own stdout: no summary or size lines are mixed into them.
  const json = command.format === "json" || command.format === "sarif";
  const { toolsBudget } = command;
  const report = await build({
    inputs: command.inputs,
    outDir: command.out,
    force: command.force,
    strictKervan: command.strictKervan === true,
    followLinksOutside: command.followLinksOutside === true,
    ...(toolsBudget !== undefined ? { toolsBudget } : {}),
  });
  printDiagnostics(io, report.diagnostics, command.format, report.sources);
  if (!report.ok) {
    if (!json) {
      const errors = report.diagnostics.filter((d) => d.severity === "error").length;
      const written =
        report.servers.length === 0
          ? "nothing was written"
          : `${plural(report.servers.length, "package")} ${report.servers.length === 1 ? "was" : "were"} written before it`;
      io.stderr(`Found ${errors} error${errors === 1 ? "" : "s"}; ${written}.\n`);
    }
    return 1;
  }
  if (!json) {
    const tools = report.servers.reduce((n, s) => n + s.tools, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const servers = report.servers.length;
    const skipped = report.skipped.length > 0 ? `, skipped ${report.skipped.length} unchanged,` : "";
    io.stderr(
      `Built ${servers} server${servers === 1 ? "" : "s"} (${plural(tools, "tool")})${skipped} into ${printable(command.out)} in ${seconds} s.\n`,
    );
    // The size of each server's tools/list (what every conversation pays for), on stdout, for the specs analyzed:
    // an unchanged spec is not (its size was printed when it was built).
    for (const s of report.sizes)
      io.stdout(`${sizeLine(printable(s.folder), s.size, toolsBudget ?? DEFAULT_TOOLS_BUDGET)}\n`);
  }
  return 0;
}

/**
 * `-o specs` would write packages among the specs (and a later build would read their files as specs): refuse
 * an output folder that is a folder of the inputs, or the folder a spec file sits in.
 */
async function refuseOutputInSpecs(inputs: readonly string[], out: string): Promise<void> {
  const outPath = await canonical(out);
  for (const input of inputs) {
    const isFolder = await stat(input).then(
      (s) => s.isDirectory(),
      () => false,
    );
    const folder = await canonical(isFolder ? input : dirname(input));
    if (folder === outPath) {
      throw new UsageError(
        `the output folder ${printable(out)} is where the specs are (${printable(input)}); write the packages to a folder of their own, such as -o servers.`,
      );
    }
  }
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}
