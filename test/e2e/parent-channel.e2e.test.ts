/**
 * A generated server started by a Node parent with an IPC channel (`kervanc dev` starts its servers that way):
 * the channel never keeps a server alive that is done or refused to start, and an HTTP server, which reads no
 * stdin, stops when the channel closes (its parent ended). runtime/entry/node-main.ts, stopWithParent.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "../helpers/kervanc.ts";

const SERVER = join(FIXTURES, "golden", "open-meteo", "server.mjs");

function start(args: readonly string[]) {
  const child = spawn(process.execPath, [SERVER, ...args], {
    env: { PATH: process.env["PATH"] ?? "" },
    stdio: ["pipe", "pipe", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { child, exited, stderr: () => stderr };
}

describe("a server with its parent's IPC channel", () => {
  it("exits after --version, and after refusing a bad option, as without one", async () => {
    const version = start(["--version"]);
    expect(await version.exited).toBe(0);
    expect(version.stderr()).toContain("open-meteo");
    const refused = start(["--port", "x"]);
    expect(await refused.exited).toBe(2);
  });

  it("serving stdio, exits at the end of its stdin", async () => {
    const server = start([]);
    server.child.stdin!.end();
    expect(await server.exited).toBe(0);
  });

  it("serving HTTP, stops when the channel closes", async () => {
    const server = start(["--http", "--port", "0"]);
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (server.stderr().includes("Serving open-meteo on http://127.0.0.1:")) resolve();
      };
      server.child.stderr!.on("data", check);
      check();
    });
    server.child.disconnect();
    expect(await server.exited).toBe(0);
    expect(server.stderr()).toContain("Stopping: waiting for calls in flight.");
  });
});
