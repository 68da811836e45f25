/**
 * A compressed upstream answer on Bun, whose fetch decodes ahead of its reader. The hop loop stops reading at
 * maxResponseBytes of decoded bytes, but Bun's own decoding went on meanwhile: a 1.6 KB brotli body that decodes
 * to 1 GiB took one call to about 110 MB and ten parallel calls to 1.4 GB of resident memory (1.3 GB still held
 * afterwards). worker.mjs now has Bun hand the body over undecoded and decodes it itself, as far as it reads.
 * The figure checked is the process's peak resident size (VmHWM in /proc), not a timing.
 */
import { readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { constants, createBrotliCompress } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, removeDir, tempDir } from "../helpers/kervanc.ts";
import { httpClient } from "../helpers/runtime-clients.ts";
import {
  freePort,
  readmeCommands,
  runtimeBinary,
  type Service,
  shellWords,
  startService,
} from "../helpers/runtimes.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

/** Calls at once (the tool's default concurrency is 10). */
const PARALLEL = 8;
/** The most the server's peak resident size may grow over the calls; without the fix it grew by about 1 GB. */
const MAX_GROWTH = 150 * 1024 * 1024;
const MAX_RESPONSE_BYTES = 1_048_576;

/** 1 GiB of zeros, brotli-compressed (about 1.6 KB). */
async function brotliBomb(): Promise<Buffer> {
  const compress = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  const out: Buffer[] = [];
  compress.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => compress.on("end", resolve));
  const zeros = Buffer.alloc(1 << 20);
  for (let i = 0; i < 1024; i++) {
    if (!compress.write(zeros)) await new Promise((resolve) => compress.once("drain", resolve));
  }
  compress.end();
  await ended;
  return Buffer.concat(out);
}

function peakResident(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match![1]) * 1024;
}

let upstream: Upstream;
let root: string;
let pkg: string;
let service: Service;

beforeAll(async () => {
  const bomb = await brotliBomb();
  upstream = await startUpstream((_req, res) => {
    res
      .writeHead(200, { "content-type": "application/json", "content-encoding": "br", "content-length": bomb.length })
      .end(bomb);
  });
  root = await tempDir("fetch-decoding");
  await mkdir(join(root, "specs"));
  await writeFile(
    join(root, "specs", "decoding.yaml"),
    `specVersion: 1
name: decoding
version: "1.0.0"
description: A compressed answer.
tools:
  - name: bomb
    description: An answer that decodes to 1 GiB.
    http: { url: "${upstream.origin}/bomb", allowInsecureHttp: true, maxResponseBytes: ${MAX_RESPONSE_BYTES} }
    output: { select: "@" }
`,
  );
  const built = await kervanc(["build", join(root, "specs"), "-o", join(root, "out")]);
  expect(built.code, built.stderr).toBe(0);
  pkg = join(root, "out", "decoding");
  const readme = await readFile(join(pkg, "README.md"), "utf8");
  const port = await freePort();
  const words = shellWords(readmeCommands(readme, "### Bun")[0]!).map((w) => w.replace("=3000", `=${port}`));
  expect(words[0]).toBe("bun");
  service = await startService(runtimeBinary("bun"), words.slice(1), {
    env: { KERVANC_ALLOW_PRIVATE_NETWORK: "1", DO_NOT_TRACK: "1", NO_COLOR: "1" },
    cwd: pkg,
    port,
  });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await upstream?.close();
  if (root) await removeDir(root);
});

describe("Bun serving worker.mjs", () => {
  it("refuses a brotli answer that decodes past maxResponseBytes without decoding it into memory", async () => {
    const client = await httpClient("modern", service.url);
    try {
      const before = peakResident(service.child.pid!);
      const results = await Promise.all(Array.from({ length: PARALLEL }, () => client.callTool("bomb", {})));
      for (const result of results) {
        expect(result).toMatchObject({
          isError: true,
          content: [
            {
              type: "text",
              text: `The response from 127.0.0.1:${upstream.port} is larger than ${MAX_RESPONSE_BYTES} bytes; it was not read.`,
            },
          ],
        });
      }
      const growth = peakResident(service.child.pid!) - before;
      expect(growth, `peak resident size grew by ${Math.round(growth / 1e6)} MB`).toBeLessThan(MAX_GROWTH);
    } finally {
      await client.close();
    }
  });
});
