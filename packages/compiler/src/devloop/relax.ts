/**
 * The development relaxations of `kervanc call`, `dev` and `test`: the generated server may reach loopback and
 * private upstreams, and secrets may travel over plain http to a loopback host (a local mock). They exist so a
 * spec can be tried without a TLS server and a custom CA; `build` never applies them, and they are refused when
 * NODE_ENV=production (the same rule the generated server applies to its flags).
 */
/** The generated server's flags that carry the relaxations (see packages/runtime/src/entry/node-main.ts). */
/**
 * Secrets over plain http go only to connections the server resolved and found loopback: the spec's `*.localhost`
 * hosts pass the build's check by name, but a name proves nothing (glibc asks DNS for `mock.localhost`).
 */
export const DEV_SERVER_FLAGS: readonly string[] = ["--allow-private-network", "--allow-insecure-secrets-to-loopback"];

export const DEV_BANNER =
  "!! kervanc development mode: loopback and private upstreams allowed, secrets may go over plain http to loopback hosts. Never use this in production. !!\n";
