/**
 * The benchmark suite: kervanc's compiled servers against a hand-written SDK v2 server (a), an interpreting
 * server (b) and the server openapi-mcp-generator generates (c), all measured in one run so that every ratio
 * compares figures taken minutes apart on the same (noisy) machine. Prints Markdown tables on stdout.
 *
 *   npm run bench                    the full suite (about 10-15 minutes on 2 cores)
 *   npm run bench:smoke              one iteration of everything with tiny sizes (under a minute once the
 *                                    peer is cached); what CI runs through test/bench/smoke.e2e.test.ts
 *   options: --node PATH             the Node binary the servers under test run on (default: this one)
 *            --json FILE             also write every sample as JSON
 *            --skip-peer             leave out the peer (its rows say so)
 *            --keep                  keep the work folder (built packages, specs) for inspection
 *            --only a,b              run only these sections (size, cold, percall, stdio, http, build), to
 *                                    look at one change; the figures of a full run come from one run
 *
 * Sections: bundle size, cold start (spawn to first tools/list answer over stdio), per-call cost in process
 * (stub upstream, and a real loopback upstream), per-call latency over stdio, Streamable HTTP throughput with 50
 * connections and RSS after the load, build time. Measurements of different servers are interleaved round by
 * round, so drift on the machine hits every server alike. See BENCHMARKS.md for the method and the figures.
 */
import { type ChildProcess, execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { parseArgs, promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { bundleBaselines, composition, REPO } from "./bundles.ts";
import { benchTools, generateSpec, PRIMARY_ARGS, PRIMARY_TOOL, peerArgs } from "./gen-specs.ts";
import { legacySessionTarget, type LoadCall, type LoadTarget, modernTarget, runLoad } from "./loadgen.ts";
import type { PercallConfig, PercallResult } from "./percall.ts";
import { killAll, startHttp, startUpstream, track } from "./processes.ts";
import { buildPeerOnce, PEER_PACKAGE, PEER_VERSION, peerCallSucceeded, type PeerSetup, setupPeer } from "./peer.ts";
import {
  formatBytes,
  formatNumber,
  formatPaired,
  pairedRatio,
  sortedPercentile,
  summarize,
  type Summary,
} from "./stats.ts";
import {
  callFailure,
  type Command,
  coldStart,
  cpuMs,
  type Era,
  initializeLegacy,
  spawnSession,
  type StdioSession,
  warmCompileCache,
} from "./stdio.ts";
import { WARM_UP_REQUEST } from "../../packages/compiler/src/emit/files/deploy-files.ts";

const execFileAsync = promisify(execFile);

const { values: flags } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    node: { type: "string" },
    json: { type: "string" },
    "skip-peer": { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
    only: { type: "string" },
  },
});
const SMOKE = flags.smoke;
const NODE = flags.node ?? process.execPath;
const KERVANC_BIN = join(REPO, "packages", "compiler", "bin", "kervanc.js");
/** Work folders: inside the repository, so that the packages' sources and the unbundled baseline resolve its node_modules. */
const CACHE = join(REPO, "node_modules", ".cache", "kervanc-bench");
/**
 * The peer's cache: outside the repository, so that its TypeScript build does not also pick up the workspace's
 * own @types packages from the folders above it.
 */
const PEER_CACHE = join(tmpdir(), "kervanc-bench-peer");

/**
 * How much of everything. The smoke plan keeps every section and every row but shrinks the sizes (a 200-tool
 * build alone takes longer than the smoke budget) and runs each measurement once.
 */
const PLAN = SMOKE
  ? {
      sizes: [1, 2],
      multi: { specs: 2, tools: 2 },
      coldRuns: 1,
      percall: { rounds: 1, stubCalls: 200, socketCalls: 20 },
      stdio: { rounds: 1, calls: 20, warmup: 5 },
      http: { warmup: 50, windows: 1, window: 200, minorWindow: 200, connections: 50 },
      buildRuns: 1,
      peerBuildRuns: 1,
    }
  : {
      sizes: [1, 10, 100, 200],
      multi: { specs: 20, tools: 10 },
      coldRuns: 25,
      percall: { rounds: 41, stubCalls: 3000, socketCalls: 1000 },
      stdio: { rounds: 10, calls: 200, warmup: 300 },
      http: { warmup: 5000, windows: 10, window: 9500, minorWindow: 2500, connections: 50 },
      buildRuns: 5,
      peerBuildRuns: 3,
    };
const LARGEST = Math.max(...PLAN.sizes);
const SMALLEST = Math.min(...PLAN.sizes);

function log(line: string): void {
  process.stderr.write(`[bench] ${line}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Output: Markdown tables, collected so the whole report prints at the end in one piece.

const report: string[] = [];
const samples: Record<string, unknown> = {};

function table(title: string, header: readonly string[], rows: readonly (readonly string[])[], note?: string): void {
  report.push(`### ${title}`, "", `| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`);
  for (const row of rows) report.push(`| ${row.join(" | ")} |`);
  if (note) report.push("", note);
  report.push("");
}

function ratio(value: number, base: number): string {
  return Number.isFinite(value) && Number.isFinite(base) && base > 0 ? `${(value / base).toFixed(2)}x` : "n/a";
}

interface Target {
  readonly name: string;
  /**
   * Wall clock: the ratio of the two medians, and for interleaved measurements the paired ratio (the median of
   * the per-round ratios, with p25-p75), which is what the target is judged on where it is given.
   */
  readonly measured: string;
  /** The same comparison in CPU time, which contention on a shared machine distorts less. */
  readonly cpu: string;
  readonly goal: string;
  readonly met: boolean | null;
}
const targets: Target[] = [];

// ---------------------------------------------------------------------------------------------------------
// Setup

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function kervanc(args: readonly string[]): Promise<number> {
  const t0 = performance.now();
  try {
    await execFileAsync(NODE, [KERVANC_BIN, ...args], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`kervanc ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  return performance.now() - t0;
}

async function nodeVersion(node: string): Promise<string> {
  return (await execFileAsync(node, ["--version"])).stdout.trim();
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

function rssKiB(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

interface Work {
  readonly dir: string;
  readonly origin: string;
  /** Specs against the upstream, by size. */
  readonly specs: ReadonlyMap<number, string>;
  /** Built packages, by size (server.mjs inside). */
  readonly packages: ReadonlyMap<number, string>;
  /** 1-tool spec with a secret and an https origin, and its package (for the stub per-call figures). */
  readonly secretSpec: string;
  readonly secretPackage: string;
  /** The 1-tool spec built against the upstream by host name (`localhost` instead of 127.0.0.1), and that origin. */
  readonly namedPackage: string;
  readonly namedOrigin: string;
  readonly multiDir: string;
  readonly baselines: Awaited<ReturnType<typeof bundleBaselines>>;
  readonly peer: PeerSetup | null;
  readonly peerProblem: string | null;
}

async function prepare(origin: string): Promise<Work> {
  await mkdir(CACHE, { recursive: true });
  const dir = await mkdtemp(join(CACHE, "run-"));
  const specDir = join(dir, "specs");
  const multiDir = join(dir, "multi");
  await mkdir(specDir);
  await mkdir(multiDir);
  const specs = new Map<number, string>();
  for (const n of PLAN.sizes) {
    const file = join(specDir, `bench-${n}.yaml`);
    await writeFile(file, generateSpec(n, origin));
    specs.set(n, file);
  }
  const secretSpec = join(specDir, "secret-1.yaml");
  await writeFile(secretSpec, generateSpec(1, "https://api.bench.example", { secrets: true, name: "secret-1" }));
  const namedOrigin = origin.replace("//127.0.0.1:", "//localhost:");
  await writeFile(join(specDir, "named-1.yaml"), generateSpec(1, namedOrigin, { name: "named-1" }));
  for (let i = 0; i < PLAN.multi.specs; i++) {
    await writeFile(
      join(multiDir, `multi-${String(i).padStart(2, "0")}.yaml`),
      generateSpec(PLAN.multi.tools, origin, { name: `multi-${i}` }),
    );
  }
  log("building the benchmark packages");
  const out = join(dir, "out");
  await kervanc(["build", specDir, "-o", out]);
  const packages = new Map(PLAN.sizes.map((n) => [n, join(out, `bench-${n}`)]));
  log("bundling the baselines");
  const baselines = await bundleBaselines(dir);
  let peer: PeerSetup | null = null;
  let peerProblem: string | null = null;
  if (flags["skip-peer"]) peerProblem = "skipped (--skip-peer)";
  else {
    try {
      peer = await setupPeer(PEER_CACHE, PLAN.sizes, log);
    } catch (error) {
      peerProblem = `setup failed: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`;
      log(`the peer is left out: ${peerProblem}`);
    }
  }
  return {
    dir,
    origin,
    specs,
    packages,
    secretSpec,
    secretPackage: join(out, "secret-1"),
    namedPackage: join(out, "named-1"),
    namedOrigin,
    multiDir,
    baselines,
    peer,
    peerProblem,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Servers under test, as commands

interface Subject {
  readonly label: string;
  readonly era: Era;
  readonly command: Command;
}

function kervancStdio(w: Work, n: number, extraNodeArgs: readonly string[] = []): Subject {
  const label = `kervanc bundle, ${n} tool${n === 1 ? "" : "s"}${extraNodeArgs.length > 0 ? ` (${extraNodeArgs.join(" ")})` : ""}`;
  return {
    label,
    era: "modern",
    command: {
      command: NODE,
      args: [...extraNodeArgs, join(w.packages.get(n)!, "server.mjs"), "--allow-private-network"],
    },
  };
}

function interpretedStdio(w: Work, n: number): Subject {
  return {
    label: `interpreted, ${n} tool${n === 1 ? "" : "s"}`,
    era: "modern",
    command: { command: NODE, args: [w.baselines.interpreted, w.specs.get(n)!, "--allow-private-network"] },
  };
}

/** The hand-written bundle with its built-ins taken as kervanc's runtime takes them, under the flag. */
function lazyBuiltinsHandwritten(w: Work): Subject {
  const plain = flaggedHandwritten(w);
  return {
    ...plain,
    label:
      "hand-written bundle, 1 tool, built-ins through process.getBuiltinModule (--disallow-code-generation-from-strings)",
    command: {
      ...plain.command,
      args: plain.command.args.map((a) => (a === w.baselines.handwritten ? w.baselines.handwrittenLazyBuiltins : a)),
    },
  };
}

function handwrittenStdio(w: Work, unbundled = false): Subject {
  return {
    label: unbundled ? "hand-written, unbundled (node_modules)" : "hand-written bundle, 1 tool",
    era: "modern",
    command: {
      command: NODE,
      args: [unbundled ? w.baselines.handwrittenUnbundled : w.baselines.handwritten, "--upstream", w.origin],
    },
  };
}

/**
 * The hand-written bundle under --disallow-code-generation-from-strings. The flag changes V8's flag hash, so Node
 * compiles every built-in module it loads from source instead of taking it from the code cache in its binary: a
 * cost of the flag for any Node server, which a comparison "with the flag" has to charge to both sides.
 */
function flaggedHandwritten(w: Work): Subject {
  const plain = handwrittenStdio(w);
  return {
    ...plain,
    label: `${plain.label} (--disallow-code-generation-from-strings)`,
    command: { ...plain.command, args: ["--disallow-code-generation-from-strings", ...plain.command.args] },
  };
}

/** Whether the servers' Node has a compile cache (`NODE_COMPILE_CACHE`, Node 22.1 and later). */
async function nodeHasCompileCache(): Promise<boolean> {
  const { stdout } = await execFileAsync(NODE, ["-p", "typeof require('node:module').enableCompileCache"]);
  return stdout.trim() === "function";
}

/**
 * A subject started with Node's compile cache built beforehand as the generated Dockerfile builds it (the same
 * warm-up request, the same Node flags as the starts).
 */
async function withCompileCache(subject: Subject, dir: string, label: string): Promise<Subject> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Node rewrites no entry it found the same, so the starts leave the cache as the warm-up made it.
  await warmCompileCache(subject.command, dir, WARM_UP_REQUEST);
  return {
    ...subject,
    label: `${subject.label.replace(/ \(--disallow-code-generation-from-strings\)$/, "")} (${label})`,
    command: { ...subject.command, env: { ...subject.command.env, NODE_COMPILE_CACHE: dir } },
  };
}

function peerStdio(w: Work, n: number): Subject | null {
  const project = w.peer?.stdio.get(n);
  if (!project) return null;
  return {
    label: `peer, ${n} tool${n === 1 ? "" : "s"}`,
    era: "legacy",
    command: { command: NODE, args: [project.entry], cwd: project.dir, env: { API_BASE_URL: w.origin } },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Sections

async function sectionSizes(w: Work): Promise<void> {
  const rows: string[][] = [];
  const size = async (file: string): Promise<{ bytes: number; gzip: number }> => {
    const text = await readFile(file);
    return { bytes: text.length, gzip: gzipSync(text, { level: 9 }).length };
  };
  const sizes = new Map<number, { bytes: number; gzip: number }>();
  for (const n of PLAN.sizes) {
    const s = await size(join(w.packages.get(n)!, "server.mjs"));
    sizes.set(n, s);
    rows.push([`kervanc server.mjs, ${n} tool${n === 1 ? "" : "s"}`, formatBytes(s.bytes), formatBytes(s.gzip), ""]);
  }
  const first = sizes.get(SMALLEST)!;
  const last = sizes.get(LARGEST)!;
  const perTool = (last.bytes - first.bytes) / (LARGEST - SMALLEST);
  const perToolGzip = (last.gzip - first.gzip) / (LARGEST - SMALLEST);
  rows.push([
    `kervanc, per additional tool (${SMALLEST} to ${LARGEST})`,
    formatBytes(perTool),
    formatBytes(perToolGzip),
    "mixed tool shapes, see gen-specs.ts",
  ]);
  const hw = await size(w.baselines.handwritten);
  rows.push(["hand-written bundle, 1 tool", formatBytes(hw.bytes), formatBytes(hw.gzip), "same esbuild options"]);
  rows.push(["kervanc 1 tool vs hand-written", ratio(first.bytes, hw.bytes), ratio(first.gzip, hw.gzip), ""]);
  const interp = await size(w.baselines.interpreted);
  rows.push([
    "interpreted server bundle (any spec)",
    formatBytes(interp.bytes),
    formatBytes(interp.gzip),
    "plus the YAML at run time",
  ]);
  if (w.peer) {
    for (const n of [SMALLEST, LARGEST]) {
      const p = await size(w.peer.stdio.get(n)!.entry);
      rows.push([
        `peer build/index.js, ${n} tool${n === 1 ? "" : "s"}`,
        formatBytes(p.bytes),
        formatBytes(p.gzip),
        "not self-contained",
      ]);
    }
    rows.push([
      "peer node_modules (all projects share it)",
      formatBytes(await dirBytes(join(w.peer.root, "node_modules"))),
      "",
      "includes the generator and tsc",
    ]);
  } else rows.push(["peer", "n/a", "n/a", w.peerProblem ?? ""]);
  samples["size"] = Object.fromEntries([...sizes].map(([n, s]) => [n, s]));
  table("Bundle size", ["what", "bytes", "gzip -9", "note"], rows);
  targets.push({
    name: "1-tool server.mjs vs hand-written bundle (bytes)",
    measured: `${formatBytes(first.bytes)} vs ${formatBytes(hw.bytes)} = ${ratio(first.bytes, hw.bytes)}`,
    cpu: "",
    goal: "<= 1.1x",
    met: first.bytes <= 1.1 * hw.bytes,
  });

  // What the bytes are: the SDK and zod are in both bundles; the rest is what each server adds to them.
  const smallest = w.packages.get(SMALLEST)!;
  const [kParts, hParts] = await Promise.all([
    composition(join(smallest, "src", "main.ts"), join(smallest, "src", "runtime", "entry", "sdk-shims.ts")),
    composition(join(REPO, "scripts", "bench", "handwritten", "server.ts")),
  ]);
  const names = [...new Set([...kParts.keys(), ...hParts.keys()])].sort(
    (a, b) => (kParts.get(b) ?? 0) + (hParts.get(b) ?? 0) - ((kParts.get(a) ?? 0) + (hParts.get(a) ?? 0)),
  );
  const total = (parts: ReadonlyMap<string, number>): number => [...parts.values()].reduce((x, y) => x + y, 0);
  table(
    `What the 1-tool bundles are made of (bytes of minified output by source, esbuild metafile)`,
    ["part", "kervanc server.mjs", "hand-written bundle"],
    [
      ...names.map((name) => [name, formatBytes(kParts.get(name) ?? 0), formatBytes(hParts.get(name) ?? 0)]),
      ["all of it", formatBytes(total(kParts)), formatBytes(total(hParts))],
    ],
    "Both bundles carry the same SDK and zod; the rows below them are what each server adds. The totals leave out esbuild's own glue between modules.",
  );
}

async function sectionColdStart(w: Work): Promise<void> {
  // With the compile cache the generated Dockerfile builds into the image (Node 22.1 and later), both sides
  // under the flag: the hand-written bundle with a cache of its own, kervanc's largest bundle with the image's.
  const cached = (await nodeHasCompileCache())
    ? {
        handwritten: await withCompileCache(
          flaggedHandwritten(w),
          join(w.dir, "compile-cache-handwritten"),
          "--disallow-code-generation-from-strings, its own compile cache",
        ),
        kervanc: await withCompileCache(
          kervancStdio(w, LARGEST, ["--disallow-code-generation-from-strings"]),
          join(w.dir, "compile-cache-kervanc"),
          "--disallow-code-generation-from-strings, the compile cache deploy/Dockerfile builds",
        ),
      }
    : null;
  const subjects: Subject[] = [
    {
      label: 'node -e "" (process floor, exits; spawn to exit)',
      era: "modern",
      command: { command: NODE, args: ["-e", ""] },
    },
    handwrittenStdio(w),
    handwrittenStdio(w, true),
    flaggedHandwritten(w),
    lazyBuiltinsHandwritten(w),
    ...(cached ? [cached.handwritten] : []),
    ...PLAN.sizes.map((n) => kervancStdio(w, n)),
    kervancStdio(w, LARGEST, ["--disallow-code-generation-from-strings"]),
    ...(cached ? [cached.kervanc] : []),
    ...PLAN.sizes.map((n) => interpretedStdio(w, n)),
    ...PLAN.sizes.map((n) => peerStdio(w, n)).filter((s): s is Subject => s !== null),
  ];
  const times = new Map<string, number[]>(subjects.map((s) => [s.label, []]));
  const cpu = new Map<string, number[]>(subjects.map((s) => [s.label, []]));
  const floorLabel = subjects[0]!.label;
  for (let run = 0; run < PLAN.coldRuns; run++) {
    log(`cold start, round ${run + 1}/${PLAN.coldRuns}`);
    for (let i = 0; i < subjects.length; i++) {
      const s = subjects[(i + run) % subjects.length]!;
      if (s.label === floorLabel) {
        const t0 = performance.now();
        await execFileAsync(s.command.command, [...s.command.args]);
        times.get(s.label)!.push(performance.now() - t0);
        continue;
      }
      const started = await coldStart(s.command, s.era);
      times.get(s.label)!.push(started.ms);
      cpu.get(s.label)!.push(started.cpuMs);
    }
  }
  const wallOf = (label: string): number => summarize(times.get(label)!).median;
  const cpuOf = (label: string): number => summarize(cpu.get(label)!).median;
  const minOf = (label: string): number => summarize(times.get(label)!).min;
  const hw = handwrittenStdio(w).label;
  const rows = subjects.map((s) => {
    const sum = summarize(times.get(s.label)!);
    const floor = s.label === floorLabel;
    const requests = floor ? "none" : s.era === "legacy" ? "initialize, tools/list" : "tools/list";
    return [
      s.label,
      requests,
      formatNumber(sum.median),
      formatNumber(sum.p90),
      formatNumber(sum.min),
      ratio(sum.median, wallOf(hw)),
      floor ? "" : formatNumber(cpuOf(s.label), 0),
      floor ? "" : ratio(cpuOf(s.label), cpuOf(hw)),
    ];
  });
  if (!w.peer) rows.push(["peer", "", "n/a", "", "", "", "", w.peerProblem ?? ""]);
  samples["coldStart"] = { wallMs: Object.fromEntries(times), cpuMs: Object.fromEntries(cpu) };
  table(
    `Cold start: spawn to the first tools/list answer over stdio (ms, ${PLAN.coldRuns} runs each, interleaved)`,
    [
      "server",
      "requests",
      "median",
      "p90",
      "min",
      "vs hand-written bundle",
      "server CPU ms (median)",
      "CPU vs hand-written",
    ],
    rows,
    "Server CPU: CPU time of all the server's threads when its answer arrived (/proc/<pid>/task/*/schedstat).",
  );
  const k = kervancStdio(w, LARGEST).label;
  const interp = interpretedStdio(w, LARGEST).label;
  const coldTarget = (label: string, base: string, name: string): void => {
    const paired = pairedRatio(times.get(label)!, times.get(base)!);
    targets.push({
      name,
      // The fastest run of each is what a quiet machine gives; shown next to the medians.
      measured: `${formatNumber(wallOf(label))} ms vs ${formatNumber(wallOf(base))} ms = ${ratio(wallOf(label), wallOf(base))}; paired ${formatPaired(paired)} (fastest runs: ${ratio(minOf(label), minOf(base))})`,
      cpu: `${formatNumber(cpuOf(label), 0)} vs ${formatNumber(cpuOf(base), 0)} ms = ${ratio(cpuOf(label), cpuOf(base))}; paired ${formatPaired(pairedRatio(cpu.get(label)!, cpu.get(base)!))}`,
      goal: "<= 1.1x",
      met: paired.median <= 1.1,
    });
  };
  const flagged = kervancStdio(w, LARGEST, ["--disallow-code-generation-from-strings"]).label;
  coldTarget(
    flagged,
    flaggedHandwritten(w).label,
    `Cold start, ${LARGEST}-tool bundle vs hand-written 1-tool bundle, both with --disallow-code-generation-from-strings`,
  );
  coldTarget(
    flagged,
    hw,
    `Cold start, ${LARGEST}-tool bundle with --disallow-code-generation-from-strings vs hand-written 1-tool bundle without it`,
  );
  coldTarget(k, hw, `Cold start, ${LARGEST}-tool bundle vs hand-written 1-tool bundle, neither with the flag`);
  coldTarget(
    flagged,
    lazyBuiltinsHandwritten(w).label,
    `Cold start, ${LARGEST}-tool bundle vs hand-written 1-tool bundle taking its built-ins as kervanc does, both with --disallow-code-generation-from-strings`,
  );
  if (cached) {
    coldTarget(
      cached.kervanc.label,
      flaggedHandwritten(w).label,
      `Cold start, ${LARGEST}-tool bundle with the compile cache deploy/Dockerfile builds vs hand-written 1-tool bundle without one, both with --disallow-code-generation-from-strings`,
    );
    coldTarget(
      cached.kervanc.label,
      cached.handwritten.label,
      `Cold start, ${LARGEST}-tool bundle with the compile cache deploy/Dockerfile builds vs hand-written 1-tool bundle with its own, both with --disallow-code-generation-from-strings`,
    );
  }
  targets.push({
    name: `Cold start, interpreted vs kervanc (${LARGEST} tools)`,
    measured: `${formatNumber(wallOf(interp))} ms vs ${formatNumber(wallOf(k))} ms = ${ratio(wallOf(interp), wallOf(k))} faster`,
    cpu: `${formatNumber(cpuOf(interp), 0)} vs ${formatNumber(cpuOf(k), 0)} ms = ${ratio(cpuOf(interp), cpuOf(k))}`,
    goal: ">= 3x faster",
    met: wallOf(interp) >= 3 * wallOf(k),
  });
}

async function sectionPercall(w: Work): Promise<void> {
  const config: PercallConfig = {
    stubPackage: w.secretPackage,
    stubSpec: w.secretSpec,
    socketPackage: w.packages.get(SMALLEST)!,
    upstreamOrigin: w.origin,
    namedPackage: w.namedPackage,
    namedOrigin: w.namedOrigin,
    rounds: PLAN.percall.rounds,
    stubCalls: PLAN.percall.stubCalls,
    socketCalls: PLAN.percall.socketCalls,
  };
  log("per-call cost in process");
  const { stdout } = await execFileAsync(
    NODE,
    ["--import", "tsx", join(REPO, "scripts", "bench", "percall.ts"), JSON.stringify(config)],
    { cwd: REPO, maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as PercallResult;
  samples["percall"] = result;
  const sum = (name: string): Summary => summarize(result.samples[name] ?? []);
  const cpuSum = (name: string): Summary => summarize(result.cpu[name] ?? []);
  const stubBase = sum("stub/handwritten").median;
  const socketBase = sum("socket/handwritten").median;
  const stubCpuBase = cpuSum("stub/handwritten").median;
  const safeBase = sum("stub/handwritten-safe").median;
  const safeCpuBase = cpuSum("stub/handwritten-safe").median;
  const socketCpuBase = cpuSum("socket/handwritten").median;
  const socketSafeBase = sum("socket/handwritten-safe").median;
  const socketSafeCpuBase = cpuSum("socket/handwritten-safe").median;
  const labels: Record<string, string> = {
    "stub/handwritten": "hand-written (tool.ts), stub upstream",
    "stub/handwritten-safe": "hand-written doing the same safety work (tool-safe.ts), stub upstream",
    "stub/kervanc": "kervanc (built package), stub upstream",
    "stub/interpreted": "interpreted (same runtime), stub upstream",
    "socket/handwritten": "hand-written, loopback upstream, keep-alive",
    "socket/handwritten-safe": "hand-written doing the same safety work (tool-safe.ts), loopback upstream, keep-alive",
    "socket/handwritten-fresh": "hand-written, loopback upstream, new connection per call",
    "socket/kervanc": "kervanc, loopback upstream (its transport: pooled keep-alive connections, net/pool.ts)",
    "socket/kervanc-unpooled": "kervanc, loopback upstream, pooling off (new pinned connection per call)",
    "socket/handwritten-named": "hand-written, loopback upstream by host name (localhost), keep-alive",
    "socket/kervanc-named": "kervanc, loopback upstream by host name (localhost; DNS asked per new connection)",
  };
  const rows = Object.entries(labels).map(([name, label]) => {
    const s = sum(name);
    const c = cpuSum(name);
    const stub = name.startsWith("stub/");
    // Beside the keep-alive rows (the pooled ones), the same comparison over loopback; a fresh connection per
    // call is another kind of row.
    const keptAlive = !stub && !name.endsWith("-fresh") && !name.endsWith("-unpooled") && !name.endsWith("-named");
    const vsSafe = stub
      ? `${ratio(s.median, safeBase)} (CPU ${ratio(c.median, safeCpuBase)})`
      : keptAlive
        ? `${ratio(s.median, socketSafeBase)} (CPU ${ratio(c.median, socketSafeCpuBase)}); paired ${formatPaired(pairedRatio(result.samples[name] ?? [], result.samples["socket/handwritten-safe"] ?? []))}`
        : "";
    const base = stub ? "stub/handwritten" : "socket/handwritten";
    return [
      label,
      formatNumber(s.median),
      formatNumber(s.p90),
      formatNumber(s.min),
      ratio(s.median, stub ? stubBase : socketBase),
      formatPaired(pairedRatio(result.samples[name] ?? [], result.samples[base] ?? [])),
      formatNumber(c.median),
      ratio(c.median, stub ? stubCpuBase : socketCpuBase),
      vsSafe,
    ];
  });
  table(
    `Per-call cost in process (µs per call; ${PLAN.percall.rounds} batches of ${PLAN.percall.stubCalls} stub / ${PLAN.percall.socketCalls} loopback calls each, interleaved)`,
    [
      "variant",
      "wall median",
      "p90",
      "min",
      "vs hand-written",
      "paired vs hand-written (p25-p75)",
      "CPU median",
      "CPU vs hand-written",
      "vs hand-written, same safety work",
    ],
    rows,
    "Stub: the upstream answers at once without a socket; the tool sends a bearer token, so redaction does real work. Ratios compare against the hand-written row of the same kind; the last column against tool-safe.ts (one deadline, byte cap, the body redacted before selecting, output cap and schema check, written by hand) of the same kind; over loopback it sends no token (nor does kervanc's loopback tool), so nothing is redacted there. CPU: user + system time of the measuring process per call (for loopback rows it leaves out the upstream, another process).",
  );
  const k = sum("stub/kervanc").median;
  const kc = cpuSum("stub/kervanc").median;
  const stubPaired = pairedRatio(result.samples["stub/kervanc"]!, result.samples["stub/handwritten"]!);
  const safePaired = pairedRatio(result.samples["stub/kervanc"]!, result.samples["stub/handwritten-safe"]!);
  targets.push({
    name: "Per-call overhead in process (stub upstream) vs hand-written",
    measured: `${formatNumber(k)} µs vs ${formatNumber(stubBase)} µs = ${ratio(k, stubBase)}; paired ${formatPaired(stubPaired)}`,
    cpu: `${formatNumber(kc)} vs ${formatNumber(stubCpuBase)} µs = ${ratio(kc, stubCpuBase)}`,
    goal: "<= 1.2x",
    met: stubPaired.median <= 1.2,
  });
  const ks = sum("socket/kervanc").median;
  const ksc = cpuSum("socket/kervanc").median;
  const ksPaired = pairedRatio(result.samples["socket/kervanc"]!, result.samples["socket/handwritten"]!);
  const kscPaired = pairedRatio(result.cpu["socket/kervanc"]!, result.cpu["socket/handwritten"]!);
  targets.push({
    name: "Per call over loopback (pooled) vs hand-written keep-alive client",
    measured: `${formatNumber(ks)} µs vs ${formatNumber(socketBase)} µs = ${ratio(ks, socketBase)}; paired ${formatPaired(ksPaired)}`,
    cpu: `${formatNumber(ksc)} vs ${formatNumber(socketCpuBase)} µs = ${ratio(ksc, socketCpuBase)}; paired ${formatPaired(kscPaired)}`,
    goal: "<= 1.2x",
    met: ksPaired.median <= 1.2,
  });
  targets.push({
    name: "Per-call overhead in process (stub upstream) vs hand-written doing the same safety work",
    measured: `${formatNumber(k)} µs vs ${formatNumber(safeBase)} µs = ${ratio(k, safeBase)}; paired ${formatPaired(safePaired)}`,
    cpu: `${formatNumber(kc)} vs ${formatNumber(safeCpuBase)} µs = ${ratio(kc, safeCpuBase)}`,
    goal: "<= 1.5x",
    met: safePaired.median <= 1.5,
  });
}

async function sectionStdioCalls(w: Work): Promise<void> {
  interface Live {
    readonly subject: Subject;
    readonly session: StdioSession;
    readonly tool: string;
    readonly args: Record<string, unknown>;
    readonly ok: (answer: Parameters<typeof callFailure>[0]) => string | null;
    readonly latencies: number[];
    /** Server CPU ms spent in the recorded calls. */
    cpu: number;
  }
  const modernOk = (answer: Parameters<typeof callFailure>[0]): string | null => callFailure(answer);
  const peerOk = (answer: Parameters<typeof callFailure>[0]): string | null => {
    const text = (answer.result?.["content"] as { text?: string }[] | undefined)?.[0]?.text ?? "";
    return answer.error ? answer.error.message : peerCallSucceeded(text) ? null : text.slice(0, 200);
  };
  const subjects: { subject: Subject; ok: Live["ok"]; args: Record<string, unknown> }[] = [
    { subject: handwrittenStdio(w), ok: modernOk, args: PRIMARY_ARGS },
    { subject: kervancStdio(w, SMALLEST), ok: modernOk, args: PRIMARY_ARGS },
    { subject: kervancStdio(w, LARGEST), ok: modernOk, args: PRIMARY_ARGS },
    { subject: interpretedStdio(w, SMALLEST), ok: modernOk, args: PRIMARY_ARGS },
  ];
  const peer = peerStdio(w, SMALLEST);
  if (peer) subjects.push({ subject: peer, ok: peerOk, args: peerArgs(benchTools(1)[0]!) });
  const live: Live[] = [];
  try {
    for (const s of subjects) {
      const session = spawnSession(s.subject.command, s.subject.era);
      track(session.child);
      if (s.subject.era === "legacy") await initializeLegacy(session);
      live.push({ subject: s.subject, session, tool: PRIMARY_TOOL, args: s.args, ok: s.ok, latencies: [], cpu: 0 });
    }
    const call = async (l: Live, record: boolean): Promise<void> => {
      const t0 = performance.now();
      const answer = await l.session.request("tools/call", { name: l.tool, arguments: l.args });
      const ms = performance.now() - t0;
      const failure = l.ok(answer);
      if (failure !== null)
        throw new Error(`${l.subject.label}: a call failed: ${failure}\n${l.session.stderr().slice(-2000)}`);
      if (record) l.latencies.push(ms);
    };
    log("per-call latency over stdio");
    for (const l of live) for (let i = 0; i < PLAN.stdio.warmup; i++) await call(l, false);
    for (let round = 0; round < PLAN.stdio.rounds; round++) {
      for (let i = 0; i < live.length; i++) {
        const l = live[(i + round) % live.length]!;
        const cpu0 = cpuMs(l.session.child.pid!);
        for (let c = 0; c < PLAN.stdio.calls; c++) await call(l, true);
        l.cpu += cpuMs(l.session.child.pid!) - cpu0;
      }
    }
  } finally {
    for (const l of live) await l.session.close();
  }
  const base = summarize(live[0]!.latencies).median;
  const cpuPerCall = (l: Live): number => (l.cpu * 1000) / l.latencies.length;
  const rows = live.map((l) => {
    const s = summarize(l.latencies);
    return [
      l.subject.label,
      l.subject.era === "legacy" ? "2025-11-25 session" : "2026-07-28",
      formatNumber(s.median, 3),
      formatNumber(s.p90, 3),
      formatNumber(s.min, 3),
      ratio(s.median, base),
      formatNumber(cpuPerCall(l), 0),
      ratio(cpuPerCall(l), cpuPerCall(live[0]!)),
    ];
  });
  if (!peer) rows.push(["peer", "", "n/a", "", "", "", "", w.peerProblem ?? ""]);
  samples["stdioCalls"] = Object.fromEntries(live.map((l) => [l.subject.label, summarize(l.latencies)]));
  table(
    `Per-call latency over stdio, one call at a time, loopback upstream (ms; ${PLAN.stdio.rounds} rounds of ${PLAN.stdio.calls} calls, interleaved)`,
    ["server", "protocol", "median", "p90", "min", "vs hand-written", "server CPU µs/call", "CPU vs hand-written"],
    rows,
  );
}

interface HttpSubject {
  readonly label: string;
  readonly start: () => Promise<{ child: ChildProcess; url: string }>;
  readonly target: (url: string) => Promise<LoadTarget>;
  readonly mix: readonly LoadCall[];
  /** Calls per window: the compared servers get the full load, the others a lighter one. */
  readonly windowCalls: number;
}

async function sectionHttp(w: Work): Promise<void> {
  const KERVANC_URL = / on (http:\/\/\S+\/mcp)\n/;
  const primary: LoadCall[] = [{ tool: PRIMARY_TOOL, args: PRIMARY_ARGS }];
  // On the largest server, spread calls over every tool of the primary shape: the same work per call, with the
  // dispatch over all tools and per-tool state in play.
  const largestMix: LoadCall[] = benchTools(LARGEST)
    .filter((t) => t.kind === "get")
    .map((t) => ({ tool: t.name, args: t.args }));
  const full = PLAN.http.window;
  const minor = PLAN.http.minorWindow;
  const subjects: HttpSubject[] = [
    {
      label: "hand-written, keep-alive upstream",
      start: () =>
        startHttp(NODE, [w.baselines.handwritten, "--http", "--port", "0", "--upstream", w.origin], {
          urlPattern: KERVANC_URL,
        }),
      target: async (url) => modernTarget(url),
      mix: primary,
      windowCalls: full,
    },
    {
      label: `kervanc, ${SMALLEST} tool`,
      start: () =>
        startHttp(
          NODE,
          [join(w.packages.get(SMALLEST)!, "server.mjs"), "--http", "--port", "0", "--allow-private-network"],
          { urlPattern: KERVANC_URL },
        ),
      target: async (url) => modernTarget(url),
      mix: primary,
      windowCalls: full,
    },
    {
      label: `kervanc, ${LARGEST} tools`,
      start: () =>
        startHttp(
          NODE,
          [join(w.packages.get(LARGEST)!, "server.mjs"), "--http", "--port", "0", "--allow-private-network"],
          { urlPattern: KERVANC_URL },
        ),
      target: async (url) => modernTarget(url),
      mix: largestMix,
      windowCalls: full,
    },
    {
      // zod compiles its parsers with `new Function` unless it cannot; a generated server must generate no code
      // at run time, so its zod runs jitless. This is the hand-written server held to the same rule.
      label: "hand-written, keep-alive upstream, no code generation (--disallow-code-generation-from-strings)",
      start: () =>
        startHttp(
          NODE,
          [
            "--disallow-code-generation-from-strings",
            w.baselines.handwritten,
            "--http",
            "--port",
            "0",
            "--upstream",
            w.origin,
          ],
          { urlPattern: KERVANC_URL },
        ),
      target: async (url) => modernTarget(url),
      mix: primary,
      windowCalls: minor,
    },
    {
      label: "hand-written, new upstream connection per call",
      start: () =>
        startHttp(
          NODE,
          [w.baselines.handwritten, "--http", "--port", "0", "--upstream", w.origin, "--fresh-connections"],
          { urlPattern: KERVANC_URL },
        ),
      target: async (url) => modernTarget(url),
      mix: primary,
      windowCalls: minor,
    },
    {
      label: `interpreted, ${SMALLEST} tool`,
      start: () =>
        startHttp(
          NODE,
          [w.baselines.interpreted, w.specs.get(SMALLEST)!, "--http", "--port", "0", "--allow-private-network"],
          { urlPattern: KERVANC_URL },
        ),
      target: async (url) => modernTarget(url),
      mix: primary,
      windowCalls: minor,
    },
  ];
  if (w.peer) {
    const project = w.peer.http;
    const tool = benchTools(1)[0]!;
    subjects.push({
      label: "peer, 1 tool (2025-11-25 session)",
      start: async () => {
        const port = await freePort();
        return startHttp(NODE, [project.entry, "--transport=streamable-http"], {
          cwd: project.dir,
          env: { API_BASE_URL: w.origin, PORT: String(port) },
          urlPattern: /Server running at (http:\/\/\S+)/,
          fixedUrl: `http://127.0.0.1:${port}/mcp`,
        });
      },
      target: (url) => legacySessionTarget(url, peerCallSucceeded),
      mix: [{ tool: tool.name, args: peerArgs(tool) }],
      windowCalls: minor,
    });
  }

  interface Running {
    readonly subject: HttpSubject;
    readonly child: ChildProcess;
    readonly target: LoadTarget;
    readonly rates: number[];
    /** Server CPU µs per call, per window. */
    readonly cpu: number[];
    readonly p50: number[];
    readonly p99: number[];
    calls: number;
    errors: number;
    firstError: string | null;
    rssIdle: number;
    rssAfter: number;
    /** RSS (KiB) after the warm-up and after each of this server's windows: flat, or growing with the calls. */
    readonly rssWindows: number[];
  }
  const running: Running[] = [];
  try {
    for (const subject of subjects) {
      const { child, url } = await subject.start();
      running.push({
        subject,
        child,
        target: await subject.target(url),
        rates: [],
        cpu: [],
        p50: [],
        p99: [],
        calls: 0,
        errors: 0,
        firstError: null,
        rssIdle: rssKiB(child.pid!),
        rssAfter: Number.NaN,
        rssWindows: [],
      });
    }
    const load = async (r: Running, calls: number, record: boolean): Promise<void> => {
      const cpu0 = cpuMs(r.child.pid!);
      const result = await runLoad(r.target, { connections: PLAN.http.connections, calls, mix: r.subject.mix });
      const cpuUsed = cpuMs(r.child.pid!) - cpu0;
      r.calls += result.calls;
      r.errors += result.errors;
      r.firstError ??= result.firstError;
      r.rssWindows.push(rssKiB(r.child.pid!));
      if (record) {
        r.rates.push(result.perSecond);
        r.cpu.push((cpuUsed * 1000) / result.calls);
        r.p50.push(sortedPercentile(result.latencies, 50));
        r.p99.push(sortedPercentile(result.latencies, 99));
      }
    };
    log("HTTP: warm-up");
    for (const r of running) await load(r, PLAN.http.warmup, false);
    for (let round = 0; round < PLAN.http.windows; round++) {
      log(`HTTP: window ${round + 1}/${PLAN.http.windows}`);
      for (let i = 0; i < running.length; i++) {
        const r = running[(i + round) % running.length]!;
        await load(r, r.subject.windowCalls, true);
      }
    }
  } finally {
    for (const r of running) {
      r.rssAfter = rssKiB(r.child.pid!);
      r.child.kill("SIGKILL");
    }
  }
  const base = summarize(running[0]!.rates).median;
  const cpuBase = summarize(running[0]!.cpu).median;
  const rows = running.map((r) => {
    const s = summarize(r.rates);
    const c = summarize(r.cpu).median;
    return [
      r.subject.label,
      formatNumber(s.median, 0),
      formatNumber(s.min, 0),
      formatNumber(s.max, 0),
      ratio(s.median, base),
      `${formatNumber(summarize(r.p50).median)} / ${formatNumber(summarize(r.p99).median)}`,
      formatNumber(c, 0),
      ratio(c, cpuBase),
      r.errors === 0 ? "0" : `${r.errors} (${(r.firstError ?? "").slice(0, 80)})`,
      `${formatNumber(r.rssIdle / 1024)} → ${formatNumber(r.rssAfter / 1024)} MiB after ${r.calls.toLocaleString("en-US")}`,
    ];
  });
  if (!w.peer) rows.push(["peer", "n/a", "", "", "", "", "", "", "", w.peerProblem ?? ""]);
  samples["http"] = Object.fromEntries(
    running.map((r) => [
      r.subject.label,
      {
        rates: r.rates,
        cpuMicrosPerCall: r.cpu,
        p50: r.p50,
        p99: r.p99,
        calls: r.calls,
        errors: r.errors,
        rssIdleKiB: r.rssIdle,
        rssAfterKiB: r.rssAfter,
        rssWindowsKiB: r.rssWindows,
      },
    ]),
  );
  table(
    `Streamable HTTP: ${PLAN.http.connections} connections, loopback upstream (calls/s per window of ${full.toLocaleString("en-US")} calls (${minor.toLocaleString("en-US")} for the lighter rows), ${PLAN.http.windows} windows, interleaved)`,
    [
      "server",
      "calls/s median",
      "min",
      "max",
      "vs hand-written",
      "latency p50 / p99 ms",
      "server CPU µs/call",
      "CPU vs hand-written",
      "errors",
      "RSS idle → after the load",
    ],
    rows,
    "The load generator binds each connection to its own loopback source address (see loadgen.ts), so kervanc's per-address limit of 300 requests a minute does not refuse the load. Server CPU: CPU time of the server process (all threads, /proc schedstat) over a window, divided by its calls.",
  );
  table(
    "RSS of each server over the Streamable HTTP load (MiB: idle, after the warm-up, after each of its windows)",
    [
      "server",
      "idle",
      "after warm-up",
      ...Array.from({ length: PLAN.http.windows }, (_, i) => `window ${i + 1}`),
      "calls in all",
    ],
    running.map((r) => [
      r.subject.label,
      formatNumber(r.rssIdle / 1024),
      ...r.rssWindows.map((kib) => formatNumber(kib / 1024)),
      r.calls.toLocaleString("en-US"),
    ]),
    "Read from /proc/<pid>/status (VmRSS) right after the server's own warm-up and each of its windows. Flat after the warm-up means no per-call growth: kervanc keeps at most 128 idle upstream connections per destination and 256 in all (net/pool.ts).",
  );
  const k = summarize(running[1]!.rates).median;
  const kc = summarize(running[1]!.cpu).median;
  const kPaired = pairedRatio(running[1]!.rates, running[0]!.rates);
  targets.push({
    name: "Streamable HTTP throughput vs hand-written (1 tool)",
    measured: `${formatNumber(k, 0)} vs ${formatNumber(base, 0)} calls/s = ${ratio(k, base)}; paired ${formatPaired(kPaired)}`,
    cpu: `${formatNumber(kc, 0)} vs ${formatNumber(cpuBase, 0)} µs/call: ${ratio(cpuBase, kc)} of the capacity`,
    goal: ">= 0.95x",
    met: kPaired.median >= 0.95,
  });
  const strict = running.find((r) =>
    r.subject.label.startsWith("hand-written, keep-alive upstream, no code generation"),
  );
  if (strict !== undefined) {
    const sb = summarize(strict.rates).median;
    const sc = summarize(strict.cpu).median;
    const strictPaired = pairedRatio(running[1]!.rates, strict.rates);
    targets.push({
      name: "Streamable HTTP throughput vs hand-written generating no code either (1 tool)",
      measured: `${formatNumber(k, 0)} vs ${formatNumber(sb, 0)} calls/s = ${ratio(k, sb)}; paired ${formatPaired(strictPaired)}`,
      cpu: `${formatNumber(kc, 0)} vs ${formatNumber(sc, 0)} µs/call: ${ratio(sc, kc)} of the capacity`,
      goal: ">= 0.95x",
      met: strictPaired.median >= 0.95,
    });
  }
}

async function sectionBuild(w: Work): Promise<void> {
  const out = join(w.dir, "build-out");
  const largestSpec = w.specs.get(LARGEST)!;
  const rows: string[][] = [];
  const runs = new Map<string, number[]>();
  const record = (label: string, ms: number): void =>
    void (runs.get(label) ?? runs.set(label, []).get(label)!).push(ms);
  const labels = {
    largest: `kervanc build, ${LARGEST}-tool spec`,
    multi: `kervanc build, ${PLAN.multi.specs} specs of ${PLAN.multi.tools} tools`,
    unchangedMulti: `kervanc build, unchanged rebuild of the ${PLAN.multi.specs} specs`,
    peer: `peer: generate + tsc, ${LARGEST}-tool OpenAPI document`,
  };
  for (let run = 0; run < PLAN.buildRuns; run++) {
    log(`build, round ${run + 1}/${PLAN.buildRuns}`);
    const a = join(out, `a-${run}`);
    const b = join(out, `b-${run}`);
    record(labels.largest, await kervanc(["build", largestSpec, "-o", a]));
    record(labels.multi, await kervanc(["build", w.multiDir, "-o", b]));
    record(labels.unchangedMulti, await kervanc(["build", w.multiDir, "-o", b]));
    if (w.peer && run < PLAN.peerBuildRuns) {
      const { generateMs, compileMs } = await buildPeerOnce(w.peer, LARGEST);
      record(labels.peer, generateMs + compileMs);
    }
    await rm(a, { recursive: true, force: true });
    await rm(b, { recursive: true, force: true });
  }
  for (const [label, ms] of runs) {
    const s = summarize(ms.map((v) => v / 1000));
    rows.push([label, formatNumber(s.median, 2), formatNumber(s.p90, 2), formatNumber(s.min, 2)]);
  }
  if (!w.peer) rows.push(["peer", "n/a", "", w.peerProblem ?? ""]);
  samples["build"] = Object.fromEntries(runs);
  table(
    `Build time: the command as a process, from spawn to exit (s; ${PLAN.buildRuns} runs, ${PLAN.peerBuildRuns} for the peer)`,
    ["build", "median", "p90", "min"],
    rows,
    "An unchanged rebuild runs the same command again on the same output folder.",
  );
  const largest = summarize(runs.get(labels.largest)!).median / 1000;
  targets.push({
    name: `Build time, ${LARGEST}-tool spec`,
    measured: `${formatNumber(largest, 2)} s`,
    cpu: "",
    goal: "<= 3 s",
    met: largest <= 3,
  });
}

// ---------------------------------------------------------------------------------------------------------

const SECTIONS: Readonly<Record<string, (w: Work) => Promise<void>>> = {
  size: sectionSizes,
  cold: sectionColdStart,
  percall: sectionPercall,
  stdio: sectionStdioCalls,
  http: sectionHttp,
  build: sectionBuild,
};

async function main(): Promise<void> {
  const started = performance.now();
  const cpuModel =
    /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model ?? "unknown";
  const npmVersion = (await execFileAsync("npm", ["--version"]).catch(() => ({ stdout: "unknown" }))).stdout.trim();
  const version = (pkg: string): string =>
    (JSON.parse(readFileSync(join(REPO, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
  const chosen = flags.only === undefined ? Object.keys(SECTIONS) : flags.only.split(",").map((name) => name.trim());
  const unknown = chosen.filter((name) => !Object.hasOwn(SECTIONS, name));
  if (unknown.length > 0 || chosen.length === 0)
    throw new Error(`--only takes sections from ${Object.keys(SECTIONS).join(", ")}; got "${flags.only}".`);
  log(
    `mode: ${SMOKE ? "smoke" : "full"}${flags.only === undefined ? "" : ` (only ${chosen.join(", ")})`}; servers run on ${NODE}`,
  );
  const upstream = await startUpstream(NODE);
  const w = await prepare(upstream.origin);
  try {
    report.push(
      `## kervanc benchmarks (${SMOKE ? "smoke: one iteration, tiny sizes; the figures mean nothing" : "full"})`,
      "",
      `- Machine: ${cpuModel}, ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
      `- Node (servers under test): ${await nodeVersion(NODE)} (${NODE}); bench process: ${process.version}; npm ${npmVersion}`,
      `- kervanc ${version("kervanc")}, @modelcontextprotocol/server ${version("@modelcontextprotocol/server")}, esbuild ${version("esbuild")}`,
      `- Peer: ${
        w.peer
          ? Object.entries(w.peer.versions)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")
          : `${PEER_PACKAGE}@${PEER_VERSION}: ${w.peerProblem}`
      }`,
      "",
    );
    for (const name of chosen) await SECTIONS[name]!(w);
    table(
      "Targets",
      [
        "target",
        "measured (wall clock, same run; judged on the paired ratio where given)",
        "goal",
        "met",
        "CPU-time view",
      ],
      targets.map((t) => [t.name, t.measured, t.goal, t.met === null ? "n/a" : t.met ? "yes" : "**no**", t.cpu]),
      "Paired: the median of the ratios of each interleaved round (each load window for HTTP), with the middle half of them (p25-p75). Noise that hits both servers of one round cancels out of its ratio, so on a shared machine it is steadier than the ratio of the two medians beside it.",
    );
    report.push(`Total bench time: ${formatNumber((performance.now() - started) / 1000, 0)} s.`);
    process.stdout.write(`${report.join("\n")}\n`);
    if (flags.json)
      await writeFile(flags.json, `${JSON.stringify({ smoke: SMOKE, node: NODE, samples, targets }, null, 2)}\n`);
  } finally {
    killAll();
    if (!flags.keep) await rm(w.dir, { recursive: true, force: true });
    else log(`work folder kept: ${w.dir}`);
  }
}

await main();
// The upstream and any server still running are killed on exit.
process.exit(0);
