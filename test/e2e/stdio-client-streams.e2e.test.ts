/**
 * stdio clients that misuse the server's output streams, against the bundle as a process.
 *
 * A client that keeps writing requests but stops reading the answers.
 * The server wrote every answer into stdout's buffer regardless, so its memory grew with every request (about
 * 400 MB for 1,000 requests of 100 kB each; Node also warned of a listener leak on stdout). It must stop reading
 * requests while its answers wait, and answer every one of them once the client reads again.
 *
 * A client that closes its end of the server's stderr (it does not want the log): the next log line's write
 * failed with EPIPE, nothing handled the error, and the server exited with code 1. The log is best effort; the
 * protocol is on stdout.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOneSpec, getThingSpec, removeDir } from "../helpers/kervanc.ts";

let root: string;
let serverPath: string;

beforeAll(async () => {
  ({ root, serverPath } = await buildOneSpec("backpressure", "quiet.yaml", getThingSpec("quiet")));
}, 120_000);

afterAll(async () => {
  if (root) await removeDir(root);
});

/** Resident memory of a process, from /proc (kB): now and at its peak. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

describe("a stdio client that stops reading", () => {
  it.runIf(process.platform === "linux")(
    "is not answered into memory without bound; every request is answered once it reads again",
    { timeout: 120_000 },
    async () => {
      const child = spawn(process.execPath, [serverPath], {
        env: { PATH: process.env["PATH"] ?? "" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      try {
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
        const ids = new Set<number>();
        let buffered = "";
        let answered: (() => void) | null = null;
        child.stdout.on("data", (chunk: Buffer) => {
          buffered += chunk.toString("utf8");
          let end: number;
          while ((end = buffered.indexOf("\n")) >= 0) {
            ids.add((JSON.parse(buffered.slice(0, end)) as { id: number }).id);
            buffered = buffered.slice(end + 1);
          }
          answered?.();
        });
        const until = (ready: () => boolean): Promise<void> =>
          new Promise((resolve) => {
            answered = () => {
              if (ready()) resolve();
            };
            answered();
          });
        child.stdin.write(
          `${JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
          })}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`,
        );
        await until(() => ids.has(0));
        const before = memory(child.pid!).rss;
        // Stop reading; then 400 requests whose answers are about 200 kB each (the SDK names the unknown tool).
        child.stdout.pause();
        const name = "z".repeat(200_000);
        const COUNT = 400;
        let lines = "";
        for (let id = 1; id <= COUNT; id++)
          lines += `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } })}\n`;
        // Either the server reads them all (it buffers every answer), or it stops reading and says so.
        const taken = new Promise<void>((resolve) => child.stdin.write(lines, () => resolve()));
        const paused = new Promise<void>((resolve) => {
          const check = (): void => {
            if (stderr.includes("is not reading its responses")) resolve();
          };
          child.stderr.on("data", check);
          check();
        });
        await Promise.race([taken, paused]);
        const peakWhileStalled = memory(child.pid!).peak;
        child.stdout.resume();
        await until(() => ids.size === COUNT + 1);
        // Nothing was lost, and the server stayed within a few answers' worth of memory while the client did not
        // read (80 MB of requests: a server that buffers every answer holds far more than 60 MB of them).
        expect(ids.size).toBe(COUNT + 1);
        expect(peakWhileStalled - before).toBeLessThan(60_000);
        expect(stderr).not.toContain("MaxListenersExceededWarning");
        expect(child.exitCode).toBeNull();
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});

describe("a stdio client that closes the server's stderr", () => {
  it("is still served: a log line that cannot be written is dropped", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [serverPath], {
      env: { PATH: process.env["PATH"] ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    try {
      const lines: string[] = [];
      const waiting: ((line: string) => void)[] = [];
      let buffered = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        let end: number;
        while ((end = buffered.indexOf("\n")) >= 0) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          const waiter = waiting.shift();
          if (waiter) waiter(line);
          else lines.push(line);
        }
      });
      const exited = new Promise<never>((_resolve, reject) =>
        child.once("exit", (code) => reject(new Error(`the server exited (${code})`))),
      );
      exited.catch(() => {});
      const exchange = (line: string): Promise<Record<string, unknown>> =>
        Promise.race([
          new Promise<Record<string, unknown>>((resolve) => {
            waiting.push((answer) => resolve(JSON.parse(answer) as Record<string, unknown>));
            child.stdin.write(`${line}\n`);
          }),
          exited,
        ]);
      // The server has started (it said so on stderr); then the client closes its end of the pipe.
      await new Promise((resolve) => child.stderr.once("data", resolve));
      child.stderr.destroy();
      // Each of these makes the server write a log line to the closed pipe.
      for (let i = 0; i < 3; i++)
        expect(await exchange("not json")).toMatchObject({ id: null, error: { code: -32700 } });
      expect(
        await exchange(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
          }),
        ),
      ).toMatchObject({ id: 1, result: { serverInfo: { name: "quiet" } } });
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      const listed = await exchange(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }));
      expect(listed).toMatchObject({ id: 2, result: { tools: [{ name: "get" }] } });
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  });
});
