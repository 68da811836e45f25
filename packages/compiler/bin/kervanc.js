#!/usr/bin/env node
// The kervanc command. Installed from its tarball it runs the compiled dist/; in the repository (where src/ is
// next to it and dist/ is not built) it runs the TypeScript sources through tsx, so there is no build step
// between an edit and a test.
import { existsSync } from "node:fs";

try {
  let run;
  if (existsSync(new URL("../src/cli.ts", import.meta.url))) {
    const { register } = await import("tsx/esm/api");
    register();
    ({ run } = await import("../src/cli.ts"));
  } else {
    ({ run } = await import("../dist/cli.js"));
  }
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  // A crash is a bug in kervanc, not in the spec: say so, with the stack, and exit non-zero.
  process.stderr.write(`kervanc: internal error (please report it): ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 3;
}
