/**
 * The development relaxations of `kervanc call`, `dev` and `test`: the generated server may reach loopback and
 * private upstreams, and secrets may travel over plain http to a loopback host (a local mock). They exist so a
 * spec can be tried without a TLS server and a custom CA; `build` never applies them, and they are refused when
 * NODE_ENV=production (the same rule the generated server applies to its flags).
 */
import { UsageError } from "../cli/args.ts";

/** The generated server's flags that carry the relaxations (see packages/runtime/src/node-main.ts). */
/**
 * Secrets over plain http go only to connections the server resolved and found loopback: the spec's `*.localhost`
 * hosts pass the build's check by name, but a name proves nothing (glibc asks DNS for `mock.localhost`).
 */
export const DEV_SERVER_FLAGS: readonly string[] = ["--allow-private-network", "--allow-insecure-secrets-to-loopback"];

export const DEV_BANNER =
  "!! kervanc development mode: loopback and private upstreams allowed, secrets may go over plain http to loopback hosts. Never use this in production. !!\n";

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
