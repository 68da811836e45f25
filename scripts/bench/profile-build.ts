/**
 * Where a build's time goes, phase by phase, in process: load, check, plan, emit (whole), and the phases inside
 * emit measured again on their own: prettier over every emitted source file (by kind of file), Ajv's standalone
 * code generation, writing the staging folder, and the esbuild bundle. Used for the analysis in BENCHMARKS.md;
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
import { bundleServer } from "../../packages/compiler/src/emit/bundle.ts";
import { TARGET } from "../../packages/compiler/src/emit/targets.ts";
import { emitServer } from "../../packages/compiler/src/emit/emit.ts";
import { format } from "../../packages/compiler/src/emit/code/code-style.ts";
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
    const stageDir = join(root, `stage-${run}`);
    await mkdir(stageDir);
    const files = await time("emit, whole (validators, prettier, esbuild, SBOM)", () =>
      emitServer(planned, { folder: "bench", specFile: "bench.yaml", sha256: loaded.spec.sha256, stageDir }),
    );
    // The phases inside emit, again on their own: formatting every source file once more costs what it cost
    // the first time (prettier parses and prints the whole file either way).
    const sources = [...files].filter(
      ([path]) => path.startsWith("src/") && /\.(ts|js)$/.test(path) && path !== "src/validators/ajv-runtime.js",
    );
    await time(`  prettier over ${sources.length} source files`, async () => {
      for (const [path, text] of sources) await format(text, path.endsWith(".js") ? "babel" : "typescript");
    });
    const groups: [string, (path: string) => boolean][] = [
      ["validator modules (Ajv standalone code)", (path) => path.startsWith("src/validators/") && path.endsWith(".js")],
      ["validator declaration files (one text, repeated)", (path) => path.endsWith(".d.ts")],
      ["tool modules (plan literals)", (path) => path.startsWith("src/tools/")],
      ["runtime files (copied)", (path) => path.startsWith("src/runtime/")],
    ];
    for (const [label, match] of groups) {
      const group = sources.filter(([path]) => match(path));
      await time(`    ${group.length} ${label}`, async () => {
        for (const [path, text] of group) await format(text, path.endsWith(".js") ? "babel" : "typescript");
      });
    }
    await time(`  Ajv standalone code for ${planned.tools.length} tools (validatorModule)`, () => {
      for (const tool of planned.tools) {
        validatorModule(tool.input);
        if (tool.output) validatorModule(tool.output);
      }
    });
    const restage = join(root, `restage-${run}`);
    await time(`  writing ${files.size - 1} files to a staging folder`, async () => {
      for (const [path, text] of files) {
        if (path === "server.mjs") continue;
        await mkdir(dirname(join(restage, path)), { recursive: true });
        await writeFile(join(restage, path), text);
      }
    });
    await time("  esbuild bundle of the staged sources", () => bundleServer(restage, TARGET.node, ""));
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
