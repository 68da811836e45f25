/**
 * Baseline (b): an interpreting server, the way Kervan itself works. At start-up it reads the YAML spec and runs
 * the compiler's own load, check and plan stages in process (parsing the YAML, compiling every input and output
 * schema with Ajv, parsing every `select` into its syntax tree), then serves with the same runtime
 * (packages/runtime) a compiled server uses. Only the start-up differs from kervanc's output: the plan and the
 * validators are made at run time instead of being read from the bundle. Ajv generates code here, so this
 * server cannot run under --disallow-code-generation-from-strings; that is the point of the comparison.
 *
 *   node interpreted.mjs SPEC.yaml [server options, as for a generated server.mjs]
 *
 * The benchmark bundles it with esbuild exactly like a generated server (scripts/bench/bundles.ts).
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { analyzeSpec } from "../../../packages/compiler/src/analyze/analyze.ts";
import { severityOf } from "../../../packages/compiler/src/diagnostics/diagnostic.ts";
import { loadSpec } from "../../../packages/compiler/src/load/load.ts";
import { planServer } from "../../../packages/compiler/src/plan/plan.ts";
import { defineServer } from "../../../packages/runtime/src/define.ts";
import { main } from "../../../packages/runtime/src/entry/node-main.ts";
import type { CompiledValidator } from "../../../packages/runtime/src/plan.ts";

const [specFile, ...serverArgs] = process.argv.slice(2);
if (specFile === undefined) {
  process.stderr.write("Usage: interpreted.mjs SPEC.yaml [server options]\n");
  process.exit(2);
}
const loaded = loadSpec(specFile, readFileSync(specFile));
if (!loaded.ok) {
  process.stderr.write(`${specFile} does not load: ${loaded.findings.map((f) => f.message).join("; ")}\n`);
  process.exit(1);
}
const checked = analyzeSpec(loaded.spec.value);
const errors = checked.findings.filter((f) => severityOf(f) === "error");
if (errors.length > 0 || checked.analyzed === null) {
  process.stderr.write(`${specFile} is not a valid spec: ${errors.map((f) => f.message).join("; ")}\n`);
  process.exit(1);
}
const planned = planServer(checked.analyzed);
main(
  defineServer(
    planned.plan,
    planned.tools.map((t) => ({
      plan: t.plan,
      validateInput: t.input.validate as unknown as CompiledValidator,
      validateOutput: (t.output?.validate ?? null) as unknown as CompiledValidator | null,
    })),
  ),
  serverArgs,
);
