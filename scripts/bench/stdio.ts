/**
 * A raw MCP client over stdio for the benchmarks: newline-delimited JSON-RPC written straight to the server's
 * stdin, with no SDK client in the way (the SDK client's own start-up and validation would be measured too).
 *
 * Two eras: "modern" sends 2026-07-28 requests (no handshake; protocol version and client capabilities in
 * `_meta`), which every dual-era server here answers; "legacy" opens with `initialize` (2025-11-25), which is
 * all the peer's SDK v1 server speaks.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

export type Era = "modern" | "legacy";

export const MODERN_VERSION = "2026-07-28";
export const LEGACY_VERSION = "2025-11-25";
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface Command {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

interface JsonRpcResponse {
  id?: number;
  result?: { isError?: boolean; [key: string]: unknown };
  error?: { code: number; message: string };
}

export interface StdioSession {
  readonly child: ChildProcess;
  request(method: string, params: Record<string, unknown>): Promise<JsonRpcResponse>;
  notify(method: string, params?: Record<string, unknown>): void;
  stderr(): string;
  close(): Promise<void>;
}

export function baseEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  // A small, fixed environment: what a host passes, not the benchmark's own variables.
  return { PATH: process.env["PATH"] ?? "", ...extra };
}

export function spawnSession(cmd: Command, era: Era): StdioSession {
  const child = spawn(cmd.command, [...cmd.args], {
    env: baseEnv(cmd.env),
    stdio: ["pipe", "pipe", "pipe"],
    ...(cmd.cwd ? { cwd: cmd.cwd } : {}),
  });
  let nextId = 1;
  let buffer = "";
  let err = "";
  const pending = new Map<number, { resolve: (r: JsonRpcResponse) => void; reject: (e: Error) => void }>();
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as JsonRpcResponse;
      if (typeof message.id !== "number") continue;
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      waiter?.resolve(message);
    }
  });
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    // Kept short: the peer logs several lines per call.
    if (err.length < 64 * 1024) err += chunk;
  });
  const failAll = (why: string): void => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${why}\n${err}`));
    pending.clear();
  };
  child.on("exit", (code, signal) => failAll(`the server exited (${code ?? signal})`));
  child.on("error", (e) => failAll(`the server did not start: ${e.message}`));
  const write = (message: Record<string, unknown>): void => {
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  return {
    child,
    request(method, params) {
      const id = nextId++;
      const withMeta = era === "modern" ? { ...params, _meta: MODERN_META } : params;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        write({ id, method, params: withMeta });
      });
    },
    notify(method, params = {}) {
      write({ method, params });
    },
    stderr: () => err,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The legacy handshake: initialize, then the initialized notification. */
export async function initializeLegacy(session: StdioSession): Promise<void> {
  const answer = await session.request("initialize", {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: { name: "kervanc-bench", version: "1.0.0" },
  });
  if (answer.error) throw new Error(`initialize failed: ${answer.error.message}`);
  session.notify("notifications/initialized");
}

/**
 * CPU time a process has used so far, in ms. On a shared machine this is much steadier than wall time: it does
 * not grow while the process waits for a core. Read from /proc/<pid>/task/<tid>/schedstat (nanoseconds, every
 * live thread: the main thread, V8's helpers, libuv's pool), or from /proc/<pid>/stat (user + system, 10 ms
 * ticks) when schedstat is not there.
 */
export function cpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // Fall through to the coarser counter.
  }
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime are fields 14 and 15 of the file, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Milliseconds from spawn to the first `tools/list` answer, and the CPU time the server used until then. The requests are written at once, before the
 * process has started: the server reads them as soon as its stdin is open, as with a host that pipes ahead.
 */
export async function coldStart(cmd: Command, era: Era): Promise<{ ms: number; cpuMs: number; tools: number }> {
  const t0 = performance.now();
  const session = spawnSession(cmd, era);
  try {
    const handshake = era === "legacy" ? initializeLegacy(session) : Promise.resolve();
    const listed = session.request("tools/list", {});
    await handshake;
    const answer = await listed;
    const ms = performance.now() - t0;
    const cpu = cpuMs(session.child.pid!);
    if (answer.error || !Array.isArray(answer.result?.["tools"]))
      throw new Error(`tools/list failed: ${JSON.stringify(answer).slice(0, 300)}\n${session.stderr()}`);
    return { ms, cpuMs: cpu, tools: (answer.result["tools"] as unknown[]).length };
  } finally {
    await session.close();
  }
}

/** Checks a tools/call answer: a result that is not an error. */
export function callFailure(answer: JsonRpcResponse): string | null {
  if (answer.error) return `JSON-RPC error ${answer.error.code}: ${answer.error.message}`;
  if (!answer.result) return "no result";
  if (answer.result.isError) return `tool error: ${JSON.stringify(answer.result["content"]).slice(0, 300)}`;
  return null;
}

/**
 * Fills `dir` with Node's compile cache of a stdio server the way the generated Dockerfile does at image build
 * time: one start with `NODE_COMPILE_CACHE=dir`, the Dockerfile's warm-up request on stdin, stdin closed, and
 * a clean exit (Node writes the cache then). Fails when the server exits badly or leaves no cache.
 */
export async function warmCompileCache(cmd: Command, dir: string, request: string): Promise<void> {
  const child = spawn(cmd.command, [...cmd.args], {
    env: baseEnv({ ...cmd.env, NODE_COMPILE_CACHE: dir }),
    stdio: ["pipe", "ignore", "pipe"],
    ...(cmd.cwd ? { cwd: cmd.cwd } : {}),
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
    child.stdin!.end(`${request}\n`);
  });
  clearTimeout(timer);
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  if (code !== 0 || files.length === 0)
    throw new Error(`The compile cache's warm-up of ${cmd.args.join(" ")} failed (exit ${code}):\n${stderr}`);
}
