/**
 * Does a schema's regular expression backtrack super-linearly? (KV5019)
 *
 * A generated server runs every `pattern` (and `patternProperties` key, and a format's regular expression) against
 * each argument a model sends, in V8's backtracking engine, on the thread that serves every other call: one string
 * crafted for a pattern like `^(\w+\s?)*$` keeps the server busy for minutes. Kervan accepts this as a risk
 * (kervan-spec-v1 §6); kervanc warns, so that the author sees it in the pull request that adds the pattern.
 *
 * The analysis is scslre's (the one behind eslint-plugin-regexp's `no-super-linear-backtracking`): static, so the
 * same pattern always gets the same answer, and it never runs the pattern. Its cost is not bounded, though: on a
 * pattern with dozens of quantifiers over Unicode property classes it takes seconds (`(\p{L}*){40}` inside a
 * group repeated with `+`, about 12 s), and a spec, or an OpenAPI document being imported, could hold hundreds of
 * those. So it runs in a worker thread that the build waits for synchronously, for at most `LIMITS.patternMs` per
 * pattern and `LIMITS.budgetMs` per spec; a pattern it does not finish is reported as not checked, and the worker
 * is replaced. Only such a pathological pattern can get a different answer on a slower machine.
 */
import { createRequire } from "node:module";
import type { Finding } from "../diagnostics/diagnostic.ts";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

/** What the analysis found for one regular expression. */
export type Backtracking =
  | { readonly kind: "linear" }
  /**
   * A repeated part that can match the same run of characters in exponentially many ways; `parts` is the source
   * of the repeated group, `character` one character of such a run, `fix` a rewrite that matches the same strings
   * without backtracking, when scslre has one.
   */
  | { readonly kind: "exponential"; readonly parts: string[]; readonly character: string; readonly fix: string | null }
  /** Two quantifiers (or one inside a bounded repeat) that trade a run of characters: O(n^2) or worse. */
  | { readonly kind: "polynomial"; readonly parts: string[]; readonly character: string; readonly fix: string | null }
  /** An unanchored quantifier tried again from every position of a string that does not match: O(n^2). */
  | { readonly kind: "moving"; readonly parts: string[]; readonly character: string }
  | { readonly kind: "unchecked"; readonly reason: string };

export const LIMITS = {
  /** The longest the build waits for one pattern's analysis (typical patterns take a few milliseconds). */
  patternMs: 1000,
  /** The longest one spec's patterns are analysed in all (a PatternBudget), past which they are not checked. */
  budgetMs: 10_000,
};
/** The first request also waits for the worker to start and load scslre (about 0.1 s): it gets this much more. */
const START_MS = 10_000;

/**
 * The worker's code (CommonJS, evaluated by `new Worker(..., { eval: true })`: the compiler is bundled into chunks
 * at pack time, and a separate worker file would have to be found next to whichever chunk this ends up in).
 * It answers each request with a `Backtracking`, then flips the shared flag the build is waiting on.
 */
const WORKER = `
"use strict";
const { workerData } = require("node:worker_threads");
const { analyse } = require(workerData.scslre);
const { port, flag } = workerData;
const MAX_REPORTS = 4;
const FIX_ROUNDS = 3; // fixes applied at most, one cause each
function describe(report) {
  if (report.type === "Move") return { kind: "moving", parts: [report.quant.raw], character: report.character.pick };
  const parts = report.type === "Self" ? [report.parentQuant.raw] : [report.startQuant.raw, report.endQuant.raw];
  const kind = report.exponential ? "exponential" : "polynomial";
  return { kind, parts, character: report.character.pick, fix: null };
}
/**
 * A rewrite that matches the same strings without any report, or null: scslre fixes one cause at a time, so the
 * fixes are applied and the result analysed again, starting from the pattern's own reports.
 */
function fixed(reports) {
  for (let round = 0; round < FIX_ROUNDS; round++) {
    const next = reports.map((r) => r.fix()).find((f) => f !== undefined);
    if (next === undefined) return null;
    reports = analyse(next, { maxReports: MAX_REPORTS }).reports;
    if (reports.length === 0) return next.source;
  }
  return null;
}
function analyseOne(source, flags) {
  const literal = { source, flags };
  const reports = analyse(literal, { maxReports: MAX_REPORTS }).reports;
  if (reports.length === 0) return { kind: "linear" };
  const worst = reports.find((r) => r.exponential) ?? reports.find((r) => r.type !== "Move") ?? reports[0];
  const found = describe(worst);
  if (found.kind !== "moving") found.fix = fixed(reports);
  return found;
}
port.on("message", ({ source, flags }) => {
  let answer;
  try {
    answer = analyseOne(source, flags);
  } catch (error) {
    const reason = error && error.message ? error.message : String(error);
    answer = { kind: "unchecked", reason: "the analysis failed: " + reason };
  }
  port.postMessage(answer);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

interface Analyser {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
  started: boolean;
}

const cache = new Map<string, Backtracking>();
let analyser: Analyser | null = null;
/**
 * The time one spec's analyses may take in all (LIMITS.budgetMs). analyzeSpec makes one per spec and passes it
 * down in its context, so each build, and each rebuild in kervanc dev, has its own.
 */
export class PatternBudget {
  spentMs = 0;
  /** Analyses left for `settle` (deferred budgets only). */
  readonly #pending: (() => Finding | null)[] = [];
  readonly #deferred: boolean;

  /**
   * `deferred`: analyses wait for `settle` instead of running where they are asked for. The first one waits for
   * the worker to start (about 100 ms, loading scslre); deferred to the end of a spec's analysis, that start
   * overlaps the rest of the analysis on the other core instead of holding up the main thread.
   */
  constructor(options: { readonly deferred?: boolean } = {}) {
    this.#deferred = options.deferred === true;
  }

  /** Runs `analysis` now, its finding into `now`, or, when deferred, at `settle`. */
  check(analysis: () => Finding | null, now: Finding[]): void {
    if (this.#deferred) {
      this.#pending.push(analysis);
      return;
    }
    const found = analysis();
    if (found !== null) now.push(found);
  }

  /** The findings of the analyses left for later, run now in the order they were asked for. */
  settle(): Finding[] {
    const found: Finding[] = [];
    for (const analysis of this.#pending.splice(0)) {
      const finding = analysis();
      if (finding !== null) found.push(finding);
    }
    return found;
  }
}

/**
 * The analysis of `source` compiled with `flags` (Ajv compiles patterns with "u"); each pattern is analysed once.
 * The time it takes is charged to `budget`.
 */
export function backtrackingOf(source: string, flags = "u", budget: PatternBudget = new PatternBudget()): Backtracking {
  const key = `${flags}/${source}`;
  const known = cache.get(key);
  if (known !== undefined) return known;
  // Not kept: the next spec has time again.
  if (budget.spentMs >= LIMITS.budgetMs)
    return {
      kind: "unchecked",
      reason: `this spec's patterns already took the ${LIMITS.budgetMs / 1000} s it may spend on this analysis`,
    };
  const limit = Math.min(LIMITS.patternMs, LIMITS.budgetMs - budget.spentMs);
  const answer = analyse(source, flags, limit, budget);
  // A pattern given up on is kept too (fifty tools with one such pattern cost one wait), unless the wait was cut
  // short by the budget.
  if (answer.kind !== "unchecked" || limit === LIMITS.patternMs) cache.set(key, answer);
  return answer;
}

function analyse(source: string, flags: string, limit: number, budget: PatternBudget): Backtracking {
  const current = analyser ?? start();
  if (current === null) return { kind: "unchecked", reason: "the analysis could not start" };
  Atomics.store(current.flag, 0, 0);
  current.port.postMessage({ source, flags });
  const began = performance.now();
  const waited = Atomics.wait(current.flag, 0, 0, current.started ? limit : START_MS + limit);
  const took = performance.now() - began;
  budget.spentMs += current.started ? took : Math.max(0, took - START_MS);
  const reply = receiveMessageOnPort(current.port);
  if (waited === "timed-out" || reply === undefined) {
    // Abandon it mid-analysis; the next pattern gets a fresh worker.
    void current.worker.terminate();
    current.port.close();
    analyser = null;
    return { kind: "unchecked", reason: `the analysis took longer than ${limit / 1000} s` };
  }
  current.started = true;
  return reply.message as Backtracking;
}

/**
 * Starts the worker now, so that loading scslre there (about 150 ms) overlaps the analysis that comes before a
 * spec's first pattern instead of waiting in front of it. For a spec whose text has a pattern.
 */
export function warmUpPatternAnalysis(): void {
  analyser ??= start();
}

/** Starts the worker (warmUpPatternAnalysis) if a spec's text or bytes may hold a `pattern` or a `format`. */
export function warmUpPatternAnalysisFor(spec: string | Uint8Array): void {
  const text = typeof spec === "string" ? spec : Buffer.from(spec.buffer, spec.byteOffset, spec.byteLength);
  if (text.includes("pattern") || text.includes("format")) warmUpPatternAnalysis();
}

function start(): Analyser | null {
  let scslre: string;
  try {
    scslre = createRequire(import.meta.url).resolve("scslre");
  } catch {
    return null;
  }
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { scslre, port: port2, flag },
    transferList: [port2],
    // The analysis needs little; a pathological pattern is stopped by the time limit, not by memory.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  // Neither keeps the process alive: a build exits when its work is done, whatever the worker is doing.
  worker.unref();
  port1.unref();
  // A failed worker shows up as a timed-out wait; its error event must not crash the build.
  worker.on("error", () => {});
  analyser = { worker, port: port1, flag, started: false };
  return analyser;
}
