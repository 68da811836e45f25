/**
 * The processes a benchmark script starts: each is tracked and killed when the script exits (or is interrupted),
 * and the two ways they come up, the bench upstream (`PORT <n>` on stdout) and an HTTP server (its /mcp URL on
 * stderr). Used by run.ts and auth.ts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { REPO } from "./bundles.ts";

const children = new Set<ChildProcess>();

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

export function killAll(): void {
  for (const child of children) child.kill("SIGKILL");
}
process.once("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

/** Starts the bench upstream (upstream.ts) with `node` and waits for its port. */
export async function startUpstream(node: string): Promise<{ origin: string; child: ChildProcess }> {
  const child = track(
    spawn(node, ["--import", "tsx", join(REPO, "scripts", "bench", "upstream.ts")], {
      cwd: REPO,
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  const port = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the upstream exited (${code})`)));
  });
  return { origin: `http://127.0.0.1:${port}`, child };
}

/** Starts a server process and waits for the stderr line that names its /mcp URL (or for a fixed URL to answer). */
export async function startHttp(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; urlPattern: RegExp; fixedUrl?: string },
): Promise<{ child: ChildProcess; url: string }> {
  const child = track(
    spawn(command, [...args], {
      env: { PATH: process.env["PATH"] ?? "", ...options.env },
      stdio: ["ignore", "ignore", "pipe"],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    }),
  );
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(" ")} did not start: ${err}`)), 60_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      if (err.length < 64 * 1024) err += chunk.toString("utf8");
      const match = options.urlPattern.exec(err);
      if (match) {
        clearTimeout(timer);
        resolve(options.fixedUrl ?? match[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited (${code}): ${err}`));
    });
  });
  // Keep draining stderr (the peer logs several lines per call) without keeping it.
  child.stderr!.removeAllListeners("data");
  child.stderr!.resume();
  return { child, url };
}
