/**
 * How fast the installed `kervanc` answers `--version` and `--help`: packs the tarball, installs it into a fresh
 * project outside the repository, and times each command (spawn to exit) against two baselines measured in the
 * same rounds: bare `node -e 0` (the floor) and the repository's bin (the TypeScript sources through tsx, which
 * is what the tarball used to ship). Rounds interleave the commands so machine drift hits all alike.
 *
 *   node --import tsx scripts/bench/cli-start.ts [--rounds 30] [--node PATH]
 *
 * Prints a Markdown table: median, p90 and min in ms, and each median's ratio to bare node.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { formatNumber, summarize } from "./stats.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: { rounds: { type: "string", default: "30" }, node: { type: "string", default: process.execPath } },
});
const rounds = Number(values.rounds);
const node = values.node;

const work = mkdtempSync(join(tmpdir(), "kervanc-bench-cli-"));
try {
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "-w", "kervanc", "--pack-destination", work, "--json"], {
      cwd: REPO,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as { filename: string }[];
  const project = join(work, "project");
  execFileSync("mkdir", [project]);
  writeFileSync(join(project, "package.json"), '{ "name": "bench", "version": "1.0.0", "private": true }\n');
  execFileSync("npm", ["install", "--no-audit", "--no-fund", join(work, packed[0]!.filename)], {
    cwd: project,
    stdio: "ignore",
  });
  const installed = join(project, "node_modules", "kervanc", "bin", "kervanc.js");
  const repository = join(REPO, "packages", "compiler", "bin", "kervanc.js");

  const commands: { label: string; args: string[] }[] = [
    { label: "bare `node -e 0` (floor)", args: ["-e", "0"] },
    { label: "installed `kervanc --version`", args: [installed, "--version"] },
    { label: "installed `kervanc --help`", args: [installed, "--help"] },
    { label: "installed `kervanc build --help`", args: [installed, "build", "--help"] },
    { label: "repository bin (tsx) `kervanc --version`", args: [repository, "--version"] },
  ];
  const samples = commands.map(() => [] as number[]);
  for (let round = 0; round < rounds + 2; round++) {
    for (const [i, command] of commands.entries()) {
      const started = process.hrtime.bigint();
      const r = spawnSync(node, command.args, { cwd: project, stdio: "ignore" });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (r.status !== 0) throw new Error(`${command.label} exited ${r.status}`);
      if (round >= 2) samples[i]!.push(ms); // two warm-up rounds fill the page cache
    }
  }
  const floor = summarize(samples[0]!).median;
  const lines = [
    `CLI start-up, ${rounds} interleaved rounds, ${node === process.execPath ? `Node ${process.version}` : node} (spawn to exit, ms)`,
    "",
    "| command | median | p90 | min | median / bare node |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...commands.map((c, i) => {
      const s = summarize(samples[i]!);
      return `| ${c.label} | ${formatNumber(s.median)} | ${formatNumber(s.p90)} | ${formatNumber(s.min)} | ${(s.median / floor).toFixed(2)}x |`;
    }),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
