/**
 * Keeps the benchmark scripts working: runs `scripts/bench/run.ts --smoke` (one iteration of every section, tiny
 * sizes) as a process and checks that it completes and prints every table and every row. No timing is asserted:
 * the figures of a smoke run mean nothing, and CI machines are noisy.
 *
 * The peer (openapi-mcp-generator) is installed from the npm registry into a cache on first use; when that is not
 * possible its rows say why, and the run still completes.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/kervanc.ts";

const run = promisify(execFile);

describe("benchmark smoke run", () => {
  it("completes and prints every table and row", { timeout: 300_000 }, async () => {
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", join(REPO, "scripts", "bench", "run.ts"), "--smoke"],
      {
        cwd: REPO,
        maxBuffer: 16 * 1024 * 1024,
        timeout: 290_000,
      },
    );
    for (const title of [
      "### Bundle size",
      "### What the 1-tool bundles are made of",
      "### Cold start",
      "### Per-call cost in process",
      "### Per-call latency over stdio",
      "### Streamable HTTP",
      "### RSS of each server over the Streamable HTTP load",
      "### Build time",
      "### Targets",
    ]) {
      expect(stdout).toContain(title);
    }
    const rows = [
      // Bundle size
      "| kervanc server.mjs, 1 tool |",
      "| kervanc, per additional tool",
      "| hand-written bundle, 1 tool |",
      "| interpreted server bundle",
      "| MCP SDK (@modelcontextprotocol/server and core) |",
      "| zod |",
      "| runtime: select interpreter |",
      "| the hand-written server and tool |",
      // Cold start
      '| node -e "" (process floor',
      "| hand-written, unbundled (node_modules) |",
      "| hand-written bundle, 1 tool (--disallow-code-generation-from-strings) |",
      "| kervanc bundle, 1 tool |",
      "(--disallow-code-generation-from-strings) |",
      "| interpreted, 1 tool |",
      // Per call in process
      "| hand-written (tool.ts), stub upstream |",
      "| hand-written doing the same safety work (tool-safe.ts), stub upstream |",
      "| kervanc (built package), stub upstream |",
      "| interpreted (same runtime), stub upstream |",
      "| hand-written, loopback upstream, keep-alive |",
      "| hand-written doing the same safety work (tool-safe.ts), loopback upstream, keep-alive |",
      "| hand-written, loopback upstream, new connection per call |",
      "| kervanc, loopback upstream (its transport: pooled",
      "| kervanc, loopback upstream, pooling off",
      // HTTP
      "| hand-written, keep-alive upstream |",
      "| kervanc, 1 tool |",
      "| hand-written, keep-alive upstream, no code generation",
      "| hand-written, new upstream connection per call |",
      // Build
      "| kervanc build, unchanged rebuild of the",
      // Targets
      "| Cold start, interpreted vs kervanc",
      "| Per-call overhead in process (stub upstream) vs hand-written |",
      "| Per-call overhead in process (stub upstream) vs hand-written doing the same safety work |",
      "| Streamable HTTP throughput vs hand-written (1 tool) |",
      "| Build time,",
    ];
    for (const row of rows) expect(stdout).toContain(row);
    // The peer has a row in every section where it takes part: with figures, or with the reason it has none.
    expect(stdout.match(/^\| peer/gm)?.length ?? 0).toBeGreaterThanOrEqual(5);
    // Every row of every table is complete: as many cells as its header.
    for (const block of stdout.split("\n### ").slice(1)) {
      const lines = block.split("\n").filter((line) => line.startsWith("|"));
      const width = lines[0]!.split(" | ").length;
      for (const line of lines) expect(line.split(" | ").length, line).toBe(width);
    }
  });
});
