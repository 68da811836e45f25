/**
 * The `kervanc` command line. Only this module prints; every stage returns data.
 *
 * Exit codes: 0 success (warnings allowed), 1 a spec has errors (or, for `check`, the output is stale),
 * 2 a usage error.
 *
 * Everything printed that comes from the user (file names, folder names, arguments) goes through `oneLine` or
 * `terminalSafe`: a spec named `a\x1b[2J.yaml` or `a\nDone.yaml` must not drive the terminal or forge a line.
 */
import process from "node:process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build, check, type CheckReport } from "./build.ts";
import { type Diagnostic, formatDiagnostic, oneLine, terminalSafe } from "./diagnostics/diagnostic.ts";
import { KERVANC_VERSION } from "./emit/versions.ts";
import { sizeLine, DEFAULT_TOOLS_BUDGET } from "./import/budget.ts";
import { importCommand } from "./import/command.ts";

const USAGE = `Usage: kervanc build <spec-or-folder>... -o <out> [--force] [--format text|json] [--tools-budget <tokens>]
       kervanc check <spec-or-folder>... -o <out> [--format text|json]
       kervanc import <openapi.yaml|json> -o <spec.yaml> [--include <sel>]... [--exclude <sel>]... [--read-only]
                      [--server-url <url>] [--tools-budget <tokens>] [--force] [--format text|json]

build compiles Kervan specs (*.yaml, *.yml) into self-contained MCP server packages, one per spec, at
<out>/<spec name>/. A package built by this kervanc version from the same spec is skipped unless --force.
check builds in memory and compares with <out> (without -o, the last argument is <out>): exit 0 when it is
exactly what build writes, 1 when not.
import turns an OpenAPI 3.0 or 3.1 document into one spec that build accepts, for review before building.

Options:
  -o, --out <dir>        the folder of the packages (required); for import, the spec file to write
  --force                build: rebuild packages that are up to date; import: replace an existing spec
  --format text|json     how to print diagnostics (default: text)
  --tools-budget <n>     build, import: warn when a server's tools/list is over n tokens (default 8000)
  --include <sel>        import: only operations with this tag, operationId or route ("GET /pets")
  --exclude <sel>        import: leave out operations with this tag, operationId or route
  --read-only            import: only GET operations
  --server-url <url>     import: the API's base URL, instead of the document's servers
  -h, --help             show this help
  -v, --version          print the version`;

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

const defaultIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

class UsageError extends Error {}

export async function run(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        out: { type: "string", short: "o" },
        force: { type: "boolean" },
        format: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        "tools-budget": { type: "string" },
        include: { type: "string", multiple: true },
        exclude: { type: "string", multiple: true },
        "read-only": { type: "boolean" },
        "server-url": { type: "string" },
      },
    });
  } catch (error) {
    return usage(io, error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (values.version) {
    io.stdout(`kervanc ${KERVANC_VERSION}\n`);
    return 0;
  }
  const [command, ...inputs] = positionals;
  // `kervanc check <specs>... <out>` (the form CI steps tend to use) is the same as `check <specs>... -o <out>`:
  // without -o, the last argument is the output folder.
  if (command === "check" && values.out === undefined && inputs.length >= 2) values.out = inputs.pop();
  let toolsBudget: number | undefined;
  try {
    if (command === undefined) throw new UsageError("Missing command.");
    if (command !== "build" && command !== "check" && command !== "import") throw new UsageError(`Unknown command "${command}".`);
    if (command === "check" && values.force) throw new UsageError("--force applies to build only.");
    if (command !== "import") {
      for (const option of ["include", "exclude", "read-only", "server-url"] as const) {
        if (values[option] !== undefined) throw new UsageError(`--${option} applies to import only.`);
      }
    }
    if (values["tools-budget"] !== undefined) {
      if (command === "check") throw new UsageError("--tools-budget applies to build and import only.");
      if (!/^[1-9][0-9]{0,8}$/.test(values["tools-budget"])) throw new UsageError(`--tools-budget must be a whole number of tokens from 1, not "${values["tools-budget"]}".`);
      toolsBudget = Number(values["tools-budget"]);
    }
    if (inputs.length === 0) throw new UsageError(command === "import" ? "Missing the OpenAPI document to import." : "Missing specs: name spec files or folders.");
    if (command === "import" && inputs.length > 1) throw new UsageError("import reads one OpenAPI document.");
    if (values.out === undefined || values.out === "") throw new UsageError(command === "import" ? "Missing -o <spec.yaml>." : "Missing -o <out>.");
    if (values.format !== undefined && values.format !== "text" && values.format !== "json") {
      throw new UsageError(`--format must be text or json, not "${values.format}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message);
    throw error;
  }
  const json = values.format === "json";
  const started = performance.now();
  if (command === "check") return printCheck(io, await check({ inputs, outDir: values.out }), values.out, json, started);
  if (command === "import") {
    const result = await importCommand({
      input: inputs[0]!,
      out: values.out,
      force: values.force ?? false,
      json,
      include: values.include ?? [],
      exclude: values.exclude ?? [],
      readOnly: values["read-only"] ?? false,
      ...(values["server-url"] !== undefined ? { serverUrl: values["server-url"] } : {}),
      ...(toolsBudget !== undefined ? { toolsBudget } : {}),
    });
    io.stdout(result.stdout);
    io.stderr(result.stderr);
    return result.code;
  }
  const report = await build({ inputs, outDir: values.out, force: values.force ?? false, ...(toolsBudget !== undefined ? { toolsBudget } : {}) });
  printDiagnostics(io, report.diagnostics, json);
  if (!report.ok) {
    if (!json) {
      const errors = report.diagnostics.filter((d) => d.severity === "error").length;
      const written = report.servers.length === 0 ? "nothing was written" : `${plural(report.servers.length, "package")} ${report.servers.length === 1 ? "was" : "were"} written before it`;
      io.stderr(`Found ${errors} error${errors === 1 ? "" : "s"}; ${written}.\n`);
    }
    return 1;
  }
  if (!json) {
    const tools = report.servers.reduce((n, s) => n + s.tools, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const servers = report.servers.length;
    const skipped = report.skipped.length > 0 ? `, skipped ${report.skipped.length} unchanged,` : "";
    io.stderr(`Built ${servers} server${servers === 1 ? "" : "s"} (${plural(tools, "tool")})${skipped} into ${oneLine(values.out)} in ${seconds} s.\n`);
    // The size of each server's tools/list (what every conversation pays for), built or skipped, on stdout.
    for (const s of report.sizes) io.stdout(`${oneLine(sizeLine(s.folder, s.size, toolsBudget ?? DEFAULT_TOOLS_BUDGET))}\n`);
  }
  return 0;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * Prints a check: spec problems like build does, then each stale package with its changed, missing and extra
 * files and a short diff per changed text file. The verdict is the last line.
 */
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
  const lines: string[] = [];
  for (const pkg of stale) {
    const where = oneLine(join(out, pkg.folder));
    const file = oneLine(pkg.file);
    if (!pkg.exists) {
      lines.push(`${where} is missing: kervanc ${KERVANC_VERSION} builds ${plural(pkg.drift.length, "file")} there from ${file}.`, "");
      continue;
    }
    lines.push(`${where} is not what kervanc ${KERVANC_VERSION} builds from ${file}:`);
    for (const d of pkg.drift) lines.push(`  ${d.status.padEnd(7)} ${oneLine(d.path)}${d.note ? ` (${oneLine(d.note)})` : ""}`);
    for (const d of pkg.drift) {
      if (d.diff === null) continue;
      lines.push("", `--- ${join(where, oneLine(d.path))} (on disk)`, `+++ ${join(where, oneLine(d.path))} (expected)`, terminalSafe(d.diff));
    }
    lines.push("");
  }
  for (const orphan of report.orphans) lines.push(`${oneLine(join(out, orphan))} holds a kervanc package that no given spec builds; delete it or pass its spec.`, "");
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  const total = report.packages.length;
  if (fresh) {
    io.stdout(`Checked ${plural(total, "server")}: ${oneLine(out)} is up to date (${seconds} s).\n`);
    return 0;
  }
  const files = stale.reduce((n, p) => n + p.drift.length, 0);
  const problems = [
    ...(stale.length > 0 ? [`${stale.length} of ${plural(total, "package")} differ${stale.length === 1 ? "s" : ""} (${plural(files, "file")})`] : []),
    ...(report.orphans.length > 0 ? [plural(report.orphans.length, "extra package")] : []),
  ];
  lines.push(`Stale: ${problems.join(", ")} in ${oneLine(out)}. Rebuild with: kervanc build <the same specs> -o ${oneLine(out)} --force`);
  io.stdout(`${lines.join("\n")}\n`);
  return 1;
}

function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[], json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(diagnostics, null, 2)}\n`);
    return;
  }
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
}

function usage(io: Io, message: string): number {
  io.stderr(`kervanc: ${oneLine(message)}\n${USAGE}\n`);
  return 2;
}
