import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generated servers are spawned as real processes; give them room on a shared, noisy machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
