/**
 * `kervanc call`: one tool call through a generated server built in memory, with the development relaxations.
 * The result's text goes to stdout (with --json the whole result as JSON: content, structuredContent, isError),
 * everything else to stderr; exit 1 when the result is an error.
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { parseEnv } from "node:util";
import { closest } from "../analyze/suggest.ts";
import type { JsonValue } from "../analyze/shape.ts";
import { terminalJson, terminalSafe } from "../diagnostics/diagnostic.ts";
import { compileDev } from "../devloop/dev-package.ts";
import { startDevServer } from "../devloop/dev-server.ts";
import { Recorder } from "../devloop/recorder.ts";
import { DEV_BANNER } from "../devloop/relax.ts";
import { refuseInProduction, withCaller } from "./dev-options.ts";
import { retarget } from "../devloop/retarget.ts";
import { errorCode } from "../load/regular-file.ts";
import { RpcError } from "../devloop/server-child.ts";
import { envUnderFiles, secretsFileProblem } from "@kervanc/runtime/secrets";
import { appendCase, recordedCase, RecordRefused } from "../spectest/record.ts";
import { UsageError } from "./args.ts";
import { plural, printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";
import { type Io, readAll } from "./io.ts";

export interface CallCommand {
  readonly spec: string;
  readonly tool: string;
  /** The arguments as JSON text; undefined: from stdin when it is not a terminal, else {}. */
  readonly arguments: string | undefined;
  readonly secretsFile: string | undefined;
  readonly json: boolean;
  readonly record: string | undefined;
  /** `NAME=VALUE` headers of the caller's request (upstream-auth callerHeader credentials). */
  readonly callerHeaders?: readonly string[];
  /** The caller's access token (upstream-auth tokenExchange credentials), taken unverified. */
  readonly subjectToken?: string | undefined;
}

interface ToolResult {
  readonly content?: readonly { readonly type: string; readonly text?: string }[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

export async function callCommand(
  command: CallCommand,
  io: Io,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
): Promise<number> {
  refuseInProduction("kervanc call", process.env);
  const args = parseArguments(command.arguments ?? (stdin.isTTY === true ? "" : await readAll(stdin)));
  const compiled = await compileDev(command.spec);
  printDiagnostics(io, compiled.diagnostics, "text", compiled.sources);
  if (!compiled.ok) {
    io.stderr(
      `Found ${plural(compiled.diagnostics.filter((d) => d.severity === "error").length, "error")}; nothing was called.\n`,
    );
    return 1;
  }
  const planned = compiled.compiled.planned;
  const names = planned.tools.map((t) => t.plan.listing.name);
  const tool = planned.tools.find((t) => t.plan.listing.name === command.tool);
  if (tool === undefined) {
    const close = closest(command.tool, names);
    throw new UsageError(
      `${printable(command.spec)} has no tool "${printable(command.tool)}".${close !== undefined ? ` Did you mean "${close}"?` : ""} Its tools: ${names.join(", ")}.`,
    );
  }
  io.stderr(DEV_BANNER);
  // The secrets file is read once, here, and its values handed to the server in its environment: the values the
  // server sends are then exactly the ones a recording masks. Read twice, a pipe (--secrets-file <(pass show
  // api)) gives its text to the server and nothing to the masking, and the secret went into the test file raw.
  let env: NodeJS.ProcessEnv;
  try {
    env = command.secretsFile !== undefined ? withSecretsFile(process.env, command.secretsFile) : process.env;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    io.stderr(`kervanc call: cannot read --secrets-file ${printable(command.secretsFile!)} (${errorCode(error)}).\n`);
    return 1;
  }
  env = withCaller(env, command.callerHeaders ?? [], command.subjectToken);
  const recorder =
    command.record !== undefined
      ? await Recorder.start(tool.plan.request.origin, tool.plan.limits, [
          ...secretValues(
            planned.plan.secrets.map((s) => s.name),
            env,
          ).values(),
        ])
      : undefined;
  let result: ToolResult;
  try {
    const target = recorder !== undefined ? retarget(planned, recorder.origin, new Set([command.tool])) : planned;
    const server = await startDevServer(compiled.compiled, target, {
      env,
      onLog: (line) => io.stderr(`server: ${printable(line)}\n`),
    });
    try {
      result = (await server.child.request("tools/call", { name: command.tool, arguments: args })) as ToolResult;
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      io.stderr(`Error: ${printable(error.message)}\n`);
      return 1;
    } finally {
      await server.close();
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("The generated server stopped")) {
      io.stderr(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await recorder?.close();
  }
  const text = (result.content ?? [])
    .filter((p) => p.type === "text")
    .map((p) => p.text ?? "")
    .join("\n");
  const isError = result.isError === true;
  if (isError) io.stderr(`${terminalSafe(text)}\n`);
  // --json prints the whole result, errors included, so a script reads isError rather than parsing stderr.
  if (command.json) io.stdout(`${terminalJson(jsonResult(result))}\n`);
  else if (!isError) io.stdout(`${terminalSafe(text)}\n`);

  if (command.record !== undefined && recorder !== undefined) {
    const secrets = secretValues(
      planned.plan.secrets.map((s) => s.name),
      env,
    );
    try {
      const name = await appendCase(command.record, (taken) => {
        let name = `${command.tool} (recorded)`;
        for (let n = 2; taken.has(name); n++) name = `${command.tool} (recorded ${n})`;
        return recordedCase(
          {
            tool: command.tool,
            arguments: args,
            exchanges: recorder.exchanges,
            unfinished: recorder.unfinished,
            headerNames: tool.plan.request.headers.map((h) => h.name),
            result: { isError, text, structured: result.structuredContent },
            secrets,
          },
          name,
        );
      });
      io.stderr(`Recorded the case "${printable(name)}" in ${printable(command.record)}.\n`);
    } catch (error) {
      if (!(error instanceof RecordRefused)) throw error;
      io.stderr(`kervanc call --record: ${printable(error.message)}\n`);
      return 1;
    }
  }
  return isError ? 1 : 0;
}

function parseArguments(text: string): JsonValue {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the arguments are not valid JSON (${printable(error instanceof Error ? error.message : String(error))}).`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError('the arguments must be a JSON object, such as \'{"city": "Paris"}\'.');
  return value as JsonValue;
}

/** The environment with the file's `KEY=value` lines under it (variables already set win), as the server merges it. */
function withSecretsFile(base: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  const text = readFileSync(file, "utf8");
  const problem = secretsFileProblem(text);
  if (problem !== null) throw new UsageError(`--secrets-file ${file}, ${problem}`);
  return envUnderFiles(base, [parseEnv(text)]);
}

/** The values the server will use, for masking. */
function secretValues(names: readonly string[], env: NodeJS.ProcessEnv): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of names) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value !== undefined && value !== "") out.set(name, value);
  }
  return out;
}

/**
 * `--json`'s output: the whole result, so a script can read any tool's answer with jq: `content` (the blocks the
 * model sees), `structuredContent` when the tool has an output schema, and `isError`. Only these keys, in this
 * order.
 */
function jsonResult(result: ToolResult): Record<string, unknown> {
  return {
    content: result.content ?? [],
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    isError: result.isError === true,
  };
}
