#!/usr/bin/env node
// The kervanc command. The compiler is written in TypeScript and runs through tsx's loader, so there is no
// separate build step after `npm install`.
import { register } from "tsx/esm/api";

register();
try {
  const { run } = await import("../src/cli.ts");
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  // A crash is a bug in kervanc, not in the spec: say so, with the stack, and exit non-zero.
  process.stderr.write(`kervanc: internal error (please report it): ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 3;
}
