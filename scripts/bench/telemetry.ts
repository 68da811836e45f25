/**
 * What OpenTelemetry costs a call (docs/runtime.md, "Telemetry"): the 1-tool bench server, built once, run twice
 * over stdio against the bench upstream: without telemetry, and with `--otel-endpoint` to an OTLP receiver in this
 * process (which answers at once and counts what it gets), every trace sampled. One call at a time, interleaved
 * rounds; per-call latency and the server's CPU per call, medians and the paired ratio (median of the per-round
 * ratios, p25-p75). The cold-start cost with telemetry off is `npm run bench:startup-ab`.
 *
 *   node --import tsx scripts/bench/telemetry.ts [--rounds 11] [--calls 200] [--node PATH]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { generateSpec, PRIMARY_ARGS, PRIMARY_TOOL } from "./gen-specs.ts";
import { killAll, startUpstream, track } from "./processes.ts";
import { formatNumber, formatPaired, pairedRatio, summarize } from "./stats.ts";
import { callFailure, cpuMs, spawnSession, type StdioSession } from "./stdio.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "11" },
    calls: { type: "string", default: "200" },
    node: { type: "string", default: process.execPath },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);

let spans = 0;
let exports = 0;
const receiver = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => (body += c.toString("utf8")));
  req.on("end", () => {
    exports++;
    if (req.url === "/v1/traces") spans += body.split('"spanId"').length - 1;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
const collector = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const work = mkdtempSync(join(tmpdir(), "kervanc-bench-telemetry-"));
try {
  const upstream = await startUpstream(values.node);
  writeFileSync(join(work, "bench.yaml"), generateSpec(1, upstream.origin));
  execFileSync(
    process.execPath,
    [join(REPO, "packages/compiler/bin/kervanc.js"), "build", join(work, "bench.yaml"), "-o", join(work, "out")],
    {
      stdio: "ignore",
    },
  );
  const server = join(work, "out", "bench", "server.mjs");
  const start = (extra: string[]): StdioSession => {
    const session = spawnSession(
      {
        command: values.node,
        args: ["--disallow-code-generation-from-strings", server, "--allow-private-network", ...extra],
        env: { OTEL_BSP_SCHEDULE_DELAY: "1000" },
      },
      "modern",
    );
    track(session.child);
    return session;
  };
  const subjects = [
    { label: "telemetry off", session: start([]), latencies: [] as number[], cpu: [] as number[] },
    {
      label: "telemetry on (every trace sampled)",
      session: start(["--otel-endpoint", collector]),
      latencies: [] as number[],
      cpu: [] as number[],
    },
  ];
  const call = async (session: StdioSession): Promise<number> => {
    const t0 = performance.now();
    const answer = await session.request("tools/call", { name: PRIMARY_TOOL, arguments: PRIMARY_ARGS });
    const ms = performance.now() - t0;
    const failure = callFailure(answer);
    if (failure !== null) throw new Error(`a call failed: ${failure}\n${session.stderr().slice(-1000)}`);
    return ms;
  };
  for (const s of subjects) for (let i = 0; i < 200; i++) await call(s.session);
  const roundMedians = subjects.map(() => [] as number[]);
  const roundCpu = subjects.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < subjects.length; k++) {
      const i = (k + round) % subjects.length;
      const s = subjects[i]!;
      const cpu0 = cpuMs(s.session.child.pid!);
      const batch: number[] = [];
      for (let c = 0; c < calls; c++) batch.push(await call(s.session));
      const cpu = ((cpuMs(s.session.child.pid!) - cpu0) * 1000) / calls;
      s.latencies.push(...batch);
      s.cpu.push(cpu);
      roundMedians[i]!.push(summarize(batch).median);
      roundCpu[i]!.push(cpu);
    }
  }
  for (const s of subjects) await s.session.close();
  upstream.child.kill();
  console.log(
    `1-tool bench server over stdio, Node ${execFileSync(values.node, ["--version"]).toString().trim()}; ${rounds} rounds of ${calls} calls each, interleaved\n`,
  );
  console.log(
    "| server | latency per call, median µs | p90 µs | server CPU per call, median µs | vs off, latency (paired) | vs off, CPU (paired) |",
  );
  console.log("| --- | ---: | ---: | ---: | --- | --- |");
  subjects.forEach((s, i) => {
    const latency = summarize(s.latencies);
    console.log(
      `| ${s.label} | ${formatNumber(latency.median * 1000)} | ${formatNumber(latency.p90 * 1000)} | ${formatNumber(summarize(s.cpu).median)} | ${formatPaired(pairedRatio(roundMedians[i]!, roundMedians[0]!))} | ${formatPaired(pairedRatio(roundCpu[i]!, roundCpu[0]!))} |`,
    );
  });
  console.log(
    `\nThe receiver got ${exports} exports holding ${spans} spans (two per call: the call and its upstream attempt).`,
  );
} finally {
  killAll();
  receiver.close();
  rmSync(work, { recursive: true, force: true });
}
