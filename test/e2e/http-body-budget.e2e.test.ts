/**
 * The HTTP server's bounds on request bodies and request targets (issue 13, finding 3 and observation c), tested
 * against the bundle as a process with raw sockets: many clients sending bodies they never finish, slow
 * headers, a Content-Length over the cap, and absolute-form targets. Memory is read from the server's
 * /proc/<pid>/status (VmHWM, the peak resident size), a bounded figure rather than a timing.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { buildFixtures, removeDir } from "../helpers/kervanc.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const MiB = 1024 * 1024;
const BUDGET = 8 * MiB;

let upstream: Upstream;
let outDir: string;
let server: ChildProcess;
let port: number;
let stderr: () => string;

const discover = JSON.stringify(modernMessage(1, "server/discover"));

function head(target: string, headers: Record<string, string | number>): string {
  const lines = [`POST ${target} HTTP/1.1`, `host: 127.0.0.1:${port}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

const mcpHeaders = modernHeadersFor("server/discover");

/** A raw connection that records what the server sends and when it closes. */
class Raw {
  readonly socket: net.Socket;
  received = "";
  readonly closed: Promise<void>;
  constructor() {
    this.socket = net.connect(port, "127.0.0.1");
    this.socket.on("data", (chunk: Buffer) => (this.received += chunk.toString("latin1")));
    this.socket.on("error", () => {});
    this.closed = new Promise((resolve) => this.socket.once("close", () => resolve()));
  }
  async write(data: string | Buffer): Promise<boolean> {
    if (this.socket.destroyed) return false;
    return new Promise((resolve) => this.socket.write(data, (error) => resolve(!error)));
  }
  /** Resolves with the status line once one arrives (or "" if the socket closes without one). */
  async status(): Promise<string> {
    const line = (): string | null =>
      this.received.includes("\r\n") ? this.received.slice(0, this.received.indexOf("\r\n")) : null;
    if (line() !== null) return line()!;
    return new Promise((resolve) => {
      const check = (): void => {
        if (line() !== null) {
          this.socket.off("data", check);
          resolve(line()!);
        }
      };
      this.socket.on("data", check);
      void this.closed.then(() => resolve(line() ?? ""));
    });
  }
}

/** Sends the headers of a body of `length` bytes and then `sent` bytes of it, and never the rest. */
async function partialBody(length: number, sent: number): Promise<Raw> {
  const raw = new Raw();
  await raw.write(head("/mcp", { ...mcpHeaders, "content-length": length }));
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  for (let done = 0; done < sent; done += chunk.length)
    if (!(await raw.write(chunk.subarray(0, Math.min(chunk.length, sent - done))))) break;
  return raw;
}

/** Chunked transfer encoding: no length to refuse up front, so the budget is charged as the bytes arrive. */
async function chunkedBody(sent: number): Promise<Raw> {
  const raw = new Raw();
  await raw.write(head("/mcp", { ...mcpHeaders, "transfer-encoding": "chunked" }));
  const data = Buffer.alloc(64 * 1024, 0x20);
  const frame = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);
  for (let done = 0; done < sent; done += data.length) if (!(await raw.write(frame))) break;
  return raw;
}

/** One complete, ordinary request: the status line of its answer. */
async function normalRequest(target = "/mcp", host = `127.0.0.1:${port}`): Promise<string> {
  const raw = new Raw();
  const lines = [
    `POST ${target} HTTP/1.1`,
    `host: ${host}`,
    "connection: close",
    `content-length: ${Buffer.byteLength(discover)}`,
  ];
  for (const [name, value] of Object.entries(mcpHeaders)) lines.push(`${name}: ${value}`);
  await raw.write(`${lines.join("\r\n")}\r\n\r\n${discover}`);
  const status = await raw.status();
  raw.socket.destroy();
  return status;
}

/** The ordinary request, again while the server is still giving back the budget of clients that just left. */
async function normalRequestOnceFree(): Promise<string> {
  let status = "";
  for (let attempt = 0; attempt < 100; attempt++) {
    status = await normalRequest();
    if (!status.includes(" 503 ")) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match![1]) * 1024;
}

beforeAll(async () => {
  upstream = await startUpstream((_req, res) => json(res, 200, {}));
  const built = await buildFixtures(["open-meteo.yaml"], upstream.origin);
  expect(built.result.code).toBe(0);
  outDir = built.outDir;
  const started = await startHttpServer(join(outDir, "open-meteo", "server.mjs"), [
    "--allow-private-network",
    "--max-bodies",
    "16",
    "--max-body-memory",
    String(BUDGET),
    "--request-timeout",
    "4000",
    "--headers-timeout",
    "2000",
  ]);
  server = started.child;
  stderr = started.stderr;
  port = Number(new URL(started.url).port);
});

afterAll(async () => {
  server?.kill("SIGKILL");
  await upstream?.close();
  if (outDir) await removeDir(join(outDir, ".."));
});

describe("request bodies in flight", () => {
  it(
    "refuses bodies past the budget with 503 before reading, keeps memory bounded, and serves again after",
    { timeout: 120_000 },
    async () => {
      expect(await normalRequest()).toBe("HTTP/1.1 200 OK");
      const before = procStatus(server.pid!, "VmRSS");
      // Two bodies that reserve 7 of the 8 MiB and never finish.
      const holders = [await partialBody(3.5 * MiB, 3.4 * MiB), await partialBody(3.5 * MiB, 3.4 * MiB)];
      // A declared length past what is left is refused on its headers, before a byte of body is sent.
      const refusedUpFront = await Promise.all(Array.from({ length: 20 }, () => partialBody(3.5 * MiB, 0)));
      for (const raw of refusedUpFront) expect(await raw.status()).toBe("HTTP/1.1 503 Service Unavailable");
      expect(refusedUpFront[0]!.received.toLowerCase()).toContain("retry-after:");
      // Chunked bodies have no length: each is charged as it arrives and answered 503 when it would pass the
      // budget (the rest of it is read and thrown away, never held).
      const chunked = await Promise.all(Array.from({ length: 60 }, () => chunkedBody(3.5 * MiB)));
      const statuses = await Promise.all(chunked.map((raw) => raw.status()));
      const grown = procStatus(server.pid!, "VmHWM") - before;
      console.log(`server peak RSS grew by ${(grown / MiB).toFixed(1)} MiB`);
      // 62 clients offered over 200 MiB of body; the server held at most the 8 MiB budget, plus the garbage of
      // reading and discarding the rest (about 55-70 MiB here; about 470 MiB without the budget).
      expect(grown).toBeLessThan(128 * MiB);
      for (const status of statuses) expect(status).toBe("HTTP/1.1 503 Service Unavailable");
      for (const raw of [...holders, ...refusedUpFront, ...chunked]) raw.socket.destroy();
      expect(await normalRequestOnceFree()).toBe("HTTP/1.1 200 OK");
      expect(stderr()).toContain("HTTP request refused with 503");
    },
  );

  it("refuses a Content-Length over 4 MiB with 413 before reading", async () => {
    const raw = await partialBody(5 * MiB, 0);
    expect(await raw.status()).toBe("HTTP/1.1 413 Payload Too Large");
    raw.socket.destroy();
  });

  it(
    "times out a body that never finishes (and gives its budget back) and headers that never finish",
    { timeout: 60_000 },
    async () => {
      const holders = [await partialBody(4 * MiB, 1 * MiB), await partialBody(4 * MiB, 1 * MiB)];
      expect(await normalRequest()).toBe("HTTP/1.1 503 Service Unavailable");
      const slowHeaders = new Raw();
      await slowHeaders.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: appl`);
      // The server ends all three itself (--request-timeout 4000, --headers-timeout 2000).
      await Promise.all([...holders, slowHeaders].map((raw) => raw.closed));
      expect(slowHeaders.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(await normalRequestOnceFree()).toBe("HTTP/1.1 200 OK");
    },
  );
});

describe("request targets", () => {
  it("refuses an absolute-form target whose authority is not the Host header", async () => {
    expect(await normalRequest("http://evil.example/mcp")).toBe("HTTP/1.1 400 Bad Request");
    expect(await normalRequest(`http://localhost:${port}/mcp`)).toBe("HTTP/1.1 400 Bad Request");
    expect(await normalRequest(`http://user@127.0.0.1:${port}/mcp`)).toBe("HTTP/1.1 400 Bad Request");
    expect(await normalRequest("*")).toBe("HTTP/1.1 400 Bad Request");
  });

  it("serves an absolute-form target that names the Host header's authority, as a proxy sends it", async () => {
    expect(await normalRequest(`http://127.0.0.1:${port}/mcp`)).toBe("HTTP/1.1 200 OK");
  });
});
