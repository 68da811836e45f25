/**
 * The kervanc CLI's own entry (`run`, argument parsing included) in the test's process, with its output
 * collected: for tables of cases whose subject is what kervanc says, where a process per case would cost a
 * second or two of start-up each. Every command also has tests that run it as a process (helpers/kervanc.ts).
 */
import { run } from "../../packages/compiler/src/cli.ts";
import type { CliResult } from "./kervanc.ts";

export async function kervancInProcess(args: readonly string[]): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}
