/**
 * worker.mjs holds request bodies under one budget per process, as server.mjs does (body-budget.ts). Before,
 * the SDK capped each body at 4 MiB but nothing bounded how many were held: 100 local clients (or clients with a
 * token) each sending most of a 4 MiB body and then nothing took Deno to 1 GB, Bun to 900 MB and workerd to
 * 520 MB. Bodies that would pass the budget are now refused with 503 before a byte is read, and the budget comes
 * back when their clients leave. Checked on a real Bun and a real Deno serving the package with the README's
 * lines, by the status a normal request gets while the budget is held (no timing, no memory figure).
 */
import { type Socket, connect } from "node:net";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOneSpec, getThingSpec, removeDir, tempDir } from "../helpers/kervanc.ts";
import {
  freePort,
  readmeCommands,
  runtimeBinary,
  type Service,
  shellWords,
  startService,
} from "../helpers/runtimes.ts";

/** One more 4 MiB body than the default budget (32 MiB) holds. */
const HELD = 9;
const BODY = 4 * 1024 * 1024;

let root: string;
let pkg: string;
let readme: string;
let denoDir: string;

beforeAll(async () => {
  denoDir = await tempDir("worker-bodies-deno");
  ({ root, packageDir: pkg } = await buildOneSpec("worker-bodies", "bodies.yaml", getThingSpec("bodies")));
  readme = await readFile(join(pkg, "README.md"), "utf8");
}, 120_000);

afterAll(async () => {
  if (root) await removeDir(root);
  if (denoDir) await removeDir(denoDir);
});

const DISCOVER = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "server/discover",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
  },
});
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "server/discover",
};

/** A client that declares a 4 MiB body, sends one byte of it and then nothing. */
function holdBody(port: number): Socket {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  const head = Object.entries(HEADERS).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${head.join("")}content-length: ${BODY}\r\n\r\n{`);
  return socket;
}

async function probe(url: string): Promise<number> {
  const response = await fetch(url, { method: "POST", headers: HEADERS, body: DISCOVER });
  await response.arrayBuffer();
  return response.status;
}

/** The status a normal request gets, asked until it is `want` (at most 100 times: the held bodies arrive as they do). */
async function statusUntil(url: string, want: number): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 100 && status !== want; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    status = await probe(url);
  }
  return status;
}

async function checkBudget(service: Service, port: number): Promise<void> {
  expect(await probe(service.url)).toBe(200);
  const held = Array.from({ length: HELD }, () => holdBody(port));
  try {
    expect(await statusUntil(service.url, 503)).toBe(503);
  } finally {
    for (const socket of held) socket.destroy();
  }
  // Their clients gone, the bodies' budget is back.
  expect(await statusUntil(service.url, 200)).toBe(200);
}

describe("worker.mjs request bodies under a budget", () => {
  it("on Bun", async () => {
    const port = await freePort();
    const words = shellWords(readmeCommands(readme, "### Bun")[0]!).map((w) => w.replace("=3000", `=${port}`));
    expect(words.slice(0, 2)).toEqual(["bun", "--no-env-file"]);
    const service = await startService(runtimeBinary("bun"), words.slice(1), {
      env: { DO_NOT_TRACK: "1", NO_COLOR: "1" },
      cwd: pkg,
      port,
    });
    try {
      await checkBudget(service, port);
    } finally {
      await service.stop();
    }
  });

  it("on Deno", async () => {
    const port = await freePort();
    const words = shellWords(readmeCommands(readme, "### Deno")[0]!).map((w) =>
      w.replace(/(^|[=:,])3000(?=$|,)/g, `$1${port}`),
    );
    expect(words.filter((w) => w.includes(String(port)))).toHaveLength(2);
    const service = await startService(runtimeBinary("deno"), words.slice(1), {
      env: { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      cwd: pkg,
      port,
    });
    try {
      await checkBudget(service, port);
    } finally {
      await service.stop();
    }
  });
});
