/**
 * The `kervanc` command line. Only this module prints; every stage returns data.
 *
 * Exit codes: 0 success (warnings allowed), 1 a spec has errors, 2 a usage error.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { build } from "./build.ts";
import { type Diagnostic, formatDiagnostic } from "./diagnostics/diagnostic.ts";
import { KERVANC_VERSION } from "./emit/versions.ts";

const USAGE = `Usage: kervanc build <spec-or-folder>... -o <out> [--format text|json]

Compiles Kervan specs (*.yaml, *.yml) into self-contained MCP server packages, one per spec, at <out>/<spec name>/.

Options:
  -o, --out <dir>        where to write the packages (required)
  --format text|json     how to print diagnostics (default: text)
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
        format: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
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
  try {
    if (command === undefined) throw new UsageError("Missing command.");
    if (command !== "build") throw new UsageError(`Unknown command "${command}".`);
    if (inputs.length === 0) throw new UsageError("Missing specs: name spec files or folders.");
    if (values.out === undefined || values.out === "") throw new UsageError("Missing -o <out>.");
    if (values.format !== undefined && values.format !== "text" && values.format !== "json") {
      throw new UsageError(`--format must be text or json, not "${values.format}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message);
    throw error;
  }
  const json = values.format === "json";
  const started = performance.now();
  const report = await build({ inputs, outDir: values.out });
  printDiagnostics(io, report.diagnostics, json);
  if (!report.ok) {
    if (!json) {
      const errors = report.diagnostics.filter((d) => d.severity === "error").length;
      io.stderr(`Found ${errors} error${errors === 1 ? "" : "s"}; nothing was written.\n`);
    }
    return 1;
  }
  if (!json) {
    const tools = report.servers.reduce((n, s) => n + s.tools, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const servers = report.servers.length;
    io.stderr(`Built ${servers} server${servers === 1 ? "" : "s"} (${tools} tool${tools === 1 ? "" : "s"}) into ${values.out} in ${seconds} s.\n`);
  }
  return 0;
}

function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[], json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(diagnostics, null, 2)}\n`);
    return;
  }
  for (const d of diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
}

function usage(io: Io, message: string): number {
  io.stderr(`kervanc: ${message}\n${USAGE}\n`);
  return 2;
}
