/**
 * Discovery mode, measured (issue: big APIs): what `tools/list` costs a client with and without `--discovery`,
 * what discovery costs the server at start, and whether `search_tools` finds the tool a person means.
 *
 * 1. The 200-tool bench spec (gen-specs.ts), built: the `tools/list` answer's characters and estimated tokens
 *    (characters / 4, as KV9006 counts them) in both modes.
 * 2. Start-up: spawn to the first `tools/list` answer over stdio (the SDK v1 client), both modes in interleaved
 *    rounds; medians, p90 and the paired ratio.
 * 3. Search quality: GitHub's 40 issue operations (scripts/bench/data/github-issues.openapi.json, cut from
 *    GitHub's MIT-licensed description; its `x-fixture` says how), imported and built, then 50 queries written by
 *    hand (QUERIES below) sent to `search_tools`: is the intended tool first, and in the top 5?
 *
 *   node --import tsx scripts/bench/discovery.ts [--rounds 15]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { generateSpec } from "./gen-specs.ts";
import { formatNumber, formatPaired, pairedRatio, summarize } from "./stats.ts";

const REPO = resolve(import.meta.dirname, "..", "..");
const KERVANC = join(REPO, "packages", "compiler", "bin", "kervanc.js");
const { values } = parseArgs({ options: { rounds: { type: "string", default: "15" } } });
const rounds = Number(values.rounds);

/** Each query and the tool a person asking it means (GitHub's operationIds, as kervanc import names them). */
const QUERIES: readonly (readonly [string, string])[] = [
  ["list issues in a repository", "issues_list-for-repo"],
  ["open a new issue in a repo", "issues_create"],
  ["get a single issue by number", "issues_get"],
  ["edit the title of an issue", "issues_update"],
  ["close an issue", "issues_update"],
  ["add a comment to an issue", "issues_create-comment"],
  ["list comments on an issue", "issues_list-comments"],
  ["delete an issue comment", "issues_delete-comment"],
  ["edit a comment", "issues_update-comment"],
  ["get one issue comment", "issues_get-comment"],
  ["all comments in a repository", "issues_list-comments-for-repo"],
  ["lock the conversation of an issue", "issues_lock"],
  ["unlock an issue", "issues_unlock"],
  ["assign someone to an issue", "issues_add-assignees"],
  ["remove assignees from an issue", "issues_remove-assignees"],
  ["who can be assigned to issues in this repository", "issues_list-assignees"],
  ["check if a user can be assigned", "issues_check-user-can-be-assigned"],
  ["check whether a user can be assigned to a specific issue", "issues_check-user-can-be-assigned-to-issue"],
  ["add labels to an issue", "issues_add-labels"],
  ["replace all labels on an issue", "issues_set-labels"],
  ["remove one label from an issue", "issues_remove-label"],
  ["clear all labels from an issue", "issues_remove-all-labels"],
  ["which labels does this issue have", "issues_list-labels-on-issue"],
  ["list the labels of a repository", "issues_list-labels-for-repo"],
  ["create a new label", "issues_create-label"],
  ["delete a label", "issues_delete-label"],
  ["get a label by name", "issues_get-label"],
  ["rename a label or change its color", "issues_update-label"],
  ["list milestones", "issues_list-milestones"],
  ["create a milestone with a due date", "issues_create-milestone"],
  ["delete a milestone", "issues_delete-milestone"],
  ["get a milestone", "issues_get-milestone"],
  ["update a milestone", "issues_update-milestone"],
  ["labels used by issues in a milestone", "issues_list-labels-for-milestone"],
  ["timeline of an issue", "issues_list-events-for-timeline"],
  ["events of an issue", "issues_list-events"],
  ["issue events for a whole repository", "issues_list-events-for-repo"],
  ["get a single issue event", "issues_get-event"],
  ["issues assigned to me across all visible repositories", "issues_list"],
  ["issues in an organization", "issues_list-for-org"],
  ["issues across repositories owned by the authenticated user", "issues_list-for-authenticated-user"],
  ["file a bug report", "issues_create"],
  ["post a reply on an issue thread", "issues_create-comment"],
  ["reopen a closed issue", "issues_update"],
  ["set the milestone's state to closed", "issues_update-milestone"],
  ["is this person allowed to be an assignee", "issues_check-user-can-be-assigned"],
  ["change the description of a label", "issues_update-label"],
  ["show every issue event in the repo", "issues_list-events-for-repo"],
  ["remove a user as assignee", "issues_remove-assignees"],
  ["list open issues with a given label in a repository", "issues_list-for-repo"],
];

function kervanc(args: string[]): void {
  execFileSync(process.execPath, [KERVANC, ...args], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
}

async function client(server: string, args: string[]): Promise<Client> {
  const c = new Client({ name: "bench-discovery", version: "1.0.0" });
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--disallow-code-generation-from-strings", server, ...args],
      env: { PATH: process.env["PATH"] ?? "" },
      stderr: "ignore",
    }),
  );
  return c;
}

const work = mkdtempSync(join(tmpdir(), "kervanc-bench-discovery-"));
try {
  // 1. Listing size.
  writeFileSync(join(work, "bench200.yaml"), generateSpec(200, "http://127.0.0.1:9"));
  kervanc(["build", join(work, "bench200.yaml"), "-o", join(work, "out")]);
  const server200 = join(work, "out", "bench200", "server.mjs");
  const sizes: string[] = [];
  for (const mode of ["full", "discovery"] as const) {
    const c = await client(server200, mode === "discovery" ? ["--discovery"] : []);
    const characters = JSON.stringify(await c.listTools()).length;
    await c.close();
    sizes.push(`| ${mode} | ${formatNumber(characters, 0)} | ${formatNumber(Math.ceil(characters / 4), 0)} |`);
  }

  // 2. Start-up to the first tools/list answer, interleaved.
  const times: Record<"full" | "discovery", number[]> = { full: [], discovery: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of ["full", "discovery"] as const) {
      const started = performance.now();
      const c = await client(server200, mode === "discovery" ? ["--discovery"] : []);
      await c.listTools();
      times[mode].push(performance.now() - started);
      await c.close();
    }
  }

  // 3. Search quality over GitHub's issue operations.
  kervanc([
    "import",
    join(REPO, "scripts", "bench", "data", "github-issues.openapi.json"),
    "-o",
    join(work, "github.yaml"),
    "--server-url",
    "https://api.github.com",
  ]);
  kervanc(["build", join(work, "github.yaml"), "-o", join(work, "out")]);
  const github = await client(join(work, "out", "github", "server.mjs"), ["--discovery"]);
  let first = 0;
  let top5 = 0;
  const misses: string[] = [];
  for (const [query, meant] of QUERIES) {
    const result = await github.callTool({ name: "search_tools", arguments: { query, limit: 5 } });
    const names = (result.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
    if (names[0] === meant) first++;
    if (names.includes(meant)) top5++;
    else misses.push(`- "${query}": meant ${meant}, got ${names.join(", ") || "nothing"}`);
  }
  await github.close();

  const full = summarize(times.full);
  const discovery = summarize(times.discovery);
  console.log(`## Discovery mode (${new Date().toISOString()}, node ${process.version}, ${rounds} rounds)\n`);
  console.log("tools/list of the 200-tool bench spec:\n");
  console.log("| mode | characters | estimated tokens |\n| --- | --- | --- |");
  console.log(sizes.join("\n"));
  console.log("\nStart-up, spawn to the first tools/list answer (ms):\n");
  console.log("| mode | median | p90 | min |\n| --- | --- | --- | --- |");
  for (const [mode, s] of [
    ["full", full],
    ["discovery", discovery],
  ] as const)
    console.log(`| ${mode} | ${formatNumber(s.median)} | ${formatNumber(s.p90)} | ${formatNumber(s.min)} |`);
  console.log(`\ndiscovery / full, paired: ${formatPaired(pairedRatio(times.discovery, times.full))}`);
  console.log(`\nsearch_tools over GitHub's ${QUERIES.length} issue queries (40 tools):`);
  console.log(`- intended tool first: ${first} of ${QUERIES.length}`);
  console.log(`- intended tool in the top 5: ${top5} of ${QUERIES.length}`);
  if (misses.length > 0) console.log(`\nMissed:\n${misses.join("\n")}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
