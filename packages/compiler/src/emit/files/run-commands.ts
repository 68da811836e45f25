/**
 * The command lines the README gives for each runtime, run from the package folder, and what they grant: the
 * settings the fetch target may read and the addresses Deno refuses.
 */
import { egressOf } from "../../plan/egress.ts";
import type { PlannedServer } from "../../plan/plan.ts";
import { command } from "../code/shell.ts";
import { TARGET } from "../targets.ts";
import { SAMPLE_PORT } from "./sample-port.ts";
import { WORKERD_CONFIG_FILE } from "./workerd-config.ts";

/** The settings the fetch target reads from its environment besides the secrets (see runtime/entry/fetch-main.ts). */
export const FETCH_SETTINGS = [
  "KERVANC_ALLOWED_HOSTS",
  "KERVANC_DENY_NETWORK",
  "KERVANC_AUTH_TOKENS",
  "KERVANC_OAUTH_ISSUER",
  "KERVANC_OAUTH_JWKS_URL",
  "KERVANC_OAUTH_AUDIENCE",
  "KERVANC_INSECURE_NO_AUTH",
  "KERVANC_TOOLS",
  "KERVANC_TOOLSETS",
  "KERVANC_READ_ONLY",
  "KERVANC_DISCOVERY",
  "KERVANC_SCHEMA_PROFILE",
  "KERVANC_OTEL_PROPAGATE_TO",
] as const;
/** The test-only allowance of the fetch target; production command lines do not even let it be read. */
export const FETCH_TEST_SETTING = "KERVANC_ALLOW_PRIVATE_NETWORK";

/**
 * Addresses Deno refuses to connect to (`--deny-net`), checked by Deno against the address it actually connects
 * to, so it also covers what a host name resolves to, which the fetch handler cannot see on Deno, except an
 * IPv4-mapped IPv6 answer (::ffff:169.254.169.254), which Deno matches against no IPv4 range and refuses for no
 * entry at all (docs/runtime.md, "On fetch-only platforms"). These are the
 * IPv4 ranges the runtime's address policy refuses (runtime/net/address.ts) and the cloud metadata addresses;
 * Deno takes IPv4 ranges but only single IPv6 addresses. 127.0.0.0/8 is missing on purpose: Deno applies the
 * list to the listening address too, and the sample listens on 127.0.0.1 (`--allow-net` lists no loopback
 * destination, so only a name that resolves to loopback gets through).
 */
export const DENO_DENY_NET = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "168.63.129.16/32",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "[::]",
  "[::1]",
  "[fd00:ec2::254]",
  "[fd20:ce::254]",
  "[fd00:a9fe:a9fe::1]",
  "[fd00:42::42]",
  "[fe80::a9fe:a9fe]",
] as const;

/** The command lines the README gives for each runtime, run from the package folder. */
export interface RunCommands {
  readonly nodeStdio: string;
  readonly nodeHttp: string;
  readonly node24Stdio: string;
  readonly node24Http: string;
  readonly deno: string;
  readonly bun: string;
  readonly workerd: string;
}

export function runCommands(server: PlannedServer): RunCommands {
  const port = String(SAMPLE_PORT);
  const bundle = { node: TARGET.node.file, fetch: TARGET.fetch.file };
  const node = ["node", "--disallow-code-generation-from-strings", bundle.node];
  // Node 24's permission model limits file reads to the bundle; it does not cover the network or the
  // environment (the server's own egress list and address policy do).
  const node24 = [
    "node",
    "--permission",
    `--allow-fs-read=${bundle.node}`,
    "--disallow-code-generation-from-strings",
    bundle.node,
  ];
  const http = ["--http", "--port", port];
  // Deno's permissions know host and port, not the scheme: http and https to one host:port are one entry.
  const egress = [...new Set(egressOf(server).map((rule) => `${rule.host}:${rule.port}`))];
  const env = [...new Set([...server.plan.secrets.map((s) => s.name), ...FETCH_SETTINGS])];
  return {
    nodeStdio: command(node),
    nodeHttp: command([...node, ...http]),
    node24Stdio: command(node24),
    node24Http: command([...node24, ...http]),
    deno: command([
      "deno",
      "serve",
      "--no-prompt",
      "--no-config",
      "--v8-flags=--disallow-code-generation-from-strings",
      "--host",
      "127.0.0.1",
      "--port",
      port,
      `--allow-net=${[`127.0.0.1:${port}`, ...egress].join(",")}`,
      `--deny-net=${DENO_DENY_NET.join(",")}`,
      `--allow-env=${env.join(",")}`,
      bundle.fetch,
    ]),
    bun: command(["bun", "--no-env-file", `--port=${port}`, bundle.fetch]),
    workerd: command(["workerd", "serve", WORKERD_CONFIG_FILE]),
  };
}
