import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects, chosen by where a test lives and how it is named, never by a list kept by hand:
 *
 * - unit: the in-process suites of the compiler's stages and the runtime's pure parts (test/check, test/select,
 *   test/net, test/import): no child process, no socket. `npm run test:unit` runs them for the edit loop.
 * - e2e: everything else: generated servers and the CLI as real processes over real stdio and sockets, the other
 *   runtimes, the conformance suite; plus, inside the unit folders, files named `*.e2e.test.ts` (they start
 *   processes) or `*.slow.test.ts` (property runs and hostile inputs that take tens of seconds in process).
 *
 * `npm test` runs both.
 */
const UNIT_DIRS = "{check,select,net,import}";
const OUT_OF_UNIT = ["**/*.e2e.test.ts", "**/*.slow.test.ts"];

export default defineConfig({
  test: {
    // Generated servers are spawned as real processes; give them room on a shared, noisy machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One test file per core. Vitest's default leaves one core idle (one worker on a 2-core machine), and most
    // e2e time is spent waiting on the processes a test spawns: on 2 cores the suite took 666 s with two workers
    // against 843 s with one, every test passing.
    maxWorkers: "100%",
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: [`test/${UNIT_DIRS}/**/*.test.ts`],
          exclude: [...configDefaults.exclude, ...OUT_OF_UNIT],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: [
            `test/!${UNIT_DIRS.replace("{", "(").replace("}", ")").replace(/,/g, "|")}/**/*.test.ts`,
            ...OUT_OF_UNIT.map((g) => `test/${g}`),
          ],
        },
      },
    ],
  },
});
