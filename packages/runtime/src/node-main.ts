/**
 * The Node entry of a generated server: command-line options, secrets, network policy, and the stdio server.
 *
 * stdout belongs to the protocol; everything this process says goes to stderr, redacted.
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { parseArgs, parseEnv } from "node:util";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { createHttpHandler } from "./http-handler.ts";
import { createServerFactory } from "./mcp.ts";
import {
  allowPrivateNetwork,
  createNetworkPolicy,
  NetworkPolicyError,
  type NetworkPolicyOptions,
} from "./net/address.ts";
import { defaultLookupConcurrency, LookupGate } from "./net/lookup-gate.ts";
import { createNodeTransport } from "./net/node-transport.ts";
import { ProxyConfigError, proxySettingsFromEnv, type ProxySettings } from "./net/proxy.ts";
import type { CompiledServer } from "./plan.ts";
import { isLoopbackHost, serveNodeHttp, type ServeLimits } from "./node-http.ts";
import { ToolRunner } from "./runner.ts";
import { guardStdio, MAX_STDIO_MESSAGE_BYTES } from "./stdio-guard.ts";
import { envSecrets, MIN_SECRET_LENGTH, SecretVault } from "./secrets.ts";

const USAGE = `Usage: server.mjs [--http [--host H] [--port N] [--allowed-host NAME]... [HTTP limits]] [--env-file FILE]...
                 [--allow-private-network] [--allow-insecure-secrets] [--deny-network CIDR]...

Serves this MCP server over stdio (the default), or over Streamable HTTP at /mcp with --http.

Options:
  --http                     serve Streamable HTTP instead of stdio
  --host H                   address to listen on (default 127.0.0.1)
  --port N                   port to listen on (default 3000; 0 picks a free port)
  --allowed-host NAME        a Host (and Origin) name clients may use (repeatable; required off loopback)
  --drain-timeout MS         how long SIGINT/SIGTERM waits for calls in flight (default 10000)
  --max-bodies N             request bodies received or handled at once; more get 503 (default 64)
  --max-body-memory BYTES    total bytes of those bodies; past it 503, before reading (default 33554432)
  --request-timeout MS       a request's headers and body must arrive within this; 408 (default 30000)
  --headers-timeout MS       a request's headers must arrive within this; 408 (default 10000)
  --env-file FILE            read secrets from FILE (KEY=value lines); variables already set win
  --allow-private-network    allow loopback and private addresses (for tests; refused when NODE_ENV=production)
  --allow-insecure-secrets   allow secrets over plain http (refused when NODE_ENV=production)
  --deny-network CIDR        refuse this range as well (repeatable)
  -h, --help                 show this help
  --version                  print the server's name and version`;

/** The HTTP limit flags and the ServeLimits field each sets. */
const LIMIT_FLAGS = [
  ["max-bodies", "maxBodies"],
  ["max-body-memory", "maxBodyBytesTotal"],
  ["request-timeout", "requestTimeoutMs"],
  ["headers-timeout", "headersTimeoutMs"],
] as const;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface NodeOptions {
  readonly http: boolean;
  readonly host: string;
  readonly port: number;
  readonly allowedHosts: readonly string[];
  readonly drainMs: number;
  /** The HTTP limits given on the command line; the rest take DEFAULT_SERVE_LIMITS. */
  readonly limits: Partial<ServeLimits>;
  readonly envFiles: readonly string[];
  readonly allowPrivateNetwork: boolean;
  readonly allowInsecureSecrets: boolean;
  readonly denyNetwork: readonly string[];
  readonly help: boolean;
  readonly version: boolean;
}

export function parseNodeOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): NodeOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        http: { type: "boolean" },
        host: { type: "string" },
        port: { type: "string" },
        "allowed-host": { type: "string", multiple: true },
        "drain-timeout": { type: "string" },
        "max-bodies": { type: "string" },
        "max-body-memory": { type: "string" },
        "request-timeout": { type: "string" },
        "headers-timeout": { type: "string" },
        "env-file": { type: "string", multiple: true },
        "allow-private-network": { type: "boolean" },
        "allow-insecure-secrets": { type: "boolean" },
        "deny-network": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values;
  const production = env["NODE_ENV"] === "production";
  if (production && v["allow-private-network"])
    throw new UsageError("--allow-private-network is refused when NODE_ENV=production.");
  if (production && v["allow-insecure-secrets"])
    throw new UsageError("--allow-insecure-secrets is refused when NODE_ENV=production.");
  const http = v.http ?? false;
  const httpOnly = ["host", "port", "allowed-host", ...LIMIT_FLAGS.map(([flag]) => flag)] as const;
  if (!http && httpOnly.some((flag) => v[flag] !== undefined)) {
    throw new UsageError(`${httpOnly.map((flag) => `--${flag}`).join(", ")} need --http.`);
  }
  const limits: { -readonly [K in keyof ServeLimits]?: number } = {};
  for (const [flag, key] of LIMIT_FLAGS) {
    const raw = v[flag];
    if (raw === undefined) continue;
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new UsageError(`--${flag} must be a whole number above 0.`);
    limits[key] = Number(raw);
  }
  const port = v.port === undefined ? 3000 : Number(v.port);
  if (!/^\d{1,5}$/.test(v.port ?? "3000") || port > 65535)
    throw new UsageError(`--port must be a number from 0 to 65535, not "${v.port}".`);
  const drainMs = v["drain-timeout"] === undefined ? 10_000 : Number(v["drain-timeout"]);
  if (!Number.isInteger(drainMs) || drainMs < 0)
    throw new UsageError("--drain-timeout must be a number of milliseconds.");
  const host = v.host ?? "127.0.0.1";
  const allowedHosts = v["allowed-host"] ?? [];
  if (http && !isLoopbackHost(host) && allowedHosts.length === 0) {
    throw new UsageError(
      `Listening on ${host} (not loopback) needs --allowed-host with the name clients use to reach this server.`,
    );
  }
  return {
    http,
    host,
    port,
    allowedHosts,
    drainMs,
    limits,
    envFiles: v["env-file"] ?? [],
    allowPrivateNetwork: v["allow-private-network"] ?? false,
    allowInsecureSecrets: v["allow-insecure-secrets"] ?? false,
    denyNetwork: v["deny-network"] ?? [],
    help: v.help ?? false,
    version: v.version ?? false,
  };
}

/** The environment with `--env-file` values merged under it: variables already set win. */
export function mergeEnvFiles(
  env: Readonly<Record<string, string | undefined>>,
  files: readonly string[],
): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = {};
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unreadable";
      throw new UsageError(`Cannot read --env-file ${file} (${code}).`);
    }
    for (const [key, value] of Object.entries(parseEnv(text))) {
      Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined)
      Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return merged;
}

export function main(compiled: CompiledServer, argv: readonly string[] = process.argv.slice(2)): void {
  const vault = new SecretVault();
  const log = (line: string): void => {
    process.stderr.write(`${vault.redactText(line)}\n`);
  };
  let options: NodeOptions;
  let env: Record<string, string | undefined>;
  let policyOptions: NetworkPolicyOptions;
  try {
    options = parseNodeOptions(argv, process.env);
    if (options.help) {
      process.stderr.write(`${USAGE}\n`);
      return;
    }
    if (options.version) {
      process.stderr.write(`${compiled.plan.name} ${compiled.plan.version}\n`);
      return;
    }
    env = mergeEnvFiles(process.env, options.envFiles);
    policyOptions = {
      ...(options.allowPrivateNetwork ? allowPrivateNetwork() : {}),
      denyList: [...options.denyNetwork],
    };
  } catch (error) {
    log(`Error: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof UsageError) log(USAGE);
    process.exitCode = 2;
    return;
  }
  let policy;
  let proxy: ProxySettings | null;
  try {
    policy = createNetworkPolicy(policyOptions);
    // proxy-from-env reads process.env itself, so the proxy variables come from the real environment only.
    proxy = proxySettingsFromEnv(process.env);
    // Proxy credentials are secrets like any other: no result, error or log line may show them.
    for (const credential of proxy?.credentials ?? []) {
      if (credential.length >= MIN_SECRET_LENGTH) vault.add("the proxy credential", credential);
    }
  } catch (error) {
    if (!(error instanceof NetworkPolicyError) && !(error instanceof ProxyConfigError)) throw error;
    log(`Error: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  if (proxy !== null) log(`Egress proxy: ${proxy.summary.join(", ")}`);
  const runner = new ToolRunner(compiled, {
    transport: createNodeTransport({ policy, gate: new LookupGate(defaultLookupConcurrency(env)), proxy }),
    secretSource: envSecrets(env),
    vault,
    allowSecretsOverHttp: options.allowInsecureSecrets,
    log,
  });
  const prepared = runner.prepareSecrets();
  for (const warning of prepared.warnings) log(`Warning: ${warning}`);
  if (prepared.errors.length > 0) {
    for (const error of prepared.errors) log(`Error: ${error}`);
    process.exitCode = 1;
    return;
  }
  if (options.allowInsecureSecrets)
    log("!! --allow-insecure-secrets: secrets may travel over plain http. Never use this in production. !!");
  const factory = createServerFactory(compiled, runner);
  const onerror = (error: Error): void => log(`Error: ${error.message}`);
  if (!options.http) {
    // The guard answers oversized and malformed lines itself, so the SDK's transport sees only valid messages
    // and never reaches its own buffer limit (which would close it).
    const input = guardStdio(process.stdin, process.stdout, { log });
    const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * MAX_STDIO_MESSAGE_BYTES });
    const handle = serveStdio(factory, { legacy: "serve", onerror, transport });
    const stop = (): void => {
      void handle.close().finally(() => process.exit(0));
    };
    // Handlers go in before the readiness line: a supervisor may signal as soon as it reads it.
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    log(`Loaded ${compiled.plan.name} ${compiled.plan.version}: ${compiled.tools.length} tool(s)`);
    return;
  }
  const allowed = options.allowedHosts.length > 0 ? [...options.allowedHosts] : undefined;
  const handler = createHttpHandler(factory, { ...(allowed ? { allowedHosts: allowed } : {}), onerror });
  serveNodeHttp(handler, { host: options.host, port: options.port, log, limits: options.limits }).then(
    (server) => {
      let stopping = false;
      const stop = (): void => {
        if (stopping) return;
        stopping = true;
        log("Stopping: waiting for calls in flight.");
        void server.close(options.drainMs).finally(() => process.exit(0));
      };
      // Handlers go in before the readiness line: a supervisor may signal as soon as it reads it.
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      log(`Loaded ${compiled.plan.name} ${compiled.plan.version}: ${compiled.tools.length} tool(s)`);
      log(`Serving ${compiled.plan.name} on ${server.url}`);
    },
    (error: unknown) => {
      const code = typeof error === "object" && error !== null && "code" in error ? ` (${String(error.code)})` : "";
      log(`Error: cannot listen on ${options.host}:${options.port}${code}.`);
      process.exitCode = 1;
    },
  );
}
