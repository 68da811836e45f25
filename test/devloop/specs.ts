/**
 * Specs and a process runner for the inner-loop tests: a weather spec whose tools call a local upstream over
 * plain http with a secret (what only the development relaxation allows), and kervanc run with stdin.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { CliResult } from "../helpers/kervanc.ts";
import { REPO } from "../helpers/kervanc.ts";

export const SECRET = "s3cret-token-for-tests-0042";

export function weatherSpec(origin: string, extraTools = ""): string {
  return `specVersion: 1
name: weather
version: "1.0.0"
secrets:
  - API_KEY
tools:
  - name: get_forecast
    description: Get the forecast for a city.
    input:
      type: object
      properties:
        city: { type: string }
      required: [city]
    http:
      url: ${origin}/forecast
      query:
        city: "{{input.city}}"
      headers:
        X-Api-Key: "{{secrets.API_KEY}}"
    output:
      select: "{city: city, temp: temp}"
      schema:
        type: object
        properties:
          city: { type: string }
          temp: { type: number }
${extraTools}`;
}

/** kervanc with its stdin fed (and closed), for arguments from stdin; never blocks this process's event loop. */
export function kervancIn(
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, "packages", "compiler", "bin", "kervanc.js"), ...args], {
      cwd: REPO,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}
