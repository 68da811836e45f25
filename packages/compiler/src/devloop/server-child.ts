/**
 * A generated server run as a child process, spoken to over its stdio with newline-delimited JSON-RPC: the same
 * way an MCP client runs it, so `call`, `test` and `dev` exercise exactly the code a generated server runs.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import process from "node:process";
import type { Readable, Writable } from "node:stream";
import { KERVANC_VERSION } from "../kervanc-package.ts";

/** The protocol version kervanc's own client asks for; generated servers accept it. */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";

export type JsonRpcMessage = {
  readonly jsonrpc: "2.0";
  readonly id?: string | number | null;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
};

export class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export interface ServerChildOptions {
  /** Arguments after server.mjs. */
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Each line the server writes to stderr (its log; the server redacts it). */
  readonly onStderrLine?: (line: string) => void;
  /** Every message from the server that is not the answer to one of this client's own requests. */
  readonly onMessage?: (message: JsonRpcMessage) => void;
}

/**
 * Children still running. When kervanc exits, however it exits short of SIGKILL (a closed terminal's SIGHUP
 * included), they are killed: a `dev --http` server does not read its stdin, and would go on serving the spec
 * with the development relaxations on a port nobody watches. After a SIGKILL its IPC channel closes, and it
 * stops itself.
 */
const LIVE = new Set<ChildProcessByStdio<Writable, Readable, Readable>>();
let exitHooked = false;

function track(child: ChildProcessByStdio<Writable, Readable, Readable>): void {
  LIVE.add(child);
  child.once("exit", () => LIVE.delete(child));
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const c of LIVE) c.kill("SIGKILL");
  });
}

export class ServerChild {
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly #pending = new Map<string, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #stderr: string[] = [];
  #nextId = 1;
  #exited = false;
  readonly exited: Promise<number | null>;

  constructor(serverFile: string, options: ServerChildOptions) {
    this.#child = spawn(process.execPath, [serverFile, ...options.args], {
      env: options.env,
      // The IPC channel is only there to close when kervanc ends, SIGKILL included: an HTTP server stops then
      // (runtime/entry/node-main.ts, stopWithParent); a stdio server stops at the end of its stdin anyway.
      stdio: ["pipe", "pipe", "pipe", "ipc"],
    }) as ChildProcessByStdio<Writable, Readable, Readable>;
    track(this.#child);
    this.exited = new Promise((resolve) => {
      this.#child.once("exit", (code) => {
        this.#exited = true;
        // What the server said about why went to onStderrLine already.
        for (const p of this.#pending.values())
          p.reject(new Error(`The generated server stopped${code !== null ? ` (exit code ${code})` : ""}.`));
        this.#pending.clear();
        resolve(code);
      });
    });
    this.#child.stdin.on("error", () => {
      // The child went away; its exit rejects whatever was pending.
    });
    lines(this.#child.stderr, (line) => {
      this.#stderr.push(line);
      if (this.#stderr.length > 50) this.#stderr.shift();
      options.onStderrLine?.(line);
    });
    lines(this.#child.stdout, (line) => {
      let message: JsonRpcMessage;
      try {
        message = JSON.parse(line) as JsonRpcMessage;
      } catch {
        return;
      }
      const id = message.id;
      if (typeof id === "string" && message.method === undefined && this.#pending.has(id)) {
        const p = this.#pending.get(id)!;
        this.#pending.delete(id);
        if (message.error !== undefined) p.reject(new RpcError(message.error.code, message.error.message));
        else p.resolve(message.result);
        return;
      }
      options.onMessage?.(message);
    });
  }

  /** The last lines the server wrote to stderr. */
  get stderrTail(): readonly string[] {
    return this.#stderr;
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.#exited) return Promise.reject(new Error("The generated server has stopped."));
    // Its own id space: `dev` relays a client's requests to the same server, with the client's ids.
    const id = `kervanc-${this.#nextId++}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /** Sends a message as it is (a client's request relayed by `dev`, or a notification). */
  send(message: JsonRpcMessage): void {
    if (!this.#exited) this.#child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** The 2025-11-25 handshake (or the one a client sent, replayed by `dev`); returns the server's initialize result. */
  async initialize(
    params: unknown = {
      protocolVersion: CLIENT_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "kervanc", version: KERVANC_VERSION },
    },
  ): Promise<unknown> {
    const result = await this.request("initialize", params);
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return result;
  }

  /** Closes stdin (the server's signal to stop), then kills it if it has not stopped. */
  async close(): Promise<void> {
    if (this.#exited) return;
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 3000);
    this.#child.kill("SIGTERM");
    await this.exited;
    clearTimeout(timer);
  }
}

function lines(stream: Readable, onLine: (line: string) => void): void {
  let buffered = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      onLine(buffered.slice(0, nl).replace(/\r$/, ""));
      buffered = buffered.slice(nl + 1);
    }
  });
  stream.on("end", () => {
    if (buffered !== "") onLine(buffered);
  });
}
