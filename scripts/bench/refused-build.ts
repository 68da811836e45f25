/**
 * How long `kervanc build` takes to refuse a spec at its first line (a `!!js/function` tag, refused by the load
 * stage), spawn to exit, against bare `node -e ""` measured in the same interleaved rounds, so machine drift and
 * busy neighbours hit every command alike. Issue 37: such a build took about a second, loading the emit and
 * analysis stages it never used.
 *
 *   node --import tsx scripts/bench/refused-build.ts [--rounds 20] [--before PATH]...
 *
 * Times this repository's bin (the TypeScript sources through tsx), its compiled `packages/compiler/dist/cli.js`
 * when one is built (`npm pack -w kervanc` or `npx tsx scripts/pack/prepack.ts` in packages/compiler), and each
 * --before: another checkout's `bin/kervanc.js` or a compiled `cli.js` (kept from before a change, inside the
 * repository so it resolves its dependencies), for a before-and-after in one run. Prints a
 * Markdown table: median, the spread (p10 to p90, min, max) in ms, and the median of each round's ratio to bare node.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { formatNumber, formatPaired, pairedRatio, summarize } from "./stats.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: { rounds: { type: "string", default: "20" }, before: { type: "string", multiple: true, default: [] } },
});
const rounds = Number(values.rounds);

const work = mkdtempSync(join(tmpdir(), "kervanc-bench-refused-"));
try {
  const spec = join(work, "refused.yaml");
  writeFileSync(spec, "specVersion: !!js/function 1\nname: refused\n");
  const build = ["build", spec, "-o", join(work, "out")];
  const dist = join(REPO, "packages", "compiler", "dist", "cli.js");
  // A compiled cli.js exports run() and runs nothing itself; a bin runs itself.
  const invoke = (entry: string): string[] =>
    entry.endsWith("cli.js")
      ? [
          "--input-type=module",
          "-e",
          `const { run } = await import(${JSON.stringify(pathToFileURL(resolve(entry)).href)}); process.exitCode = await run(process.argv.slice(1));`,
        ]
      : [resolve(entry)];

  const commands: { label: string; args: string[]; code: number }[] = [
    { label: 'bare `node -e ""` (floor)', args: ["-e", ""], code: 0 },
    {
      label: "repository bin (tsx) `kervanc --version`",
      args: [join(REPO, "packages", "compiler", "bin", "kervanc.js"), "--version"],
      code: 0,
    },
    {
      label: "repository bin (tsx) `kervanc build refused.yaml`",
      args: [join(REPO, "packages", "compiler", "bin", "kervanc.js"), ...build],
      code: 1,
    },
  ];
  if (existsSync(dist))
    commands.push({
      label: "compiled dist/cli.js `kervanc build refused.yaml`",
      args: [...invoke(dist), ...build],
      code: 1,
    });
  for (const before of values.before)
    commands.push({ label: `${before} \`kervanc build refused.yaml\``, args: [...invoke(before), ...build], code: 1 });

  const samples = commands.map(() => [] as number[]);
  for (let round = 0; round < rounds + 2; round++) {
    for (const [i, command] of commands.entries()) {
      const started = process.hrtime.bigint();
      const r = spawnSync(process.execPath, command.args, { cwd: work, stdio: ["ignore", "ignore", "pipe"] });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // A build must fail for the reason timed (the tag), not for another (a crash also exits non-zero).
      if (r.status !== command.code || (command.code === 1 && !String(r.stderr).includes("error KV1006")))
        throw new Error(`${command.label} exited ${r.status}, not ${command.code}: ${String(r.stderr).slice(0, 500)}`);
      if (round >= 2) samples[i]!.push(ms); // two warm-up rounds fill the page cache and tsx's cache
    }
  }
  const p10 = (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.max(0, Math.ceil(0.1 * sorted.length) - 1)]!;
  };
  const lines = [
    `A build refused at the spec's first line, ${rounds} interleaved rounds, Node ${process.version} (spawn to exit, ms)`,
    "",
    "| command | median | p10-p90 | min-max | median of paired ratios to bare node (p25-p75) |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...commands.map((c, i) => {
      const s = summarize(samples[i]!);
      const r = pairedRatio(samples[i]!, samples[0]!);
      return `| ${c.label} | ${formatNumber(s.median)} | ${formatNumber(p10(samples[i]!))}-${formatNumber(s.p90)} | ${formatNumber(s.min)}-${formatNumber(s.max)} | ${formatPaired(r)} |`;
    }),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
