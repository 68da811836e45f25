import { configDefaults, defineConfig } from "vitest/config";

/**
 * Two projects, chosen by how a test file is named, never by a list kept by hand:
 *
 * - unit: every `*.test.ts` under `test/` that runs in process: no child process, no socket (test/helpers/unit-guard.ts
 *   makes either throw). `npm run test:unit` runs them for the edit loop.
 * - e2e: files named `*.e2e.test.ts` (they start processes or open sockets: generated servers and the CLI as real
 *   processes over real stdio and sockets, the other runtimes, the conformance suite) or `*.slow.test.ts`
 *   (property runs and hostile inputs that take tens of seconds in process) or `*.isolated.test.ts` (in process, but
 *   mocking modules, which needs a module graph of its own: the unit project shares one per worker).
 *
 * `npm test` runs both.
 */
const OUT_OF_UNIT = ["**/*.e2e.test.ts", "**/*.slow.test.ts", "**/*.isolated.test.ts"];

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
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...OUT_OF_UNIT],
          setupFiles: ["test/helpers/unit-guard.ts"],
          // In-process suites share one module graph per worker: each file re-importing the compiler, Ajv and
          // the SDK cost more than the tests themselves (import 18 s of 35 s).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: OUT_OF_UNIT.map((g) => `test/${g}`),
        },
      },
    ],
  },
});
