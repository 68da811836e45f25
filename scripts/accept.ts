/**
 * Regenerates everything the tests compare against, in the order each depends on the one before:
 *
 *   npm run accept
 *
 * 1. the runtime sources in the compiler's own format (`npm run format:runtime`): every package copies them;
 * 2. the golden packages, fixtures/golden/ (`npm run goldens`): they hold that runtime copy;
 * 3. the expected diagnostics of fixtures/invalid/ and its README (`npm run goldens:invalid`);
 * 4. the generated docs and editor schemas, docs/diagnostics.md and schema/*.json (`npm run docs`);
 * 5. the file snapshots (vitest -u): the importer's specs and diagnostics in fixtures/openapi/expected/, the
 *    review summaries in test/review/goldens/, and the code frames in test/cli/frames/.
 *
 * Each test that compares against one of these fails with a message naming this command. Run it after an
 * intended change, then review the diff (`git diff --stat` first): accepting is a decision, not a fix.
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import process from "node:process";

const REPO = resolve(import.meta.dirname, "..");

/** The vitest files whose file snapshots `-u` rewrites (only these: -u elsewhere would accept anything). */
const SNAPSHOT_TESTS = [
  "test/import/import.e2e.test.ts",
  "test/review/pull-request.e2e.test.ts",
  "test/cli/formats.test.ts",
];

const steps: readonly (readonly [string, readonly string[]])[] = [
  ["npm", ["run", "--silent", "format:runtime"]],
  ["npm", ["run", "--silent", "goldens"]],
  ["npm", ["run", "--silent", "goldens:invalid"]],
  ["npm", ["run", "--silent", "docs"]],
  ["npx", ["vitest", "run", ...SNAPSHOT_TESTS, "--update"]],
];

for (const [command, args] of steps) {
  process.stderr.write(`\n> ${command} ${args.join(" ")}\n`);
  try {
    execFileSync(command, args, { cwd: REPO, stdio: "inherit" });
  } catch {
    process.stderr.write(`npm run accept: "${command} ${args.join(" ")}" failed; the steps after it did not run.\n`);
    process.exit(1);
  }
}
process.stderr.write("\nAccepted. Review what changed: git status; git diff\n");
