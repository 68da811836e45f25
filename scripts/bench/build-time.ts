/**
 * The inner loop's times, as a user's installed kervanc runs them (issue 37): the command as a process, spawn to
 * exit, against bare `node -e ""` in the same interleaved rounds, so machine drift and busy neighbours hit every
 * command alike.
 *
 *   node --import tsx scripts/bench/build-time.ts [--rounds 7] [--kervanc PATH/bin/kervanc.js] [--repo]
 *
 * Without --kervanc it packs this repository (`npm pack -w kervanc`, which runs prepack) and installs the tarball
 * into a fresh project in the temp folder, as the README's "own project" section does (the registry is the only
 * network it needs). --repo also times this repository's bin (the TypeScript sources through tsx).
 *
 * Rows: a 200-tool spec into a fresh folder; 20 specs of 10 tools into a fresh folder; the same 20 again,
 * unchanged; `kervanc call` of one tool against a local upstream; `kervanc test` of a spec with three cases.
 * Prints a Markdown table: median, spread (p10-p90, min-max) in seconds, the median of each round's ratio to bare
 * node (p25-p75), and the goal.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { generateSpec, PRIMARY_ARGS, PRIMARY_TOOL } from "./gen-specs.ts";
import { formatNumber, formatPaired, pairedRatio, summarize } from "./stats.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    kervanc: { type: "string" },
    repo: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const work = mkdtempSync(join(tmpdir(), "kervanc-bench-build-"));

function must(command: string, args: readonly string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  return r.stdout;
}

/** The installed bin: packed from this repository and installed into a fresh project, unless given. */
function installedKervanc(): string {
  if (values.kervanc) return resolve(values.kervanc);
  const packed = JSON.parse(must("npm", ["pack", "-w", "kervanc", "--json", "--pack-destination", work], REPO)) as {
    filename: string;
  }[];
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), '{ "name": "bench-project", "private": true, "type": "module" }\n');
  must("npm", ["install", "--no-audit", "--no-fund", "--save-dev", join(work, packed[0]!.filename)], project);
  return join(project, "node_modules", "kervanc", "bin", "kervanc.js");
}

async function startUpstream(): Promise<{ origin: string; stop(): void }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO, "scripts", "bench", "upstream.ts")], {
    cwd: REPO,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const port = /^PORT (\d+)$/.exec(line)?.[1];
    if (port) return { origin: `http://127.0.0.1:${port}`, stop: () => child.kill() };
  }
  throw new Error("The upstream did not start.");
}

interface Command {
  readonly label: string;
  readonly goal: string;
  readonly args: () => string[];
  /** Runs before each timed run, untimed (a fresh output folder). */
  readonly before?: () => void;
}

/**
 * A fresh output folder: the previous round's removed, and the removal committed to disk (`sync`) before the clock
 * starts. This machine's root file system is ext4 mounted with `discard`: freeing the blocks of a removed 80 MB
 * output is done at the next journal commit, which otherwise lands inside whatever runs next and made the same
 * 20-spec build's file writes take 70 ms or 1 s.
 */
function freshFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  spawnSync("sync", { stdio: "ignore" });
}

const upstream = await startUpstream();
try {
  const bins: { name: string; bin: string }[] = [{ name: "installed", bin: installedKervanc() }];
  if (values.repo)
    bins.push({ name: "repository (tsx)", bin: join(REPO, "packages", "compiler", "bin", "kervanc.js") });

  const specs = join(work, "specs");
  mkdirSync(join(specs, "many"), { recursive: true });
  writeFileSync(join(specs, "large.yaml"), generateSpec(200, upstream.origin, { name: "large" }));
  for (let i = 0; i < 20; i++)
    writeFileSync(join(specs, "many", `s${i}.yaml`), generateSpec(10, upstream.origin, { name: `many-${i}` }));
  const one = join(specs, "one.yaml");
  writeFileSync(one, generateSpec(1, upstream.origin, { name: "one" }));
  // Three cases recorded the documented way: `kervanc call --record`.
  const cases = join(specs, "one.test.yaml");
  for (let i = 0; i < 3; i++)
    must(
      process.execPath,
      [bins[0]!.bin, "call", one, PRIMARY_TOOL, JSON.stringify(PRIMARY_ARGS), "--record", cases],
      work,
    );

  const commands: Command[] = [{ label: 'bare `node -e ""` (floor)', goal: "", args: () => ["-e", ""] }];
  for (const { name, bin } of bins) {
    const out = (label: string): string => join(work, `out-${name.replace(/\W+/g, "-")}-${label}`);
    commands.push(
      {
        label: `${name}: build, one spec of 200 tools`,
        goal: "<= 2 s",
        before: () => freshFolder(out("large")),
        args: () => [bin, "build", join(specs, "large.yaml"), "-o", out("large")],
      },
      {
        label: `${name}: build, 20 specs of 10 tools`,
        goal: "<= 3 s",
        before: () => freshFolder(out("many")),
        args: () => [bin, "build", join(specs, "many"), "-o", out("many")],
      },
      {
        label: `${name}: the same 20, unchanged`,
        goal: "<= 0.5 s",
        args: () => [bin, "build", join(specs, "many"), "-o", out("many")],
      },
      {
        label: `${name}: call, one tool against a local upstream`,
        goal: "<= 0.8 s",
        args: () => [bin, "call", one, PRIMARY_TOOL, JSON.stringify(PRIMARY_ARGS)],
      },
      {
        label: `${name}: test, one spec with three cases`,
        goal: "<= 1 s",
        args: () => [bin, "test", one],
      },
    );
  }

  const samples = commands.map(() => [] as number[]);
  for (let round = 0; round < rounds + 1; round++) {
    for (const [i, command] of commands.entries()) {
      command.before?.();
      const started = process.hrtime.bigint();
      const r = spawnSync(process.execPath, command.args(), { cwd: work, stdio: ["ignore", "ignore", "pipe"] });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (r.status !== 0) throw new Error(`${command.label} exited ${r.status}: ${String(r.stderr).slice(0, 1000)}`);
      if (round >= 1) samples[i]!.push(seconds); // one warm-up round fills the page cache
    }
  }
  const p10 = (xs: readonly number[]): number =>
    [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.1 * xs.length) - 1)]!;
  const s2 = (x: number): string => formatNumber(x, 2);
  const lines = [
    `The inner loop, ${rounds} interleaved rounds, Node ${process.version}, spawn to exit (s)`,
    "",
    "| command | median | p10-p90 | min-max | paired ratio to bare node (p25-p75) | goal |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    ...commands.map((c, i) => {
      const s = summarize(samples[i]!);
      const ratio = i === 0 ? "1.00x" : formatPaired(pairedRatio(samples[i]!, samples[0]!));
      return `| ${c.label} | ${s2(s.median)} | ${s2(p10(samples[i]!))}-${s2(s.p90)} | ${s2(s.min)}-${s2(s.max)} | ${ratio} | ${c.goal} |`;
    }),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
} finally {
  upstream.stop();
  rmSync(work, { recursive: true, force: true });
}
