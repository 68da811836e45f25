/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance, exact-pinned) against a generated
 * server over Streamable HTTP, once per requirement set: `--requirements 2026-07-28` (the stateless revision)
 * and `--requirements 2025-11-25` (the initialize handshake). The server is built from
 * fixtures/conformance/conformance.yaml, with every tool pointed at an upstream this test runs on 127.0.0.1.
 *
 * The runner itself enforces fixtures/conformance/expected-failures.yaml for the scenarios a revision scores
 * (exit 0 only when every failure is listed and no listed entry passes). It ignores the baseline for the
 * scenarios it runs without scoring (tasks, pending ones), so this test reads the runner's per-check results
 * and applies the same rules to every scenario, scored or not, and also checks that each entry still fails in
 * at least one of the two runs: a list that quietly outlives its reasons would hide regressions.
 */
import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, FIXTURES, pointSpecAt, REPO, removeDir } from "../helpers/kervanc.ts";
import { packageBin, runNode22, type RunResult } from "../helpers/node22.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const REQUIREMENT_SETS = ["2026-07-28", "2025-11-25"] as const;
type RequirementSet = (typeof REQUIREMENT_SETS)[number];

const SPEC = join(FIXTURES, "conformance", "conformance.yaml");
const EXPECTED_FAILURES = join(FIXTURES, "conformance", "expected-failures.yaml");
const RUNNER_PACKAGE = join(REPO, "node_modules", "@modelcontextprotocol", "conformance");
const RUNNER = packageBin("@modelcontextprotocol/conformance", "conformance");

/** The text the tools-call-simple-text scenario names; the upstream serves it and raw output passes it through. */
const SIMPLE_TEXT = "This is a simple text response for testing.";

type Status = "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
interface Check {
  readonly id: string;
  readonly status: Status;
  readonly errorMessage?: string;
  readonly details?: Record<string, unknown>;
}

interface Run {
  readonly runner: RunResult;
  /** Scenario name → its checks, as the runner saved them. */
  readonly results: ReadonlyMap<string, readonly Check[]>;
}

/** Reads `<dir>/server-<scenario>-<timestamp>/checks.json` for every scenario the runner ran. */
function readResults(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!match) continue;
    results.set(match[1]!, JSON.parse(readFileSync(join(dir, entry, "checks.json"), "utf8")) as Check[]);
  }
  return results;
}

/** The scenarios a requirement set runs against a server: the scored ones and those run without a score. */
function requiredScenarios(set: RequirementSet): string[] {
  const requirements = parse(readFileSync(join(RUNNER_PACKAGE, "requirements", `${set}.yaml`), "utf8")) as {
    server: string[];
    not_scored?: { scenario: string; leg: string }[];
  };
  return [
    ...requirements.server,
    ...(requirements.not_scored ?? []).filter((n) => n.leg === "server").map((n) => n.scenario),
  ];
}

const failing = (status: Status): boolean => status === "FAILURE" || status === "WARNING";
const SEVERITY: Record<Status, number> = { FAILURE: 3, WARNING: 2, SUCCESS: 1, SKIPPED: 0, INFO: 0 };

/** One verdict per check id, the most severe occurrence winning (as the runner collapses repeated ids). */
function collapse(checks: readonly Check[]): Map<string, Status> {
  const verdicts = new Map<string, Status>();
  for (const check of checks) {
    const seen = verdicts.get(check.id);
    if (seen === undefined || SEVERITY[check.status] > SEVERITY[seen]) verdicts.set(check.id, check.status);
  }
  return verdicts;
}

interface Verdict {
  /** Failing checks (`scenario:check`) that no entry covers. */
  readonly unexpected: string[];
  /** Entries that passed in this run: the runner calls these stale. */
  readonly stale: string[];
  /** Entries that covered a failure in this run. */
  readonly matched: Set<string>;
}

/** The runner's baseline rules (whole-scenario and `scenario:check` entries), applied to every scenario run. */
function judge(results: ReadonlyMap<string, readonly Check[]>, entries: readonly string[]): Verdict {
  const whole = new Set(entries.filter((e) => !e.includes(":")));
  const perCheck = new Map<string, Set<string>>();
  for (const entry of entries.filter((e) => e.includes(":"))) {
    const [scenario, check] = [entry.slice(0, entry.indexOf(":")), entry.slice(entry.indexOf(":") + 1)];
    perCheck.set(scenario, (perCheck.get(scenario) ?? new Set()).add(check));
  }
  const verdict: Verdict = { unexpected: [], stale: [], matched: new Set() };
  for (const [scenario, checks] of results) {
    const verdicts = collapse(checks);
    if (whole.has(scenario)) {
      if ([...verdicts.values()].some(failing)) verdict.matched.add(scenario);
      else verdict.stale.push(scenario);
      continue;
    }
    const listed = perCheck.get(scenario) ?? new Set<string>();
    for (const [id, status] of verdicts) {
      if (!failing(status)) continue;
      if (listed.has(id)) verdict.matched.add(`${scenario}:${id}`);
      else verdict.unexpected.push(`${scenario}:${id}`);
    }
    for (const id of listed) if (verdicts.get(id) === "SUCCESS") verdict.stale.push(`${scenario}:${id}`);
  }
  return verdict;
}

let upstream: Upstream;
let root: string;
let serverPath: string;
const runs = new Map<RequirementSet, Run>();
let entries: string[];

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    if (req.path === "/simple-text") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      res.end(SIMPLE_TEXT);
    } else if (req.path === "/error") {
      json(res, 500, { error: "this upstream always fails" });
    } else if (req.path === "/contact" && req.method === "POST") {
      json(res, 200, JSON.parse(req.body) as unknown);
    } else {
      json(res, 404, { error: "no such route" });
    }
  });
  ({ root, serverPath } = await buildOneSpec(
    "conformance",
    "conformance.yaml",
    pointSpecAt(await readFile(SPEC, "utf8"), upstream.origin),
  ));
  entries = ((parse(await readFile(EXPECTED_FAILURES, "utf8")) as { server: string[] }).server ?? []).map(String);

  // One server process per requirement set: the HTTP server allows 300 requests a minute per client address,
  // and the two runs together come close to that from the same address (127.0.0.1) within seconds.
  for (const set of REQUIREMENT_SETS) {
    let server: ChildProcess | undefined;
    try {
      const started = await startHttpServer(serverPath, ["--allow-private-network"]);
      server = started.child;
      const out = join(root, `results-${set}`);
      const runner = await runNode22(
        [
          RUNNER,
          "server",
          "--url",
          started.url,
          "--requirements",
          set,
          "--expected-failures",
          EXPECTED_FAILURES,
          "-o",
          out,
        ],
        { env: { PATH: process.env["PATH"] ?? "", HOME: root }, timeoutMs: 150_000 },
      );
      runs.set(set, { runner, results: readResults(out) });
    } finally {
      server?.kill("SIGKILL");
    }
  }
}, 360_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

describe.each(REQUIREMENT_SETS)("conformance --requirements %s", (set) => {
  const run = (): Run => {
    const r = runs.get(set);
    if (!r) throw new Error(`the ${set} run did not happen`);
    return r;
  };

  it("runs every server scenario of the requirement set", () => {
    expect([...run().results.keys()].sort()).toEqual(requiredScenarios(set).sort());
  });

  it("passes the runner's baseline check (exit 0)", () => {
    const { runner } = run();
    expect(runner.code, `${runner.stdout.slice(-4000)}\n${runner.stderr}`).toBe(0);
    expect(runner.stdout).toContain("Baseline check passed: all failures are expected.");
  });

  it("fails nothing unlisted and passes nothing listed, scored or not", () => {
    const verdict = judge(run().results, entries);
    expect(verdict.unexpected).toEqual([]);
    expect(verdict.stale).toEqual([]);
  });

  it("calls the tools through to the upstream", () => {
    const results = run().results;
    const result = (scenario: string, id: string): unknown =>
      results.get(scenario)?.find((c) => c.id === id)?.details?.["result"];
    expect(result("tools-call-simple-text", "tools-call-simple-text")).toMatchObject({
      content: [{ type: "text", text: SIMPLE_TEXT }],
    });
    expect(result("tools-call-error", "tools-call-error")).toMatchObject({
      content: [{ type: "text", text: "Upstream returned 500 Internal Server Error." }],
      isError: true,
    });
  });
});

it("lists only entries that still fail in some run", () => {
  const matched = new Set<string>();
  for (const run of runs.values()) for (const entry of judge(run.results, entries).matched) matched.add(entry);
  expect(runs.size).toBe(REQUIREMENT_SETS.length);
  expect(entries.filter((entry) => !matched.has(entry))).toEqual([]);
});
