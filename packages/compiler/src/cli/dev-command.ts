/**
 * `kervanc dev`: serve a spec while editing it. Toward an MCP client on stdio (the default when stdin is not a
 * terminal) it relays to the current build's server; in a terminal, or with --repl, it reads commands instead:
 * tools, call <tool> <json>, reload, help, exit.
 */
import { stat } from "node:fs/promises";
import process from "node:process";
import { createInterface } from "node:readline";
import { terminalSafe } from "../diagnostics/diagnostic.ts";
import { DevSession } from "../devloop/dev-session.ts";
import { errorCode } from "../load/regular-file.ts";
import { DEV_BANNER } from "../devloop/relax.ts";
import { refuseInProduction, withCaller } from "./dev-options.ts";
import { UsageError } from "./args.ts";
import type { JsonRpcMessage } from "../devloop/server-child.ts";
import { printDiagnostics } from "./print.ts";
import { printable } from "./text.ts";
import type { Io } from "./io.ts";

export interface DevCommand {
  readonly spec: string;
  readonly secretsFile: string | undefined;
  readonly repl: boolean;
  /** Serve MCP over Streamable HTTP on 127.0.0.1 at this port instead of stdio. */
  readonly httpPort: number | undefined;
  /** `NAME=VALUE` headers and an access token of the stdio caller (upstream-auth credentials; stdio only). */
  readonly callerHeaders?: readonly string[];
  readonly subjectToken?: string | undefined;
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const HELP = `Commands:
  tools                  list the tools of the current build
  call <tool> [<json>]   call a tool with JSON arguments (default {})
  reload                 rebuild now (the spec is also rebuilt on every save)
  help                   show this list
  exit                   stop
`;

export async function devCommand(
  command: DevCommand,
  io: Io,
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<number> {
  refuseInProduction("kervanc dev", process.env);
  // A spec that is not there is a mistake in the command, not an edit to wait for: say so and stop, as build does.
  const kind = await stat(command.spec).then(
    (s) => (s.isFile() ? null : "not a file"),
    (error: unknown) => errorCode(error),
  );
  if (kind !== null) {
    io.stderr(`kervanc dev: ${printable(command.spec)} is not a spec file (${kind}).\n`);
    return 1;
  }
  const repl = command.repl || stdin.isTTY === true;
  const http = command.httpPort !== undefined;
  const callerHeaders = command.callerHeaders ?? [];
  // Over HTTP each client sends its own headers and token; the stand-in is for stdio.
  if (http && (callerHeaders.length > 0 || command.subjectToken !== undefined))
    throw new UsageError("--caller-header and --subject-token are for stdio; over --http each client sends its own.");
  const env = withCaller(process.env, callerHeaders, command.subjectToken);
  io.stderr(DEV_BANNER);
  const session = new DevSession({
    spec: command.spec,
    ...(command.secretsFile !== undefined ? { secretsFile: command.secretsFile } : {}),
    env,
    // The server's log is multi-line-safe but never drives the terminal.
    log: (line) => io.stderr(`${terminalSafe(line)}\n`),
    // Diagnostics as build prints them (frames, documentation anchors, colour by the same rules).
    diagnostics: (diagnostics, sources) => printDiagnostics(io, diagnostics, "text", sources),
    ...(repl || http ? {} : { toClient: (message: JsonRpcMessage) => io.stdout(`${JSON.stringify(message)}\n`) }),
    ...(http ? { httpPort: command.httpPort } : {}),
  });
  // Signals are taken from the start: one that comes while the first build starts must not end kervanc with its
  // servers left running. SIGHUP is a closed terminal.
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let stopping = false;
  for (const signal of STOP_SIGNALS)
    process.on(signal, () => {
      stopping = true;
      stop();
    });
  await session.start();
  if (stopping) {
    await session.close();
    return 0;
  }
  io.stderr(
    repl
      ? `Watching ${printable(command.spec)}. Type help for the commands.\n`
      : `Watching ${printable(command.spec)}; serving MCP on ${http ? "HTTP" : "stdio"}.\n`,
  );
  if (http && !repl) {
    // Nothing to read on stdin: serve until stopped.
    await stopped;
    await session.close();
    return 0;
  }

  const lines = createInterface({
    input: stdin,
    ...(stdin.isTTY === true ? { output: process.stdout, terminal: true } : {}),
    crlfDelay: Infinity,
  });
  const done = new Promise<void>((resolve) => {
    lines.once("close", resolve);
    void stopped.then(() => lines.close());
  });
  const prompt = (): void => {
    if (repl && stdin.isTTY === true) lines.prompt();
  };
  lines.setPrompt("kervanc> ");
  prompt();
  // One command at a time, in order: a call's answer comes before the next command runs.
  let queue = Promise.resolve();
  lines.on("line", (line) => {
    queue = queue.then(async () => {
      if (!repl) return relay(session, line);
      if (!(await runCommand(session, line.trim(), io))) lines.close();
      else prompt();
    });
  });
  await done;
  await queue;
  await session.close();
  return 0;
}

function relay(session: DevSession, line: string): void {
  if (line.trim() === "") return;
  let message: JsonRpcMessage;
  try {
    message = JSON.parse(line) as JsonRpcMessage;
  } catch {
    return;
  }
  if (typeof message === "object" && message !== null) session.fromClient(message);
}

/** Runs one REPL command; false means exit. */
async function runCommand(session: DevSession, line: string, io: Io): Promise<boolean> {
  const [word = "", ...rest] = line.split(/\s+/);
  switch (word) {
    case "":
      return true;
    case "exit":
    case "quit":
      return false;
    case "help":
      io.stdout(HELP);
      return true;
    case "tools": {
      const tools = session.tools;
      if (tools.length === 0) io.stdout("No tools: the spec has not built yet.\n");
      for (const t of tools) io.stdout(`${printable(t.name)}  ${printable(t.description.split("\n")[0] ?? "")}\n`);
      return true;
    }
    case "reload":
      await session.reload();
      return true;
    case "call": {
      const tool = rest[0];
      if (tool === undefined) {
        io.stdout("Usage: call <tool> [<json arguments>]\n");
        return true;
      }
      // What follows the tool's name (not its first occurrence in the line: a tool named "all" is in "call").
      const json = line.replace(/^\S+\s+\S+/, "").trim();
      let args: unknown = {};
      if (json !== "") {
        try {
          args = JSON.parse(json);
        } catch (error) {
          io.stdout(
            `The arguments are not valid JSON (${printable(error instanceof Error ? error.message : String(error))}).\n`,
          );
          return true;
        }
      }
      const result = await session.call(tool, args);
      io.stdout(`${result.isError ? "Error: " : ""}${terminalSafe(result.text)}\n`);
      return true;
    }
    default:
      io.stdout(`Unknown command "${printable(word)}".\n${HELP}`);
      return true;
  }
}
