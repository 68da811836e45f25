/**
 * Where a build's time goes, phase by phase, in process: load, check, plan, emit (whole), and the phases inside
 * emit measured again on their own: Ajv's standalone code generation, reading the prebuilt record, composing a
 * bundle, and writing the package. Used for the analysis in BENCHMARKS.md;
 * not part of `npm run bench`.
 *
 *   node --import tsx scripts/bench/profile-build.ts [--tools 200] [--runs 3]
 *
 * It calls the compiler's own modules; nothing is written outside a temp folder.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { analyzeSpec } from "../../packages/compiler/src/analyze/analyze.ts";
import { composeBundle, type ToolValidators } from "../../packages/compiler/src/emit/bundle/compose.ts";
import { loadPrebuilt } from "../../packages/compiler/src/emit/bundle/prebuilt.ts";
import { TARGET } from "../../packages/compiler/src/emit/targets.ts";
import { emitServer } from "../../packages/compiler/src/emit/emit.ts";
import { layoutGeneratedJs } from "../../packages/compiler/src/emit/code/code-style.ts";
import { loadSpec } from "../../packages/compiler/src/load/load.ts";
import { validatorModule } from "../../packages/compiler/src/emit/validators/validators.ts";
import { planServer } from "../../packages/compiler/src/plan/plan.ts";
import { generateSpec } from "./gen-specs.ts";
import { formatNumber, summarize } from "./stats.ts";

const { values } = parseArgs({
  options: { tools: { type: "string", default: "200" }, runs: { type: "string", default: "3" } },
});
const tools = Number(values.tools);
const runs = Number(values.runs);
const bytes = new TextEncoder().encode(generateSpec(tools, "http://127.0.0.1:9"));
const phases = new Map<string, number[]>();
const time = async <T>(name: string, work: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const result = await work();
  (phases.get(name) ?? phases.set(name, []).get(name)!).push(performance.now() - t0);
  return result;
};

const root = await mkdtemp(join(tmpdir(), "kervanc-profile-build-"));
try {
  for (let run = 0; run < runs; run++) {
    const loaded = await time("load (YAML, positions, sha256)", () => loadSpec("bench.yaml", bytes));
    if (!loaded.ok) throw new Error("the spec does not load");
    const checked = await time("check (structure, templates, Ajv compile of every schema, select)", () =>
      analyzeSpec(loaded.spec.value),
    );
    if (checked.analyzed === null) throw new Error("the spec does not check");
    const planned = await time("plan", () => planServer(checked.analyzed!));
    const files = await time("emit, whole (validators, modules, bundles composed, SBOM)", () =>
      emitServer(planned, { folder: "bench", specFile: "bench.yaml", sha256: loaded.spec.sha256 }),
    );
    // The phases inside emit, again on their own.
    const validators: ToolValidators[] = [];
    await time(`  Ajv standalone code for ${planned.tools.length} tools, laid out (validatorModule)`, () => {
      for (const tool of planned.tools) {
        const input = layoutGeneratedJs(validatorModule(tool.input).code);
        const output = tool.output ? layoutGeneratedJs(validatorModule(tool.output).code) : null;
        validators.push({ input, output });
      }
    });
    const sources = planned.tools.map((_, index) => ({ index, specFile: "bench.yaml", line: 1 }));
    const prebuilt = await time("  the prebuilt record (read once per process)", () => loadPrebuilt());
    await time("  server.mjs composed", () =>
      composeBundle(TARGET.node, prebuilt, "", {
        server: planned,
        sources,
        validators,
        ajvHelpers: "addError",
        views: null,
      }),
    );
    await time(`  writing ${files.size} files`, async () => {
      for (const [path, text] of files) {
        await mkdir(dirname(join(root, `out-${run}`, path)), { recursive: true });
        await writeFile(join(root, `out-${run}`, path), text);
      }
    });
  }
  process.stdout.write(
    `Build phases for a ${tools}-tool spec, in process (ms; median of ${runs} runs, min in brackets):\n`,
  );
  for (const [name, ms] of phases) {
    const s = summarize(ms);
    process.stdout.write(`${formatNumber(s.median, 0).padStart(8)} (${formatNumber(s.min, 0)})  ${name}\n`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
