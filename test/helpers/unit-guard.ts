/**
 * The setup of the `unit` project (vitest.config.ts): a unit test runs in process, so starting a process or
 * listening on a socket is a mistake here, made loud. A file that needs either is named `*.e2e.test.ts`.
 * Worker threads stay allowed (the build analyses patterns in one).
 */
import child_process from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const refuse = (what: string) => () => {
  throw new Error(`A unit test may not ${what}: name the file *.e2e.test.ts (CONTRIBUTING.md).`);
};
for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const)
  (child_process as unknown as Record<string, unknown>)[name] = refuse("start a process");
net.Server.prototype.listen = refuse("listen on a socket") as never;
syncBuiltinESMExports();
