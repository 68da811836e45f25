/**
 * The `kervanc` command line. Only this module and the command modules under `cli/` print; every stage returns
 * data.
 *
 * Exit codes: 0 success (warnings allowed), 1 a spec has errors (or, for `check`, the output is stale),
 * 2 a usage error.
 *
 * The command modules are imported when their command runs, so `kervanc --help` and `--version` load none of
 * the compiler (yaml, Ajv, esbuild, prettier).
 */
import type { Io } from "./cli/io.ts";
import process from "node:process";
import { parseArgs, UnknownOptionError, UsageError, type OptionValues } from "./cli/args.ts";
import { COMMANDS, type CommandSpec, commandHelp, findCommand, overview } from "./cli/commands.ts";
import { closest } from "./analyze/suggest.ts";
import { printable } from "./cli/text.ts";
import { KERVANC_VERSION } from "./kervanc-package.ts";
import { DIAGNOSTIC_FORMATS, type DiagnosticFormat } from "./diagnostics/formats.ts";

const defaultIo: Io = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: { stdout: process.stdout.isTTY === true, stderr: process.stderr.isTTY === true },
  env: process.env,
};

export async function run(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr(overview(KERVANC_VERSION));
    return 2;
  }
  if (first === "--version" || first === "-V" || first === "-v") {
    io.stdout(`kervanc ${KERVANC_VERSION}\n`);
    return 0;
  }
  if (first === "--help" || first === "-h") {
    io.stdout(overview(KERVANC_VERSION));
    return 0;
  }
  const command = findCommand(first);
  if (command === undefined) {
    if (first.startsWith("-"))
      return usage(io, null, `unknown option ${printable(first)}; options go after the command.`);
    const close = closest(
      first,
      COMMANDS.map((c) => c.name),
    );
    return usage(
      io,
      null,
      `unknown command "${printable(first)}".${close !== undefined ? ` Did you mean "${close}"?` : ""}`,
    );
  }
  let values: OptionValues;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs(rest, command.options));
  } catch (error) {
    if (error instanceof UnknownOptionError) return usage(io, command, elsewhere(error.option) ?? error.message);
    if (error instanceof UsageError) return usage(io, command, error.message);
    throw error;
  }
  if (values["help"] === true) {
    io.stdout(commandHelp(command));
    return 0;
  }
  try {
    return await dispatch(command, values, positionals, io);
  } catch (error) {
    if (error instanceof UsageError) return usage(io, command, error.message);
    throw error;
  }
}

async function dispatch(command: CommandSpec, values: OptionValues, positionals: string[], io: Io): Promise<number> {
  // check and diff print reviews, which also come as Markdown; the others print diagnostics.
  const format = command.name === "check" || command.name === "diff" ? "text" : formatOption(values);
  switch (command.name) {
    case "help": {
      if (positionals.length > 1) throw new UsageError("help takes at most one command.");
      const name = positionals[0];
      if (name === undefined) {
        io.stdout(overview(KERVANC_VERSION));
        return 0;
      }
      const target = findCommand(name);
      if (target === undefined) throw new UsageError(`unknown command "${printable(name)}".`);
      io.stdout(commandHelp(target));
      return 0;
    }
    case "init": {
      if (positionals.length > 1) throw new UsageError("init takes at most one folder.");
      const { initCommand } = await import("./cli/init-command.ts");
      return initCommand(positionals[0] ?? ".", io);
    }
    case "build": {
      const out = requireOut(values, "Missing -o <out>.");
      if (positionals.length === 0) throw new UsageError("missing specs: name spec files or folders.");
      const { buildCommand } = await import("./cli/build-command.ts");
      return buildCommand(
        {
          inputs: positionals,
          out,
          force: values["force"] === true,
          strictKervan: values["strict-kervan"] === true,
          followLinksOutside: values["follow-links-outside"] === true,
          format,
          toolsBudget: toolsBudget(values),
        },
        io,
      );
    }
    case "check": {
      // `kervanc check <specs>... <out>` (the form CI steps tend to use) is the same as `check <specs>... -o <out>`.
      if (values["out"] === undefined && positionals.length >= 2) values["out"] = positionals.pop();
      const out = requireOut(values, "Missing -o <out>.");
      if (positionals.length === 0) throw new UsageError("missing specs: name spec files or folders.");
      const { checkCommand } = await import("./cli/check-command.ts");
      return checkCommand(
        {
          inputs: positionals,
          out,
          format: reviewFormat(values),
          followLinksOutside: values["follow-links-outside"] === true,
        },
        io,
      );
    }
    case "mcpb": {
      if (positionals.length !== 1) throw new UsageError("mcpb takes one generated package folder.");
      const out = requireOut(values, "Missing -o <file.mcpb>.");
      const { mcpbCommand } = await import("./cli/mcpb-command.ts");
      return mcpbCommand({ packageDir: positionals[0]!, out, author: values["author"] as string | undefined }, io);
    }
    case "diff": {
      if (positionals.length !== 2)
        throw new UsageError("diff compares two output folders: kervanc diff <old-out> <new-out>.");
      const { diffCommand } = await import("./cli/diff-command.ts");
      return diffCommand(positionals[0]!, positionals[1]!, reviewFormat(values), io);
    }
    case "import": {
      if (positionals.length === 0) throw new UsageError("missing the OpenAPI document to import.");
      if (positionals.length > 1) throw new UsageError("import reads one OpenAPI document.");
      const out = requireOut(values, "Missing -o <spec.yaml>.");
      const budget = toolsBudget(values);
      const { importCommand } = await import("./import/command.ts");
      const result = await importCommand({
        input: positionals[0]!,
        out,
        force: values["force"] === true,
        // Every machine format is made from the import's JSON (cli/import-output.ts).
        json: format !== "text",
        include: (values["include"] as string[] | undefined) ?? [],
        exclude: (values["exclude"] as string[] | undefined) ?? [],
        readOnly: values["read-only"] === true,
        skipInvalid: values["skip-invalid"] === true,
        toolsets: values["toolsets"] === true,
        upstreamAuth: values["upstream-auth"] === true,
        binaryOutput: values["binary-output"] === true,
        ...(typeof values["server-url"] === "string" ? { serverUrl: values["server-url"] } : {}),
        ...(budget !== undefined ? { toolsBudget: budget } : {}),
      });
      const { printImport } = await import("./cli/import-output.ts");
      return printImport(io, result, format);
    }
    case "call": {
      if (positionals.length < 2)
        throw new UsageError("call takes a spec and a tool: kervanc call <spec> <tool> ['<json arguments>'].");
      if (positionals.length > 3) throw new UsageError("call takes one JSON argument; quote it as one word.");
      const { callCommand } = await import("./cli/call-command.ts");
      return callCommand(
        {
          spec: positionals[0]!,
          tool: positionals[1]!,
          arguments: positionals[2],
          secretsFile: values["secrets-file"] as string | undefined,
          json: values["json"] === true,
          record: values["record"] as string | undefined,
          callerHeaders: (values["caller-header"] as string[] | undefined) ?? [],
          subjectToken: values["subject-token"] as string | undefined,
        },
        io,
      );
    }
    case "view": {
      if (positionals.length < 2)
        throw new UsageError("view takes a spec and a tool: kervanc view <spec> <tool> '<json result>' [-o FILE].");
      if (positionals.length > 3) throw new UsageError("view takes one JSON result; quote it as one word.");
      const out = values["out"];
      if (out !== undefined && (typeof out !== "string" || out === "")) throw new UsageError("-o needs a file name.");
      const { viewCommand } = await import("./cli/view-command.ts");
      return viewCommand(
        { spec: positionals[0]!, tool: positionals[1]!, result: positionals[2], out: out as string | undefined },
        io,
      );
    }
    case "dev": {
      if (positionals.length !== 1) throw new UsageError("dev serves one spec file: kervanc dev <spec>.");
      if (/\.test\.ya?ml$/i.test(positionals[0]!))
        throw new UsageError(
          `${printable(positionals[0]!)} is a spec-test file; run it with kervanc test, and give dev its spec.`,
        );
      const { devCommand } = await import("./cli/dev-command.ts");
      const port = values["port"];
      if (port !== undefined && values["http"] !== true) throw new UsageError("--port applies with --http.");
      if (port !== undefined && (typeof port !== "string" || !/^[0-9]{1,5}$/.test(port) || Number(port) > 65535)) {
        throw new UsageError(`--port must be a port number from 0 to 65535, not "${printable(String(port))}".`);
      }
      const httpPort = values["http"] === true ? Number(port ?? 3000) : undefined;
      return devCommand(
        {
          spec: positionals[0]!,
          secretsFile: values["secrets-file"] as string | undefined,
          repl: values["repl"] === true,
          httpPort,
          callerHeaders: (values["caller-header"] as string[] | undefined) ?? [],
          subjectToken: values["subject-token"] as string | undefined,
        },
        io,
      );
    }
    case "test": {
      if (positionals.length === 0) throw new UsageError("missing specs: name spec files, test files or folders.");
      const { testCommand } = await import("./cli/test-command.ts");
      if (format !== "text" && format !== "json")
        throw new UsageError(`--format must be text or json for test, not "${format}".`);
      return testCommand(
        { inputs: positionals, format, followLinksOutside: values["follow-links-outside"] === true },
        io,
      );
    }
    default:
      throw new Error(`The command table names "${command.name}", which has no implementation.`);
  }
}

/** For an option another command has: which commands take it (`--force applies to build and import only.`). */
function elsewhere(option: string): string | undefined {
  const owners = COMMANDS.filter((c) =>
    c.options.some((o) => `--${o.name}` === option || (o.short !== undefined && `-${o.short}` === option)),
  ).map((c) => c.name);
  if (owners.length === 0) return undefined;
  return `${option} applies to ${owners.length === 1 ? owners[0] : `${owners.slice(0, -1).join(", ")} and ${owners.at(-1)}`} only.`;
}

function requireOut(values: OptionValues, message: string): string {
  const out = values["out"];
  if (typeof out !== "string" || out === "") throw new UsageError(`${message[0]!.toLowerCase()}${message.slice(1)}`);
  return out;
}

function formatOption(values: OptionValues): DiagnosticFormat {
  const format = values["format"];
  if (format === undefined) return "text";
  if ((DIAGNOSTIC_FORMATS as readonly unknown[]).includes(format)) return format as DiagnosticFormat;
  throw new UsageError(`--format must be text, json, github or sarif, not "${printable(String(format))}".`);
}

function reviewFormat(values: OptionValues): "text" | "json" | "markdown" {
  const format = values["format"];
  if (format === undefined || format === "text" || format === "json" || format === "markdown") return format ?? "text";
  throw new UsageError(`--format must be text, markdown or json, not "${printable(String(format))}".`);
}

function toolsBudget(values: OptionValues): number | undefined {
  const budget = values["tools-budget"];
  if (budget === undefined) return undefined;
  if (typeof budget !== "string" || !/^[1-9][0-9]{0,8}$/.test(budget)) {
    throw new UsageError(`--tools-budget must be a whole number of tokens from 1, not "${printable(String(budget))}".`);
  }
  return Number(budget);
}

/** A usage error: what is wrong in one line, then where the help is. */
function usage(io: Io, command: CommandSpec | null, message: string): number {
  const prefix = command === null ? "kervanc" : `kervanc ${command.name}`;
  const help = command === null ? "kervanc --help" : `kervanc ${command.name} --help`;
  io.stderr(`${prefix}: ${message}\nSee ${help}.\n`);
  return 2;
}
