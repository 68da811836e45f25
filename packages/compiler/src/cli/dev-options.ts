/**
 * Options shared by the development commands (`call`, `dev`, `test`), checked as command-line usage: they run
 * the generated server with the relaxations of devloop/relax.ts, which production refuses.
 */
import { UsageError } from "./args.ts";

export function refuseInProduction(command: string, env: Readonly<Record<string, string | undefined>>): void {
  if (env["NODE_ENV"] === "production") {
    throw new UsageError(
      `${command} runs with development relaxations (loopback upstreams, secrets over plain http to loopback), which are refused when NODE_ENV=production.`,
    );
  }
}

/**
 * The environment with the development caller the server takes for its stdio calls (runtime node-main.ts,
 * stdioCallerFromEnv): the upstream-auth extension's caller headers and subject token. The values go through the
 * child's environment, not its command line, where other users of the machine could read them.
 */
export function withCaller(
  env: NodeJS.ProcessEnv,
  headers: readonly string[],
  subjectToken: string | undefined,
): NodeJS.ProcessEnv {
  if (headers.length === 0 && subjectToken === undefined) return env;
  const named: Record<string, string> = {};
  for (const header of headers) {
    const eq = header.indexOf("=");
    const name = eq > 0 ? header.slice(0, eq) : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      // The value is never echoed: it is a credential.
      throw new UsageError('--caller-header takes NAME=VALUE, with a header name before the first "=".');
    named[name] = header.slice(eq + 1);
  }
  if (subjectToken === "") throw new UsageError("--subject-token needs a token.");
  return {
    ...env,
    ...(headers.length > 0 ? { KERVANC_STDIO_CALLER_HEADERS: JSON.stringify(named) } : {}),
    ...(subjectToken !== undefined ? { KERVANC_STDIO_SUBJECT_TOKEN: subjectToken } : {}),
  };
}
