/**
 * The Node entry of a generated server: command-line options, secrets, network policy, and the stdio server.
 *
 * stdout belongs to the protocol; everything this process says goes to stderr, redacted.
 *
 * No file of the runtime imports a Node built-in (`import ... from "node:fs"`); each takes what it needs with
 * `process.getBuiltinModule` where it needs it. An ES module import of a built-in makes Node read all of its
 * exports, which runs the built-in's lazy getters: on Node 22 and 24 importing node:http that way loads Node's
 * fetch implementation and with it http2, tls, crypto and zlib, and importing node:process, node:fs or node:util
 * loads more; about 100 modules before the first answer over stdio, each compiled from source under
 * --disallow-code-generation-from-strings (test/e2e/start-loads.e2e.test.ts).
 */
// First: before the SDK builds its schemas.
import "./zod-jitless.ts";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import {
  type Authenticator,
  authTokenProblem,
  type AuthSettings,
  createAuthenticator,
  oauthUrlProblem,
} from "../serve/auth.ts";
import { parseTrustedRanges, TrustProxyError } from "../serve/client-address.ts";
import { compileCacheProblem } from "./compile-cache.ts";
import { createHttpHandler } from "../serve/http-handler.ts";
import {
  type CallRecord,
  createLogger,
  LOG_LEVELS,
  type LogFormat,
  type Logger,
  type LogLevel,
  oneLine,
} from "../serve/log.ts";
import type { IpRange } from "../net/ip.ts";
import { ClientRateLimit } from "../serve/rate-limit.ts";
import { createDiscoveryFactory } from "../serve/discovery.ts";
import { createServerFactory } from "../serve/mcp.ts";
import { type CallerContext, STDIO_CALLER } from "../secrets/credentials/caller.ts";
import { NO_TELEMETRY, OtlpTelemetry, type Telemetry } from "../telemetry/telemetry.ts";
import { TelemetryConfigError, type TelemetrySettings, telemetrySettings } from "../telemetry/telemetry-settings.ts";
import {
  allowPrivateNetwork,
  createNetworkPolicy,
  NetworkPolicyError,
  type NetworkPolicyOptions,
} from "../net/address.ts";
import { defaultLookupConcurrency, LookupGate } from "../net/lookup-gate.ts";
import { createNodeTransport } from "../net/node-transport.ts";
import { ProxyConfigError, proxySettingsFromEnv, type ProxySettings } from "../net/proxy.ts";
import type { CompiledServer } from "../plan.ts";
import { isLoopbackHost } from "../net/loopback.ts";
import { serveNodeHttp, type ServeLimits } from "../serve/node-http.ts";
import { ToolRunner } from "../call/runner.ts";
import { type SchemaProfile, schemaProfile } from "../serve/schema-profiles.ts";
import { parseNameList, selectTools, servedCount, type ToolSelection } from "../serve/tool-selection.ts";
import { guardStdio, MAX_STDIO_MESSAGE_BYTES } from "./stdio-guard.ts";
import { envSecrets, envUnderFiles, MIN_SECRET_LENGTH, SecretVault, secretsFileProblem } from "../secrets/secrets.ts";

const USAGE = `Usage: server.mjs [--http [--host H] [--port N] [--allowed-host NAME]... [HTTP options]] [--secrets-file FILE]...
                 [--allow-private-network] [--allow-insecure-secrets] [--deny-network CIDR]... [--log-format F] [--log-level L]

Serves this MCP server over stdio (the default), or over Streamable HTTP at /mcp with --http.

Options:
  --http                     serve Streamable HTTP instead of stdio
  --host H                   address to listen on (default 127.0.0.1)
  --port N                   port to listen on (default 3000; 0 picks a free port)
  --allowed-host NAME        a Host (and Origin) name clients may use (repeatable; required off loopback)
  --auth-tokens-file FILE    accept these bearer tokens on /mcp (one per line; also KERVANC_AUTH_TOKENS, comma-separated)
  --oauth-issuer URL         accept OAuth access tokens (JWT) from this authorization server...
  --oauth-jwks-url URL       ...verified with its key set at this URL...
  --oauth-audience URL       ...issued for this resource (default http://HOST:PORT/mcp of this server)
  --insecure-no-auth         serve off loopback or a public --allowed-host without authentication (never on a shared network)
  --client-rate-limit N      requests per minute per client (token subject, or address); 0 turns it off (default 300)
  --trust-proxy CIDR         take the client address from X-Forwarded-For on connections from here (repeatable)
  --drain-timeout MS         how long SIGINT/SIGTERM waits for calls in flight (default 10000)
  --max-bodies N             request bodies received or handled at once; more get 503 (default 64)
  --max-body-memory BYTES    total bytes of those bodies; past it 503, before reading (default 33554432)
  --request-timeout MS       a request's headers and body must arrive within this; 408 (default 30000)
  --headers-timeout MS       a request's headers must arrive within this; 408 (default 10000)
  --send-timeout MS          a client that reads none of its response for this long is disconnected (default 30000)
  --secrets-file FILE        read secrets from FILE (KEY=value lines); variables already set win
  --allow-private-network    allow loopback and private addresses (for tests; refused when NODE_ENV=production)
  --allow-insecure-secrets   allow secrets over plain http (refused when NODE_ENV=production)
  --allow-insecure-secrets-to-loopback
                             allow secrets over plain http to resolved loopback addresses only (refused in production)
  --deny-network CIDR        refuse this range as well (repeatable)
  --no-upstream-keep-alive   a new upstream connection per request (default: kept alive per checked destination)
  --tools A,B                serve only these tools (repeatable; adds to --toolsets)
  --toolsets X,Y             serve only the tools tagged with these toolsets (repeatable; adds to --tools)
  --read-only                serve only tools annotated readOnlyHint: true (of the selection, or of all)
  --discovery                list three tools (search_tools, describe_tool, call_tool) instead of every tool
  --schema-profile NAME      advertise input schemas rewritten for a client family: gemini (validation is unchanged)
  --otel-endpoint URL        export OpenTelemetry traces and metrics (OTLP/HTTP JSON) to this collector
                             (also OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_* variables)
  --otel-propagate-to HOST   send traceparent on upstream requests to this host[:port] (repeatable; default none)
  --log-format F             text (default) or json: one JSON object per line, one per call
  --log-level L              debug, info (default), warn or error
  -h, --help                 show this help
  --version                  print the server's name and version

Egress goes through HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured) when they are set. On Node 22.1 and later,
NODE_COMPILE_CACHE=DIR (a folder only this user can write to) makes later starts faster.`;

/** The HTTP limit flags and the ServeLimits field each sets. */
const LIMIT_FLAGS = [
  ["max-bodies", "maxBodies"],
  ["max-body-memory", "maxBodyBytesTotal"],
  ["request-timeout", "requestTimeoutMs"],
  ["headers-timeout", "headersTimeoutMs"],
  ["send-timeout", "sendTimeoutMs"],
] as const;

/** The longest timer Node keeps: a longer one fires after 1 ms instead (with a TimeoutOverflowWarning). */
const MAX_TIMER_MS = 2_147_483_647;

/** Refuses a timeout flag's value that a timer cannot hold. */
function timerMs(flag: string, raw: string): void {
  if (Number(raw) > MAX_TIMER_MS) throw new UsageError(`${flag} must be at most ${MAX_TIMER_MS} (milliseconds).`);
}

/**
 * Why clients other than this host's may reach the server, or null: it listens off loopback, or an
 * --allowed-host is a name that is not loopback (the name the public reaches it by, as through a reverse proxy
 * on this host). Either needs authentication or --insecure-no-auth.
 */
function exposure(host: string, allowedHosts: readonly string[]): string | null {
  if (!isLoopbackHost(host)) return `Listening on ${host} (not loopback)`;
  const name = allowedHosts.find((allowed) => !isLoopbackHost(allowed));
  return name === undefined ? null : `--allowed-host ${name} (not loopback)`;
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

function profileOption(value: string): SchemaProfile {
  try {
    return schemaProfile("--schema-profile", value);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The names of a repeatable, comma-separated flag (`--tools a,b --tools c`). */
function nameList(flag: string, values: readonly string[]): string[] {
  try {
    return [...new Set(values.flatMap((value) => parseNameList(flag, value)))];
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A setting of the environment this server refuses to start with (not a command-line mistake). */
class StartError extends Error {}

export interface NodeOptions {
  readonly http: boolean;
  readonly host: string;
  readonly port: number;
  readonly allowedHosts: readonly string[];
  readonly drainMs: number;
  /** The HTTP limits given on the command line; the rest take DEFAULT_SERVE_LIMITS. */
  readonly limits: Partial<ServeLimits>;
  readonly secretsFiles: readonly string[];
  readonly authTokensFile: string | null;
  readonly oauth: { readonly issuer: string; readonly jwksUrl: string; readonly audience: string | null } | null;
  readonly insecureNoAuth: boolean;
  readonly clientRateLimit: number;
  readonly trustProxy: readonly string[];
  readonly logFormat: LogFormat;
  readonly logLevel: LogLevel;
  readonly allowPrivateNetwork: boolean;
  /** Secrets over plain http: true anywhere, "loopback" only to resolved loopback addresses, false never. */
  readonly allowInsecureSecrets: boolean | "loopback";
  readonly denyNetwork: readonly string[];
  readonly upstreamKeepAlive: boolean;
  readonly selection: ToolSelection;
  readonly discovery: boolean;
  readonly schemaProfile: SchemaProfile | null;
  /** --otel-endpoint and --otel-propagate-to (telemetry/telemetry-settings.ts reads the OTEL_* variables). */
  readonly otel: { readonly endpoint: string | undefined; readonly propagateTo: readonly string[] };
  /**
   * Development only (`kervanc call`, `dev`, `test`): what a stdio call's caller is taken to have sent, for the
   * upstream-auth extension's caller headers and token exchange; null otherwise (credentials.md).
   */
  readonly stdioCaller: CallerContext | null;
  readonly help: boolean;
  readonly version: boolean;
}

export function parseNodeOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): NodeOptions {
  let parsed;
  try {
    parsed = process.getBuiltinModule("node:util").parseArgs({
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
        "send-timeout": { type: "string" },
        "env-file": { type: "string", multiple: true },
        "secrets-file": { type: "string", multiple: true },
        "auth-tokens-file": { type: "string" },
        "oauth-issuer": { type: "string" },
        "oauth-jwks-url": { type: "string" },
        "oauth-audience": { type: "string" },
        "insecure-no-auth": { type: "boolean" },
        "client-rate-limit": { type: "string" },
        "trust-proxy": { type: "string", multiple: true },
        "log-format": { type: "string" },
        "log-level": { type: "string" },
        "allow-private-network": { type: "boolean" },
        "allow-insecure-secrets": { type: "boolean" },
        "allow-insecure-secrets-to-loopback": { type: "boolean" },
        "deny-network": { type: "string", multiple: true },
        "no-upstream-keep-alive": { type: "boolean" },
        tools: { type: "string", multiple: true },
        toolsets: { type: "string", multiple: true },
        "read-only": { type: "boolean" },
        discovery: { type: "boolean" },
        "schema-profile": { type: "string" },
        "otel-endpoint": { type: "string" },
        "otel-propagate-to": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const v = parsed.values;
  if (v["env-file"] !== undefined) {
    throw new UsageError(
      "--env-file is not a server option any more: Node reads --env-file itself, even after the script name, so it never reliably reached this server. Use --secrets-file FILE.",
    );
  }
  const production = env["NODE_ENV"] === "production";
  if (production && v["allow-private-network"])
    throw new UsageError("--allow-private-network is refused when NODE_ENV=production.");
  if (production && v["allow-insecure-secrets"])
    throw new UsageError("--allow-insecure-secrets is refused when NODE_ENV=production.");
  if (production && v["allow-insecure-secrets-to-loopback"])
    throw new UsageError("--allow-insecure-secrets-to-loopback is refused when NODE_ENV=production.");
  const http = v.http ?? false;
  const httpOnly = [
    "host",
    "port",
    "allowed-host",
    "auth-tokens-file",
    "oauth-issuer",
    "oauth-jwks-url",
    "oauth-audience",
    "insecure-no-auth",
    "client-rate-limit",
    "trust-proxy",
    ...LIMIT_FLAGS.map(([flag]) => flag),
  ] as const;
  if (!http && httpOnly.some((flag) => v[flag] !== undefined)) {
    throw new UsageError(`${httpOnly.map((flag) => `--${flag}`).join(", ")} need --http.`);
  }
  const limits: { -readonly [K in keyof ServeLimits]?: number } = {};
  for (const [flag, key] of LIMIT_FLAGS) {
    const raw = v[flag];
    if (raw === undefined) continue;
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new UsageError(`--${flag} must be a whole number above 0.`);
    if (flag.endsWith("-timeout")) timerMs(`--${flag}`, raw);
    limits[key] = Number(raw);
  }
  const port = v.port === undefined ? 3000 : Number(v.port);
  if (!/^\d{1,5}$/.test(v.port ?? "3000") || port > 65535)
    throw new UsageError(`--port must be a number from 0 to 65535, not "${v.port}".`);
  const drainMs = v["drain-timeout"] === undefined ? 10_000 : Number(v["drain-timeout"]);
  if (!Number.isInteger(drainMs) || drainMs < 0)
    throw new UsageError("--drain-timeout must be a number of milliseconds.");
  timerMs("--drain-timeout", String(drainMs));
  const host = v.host ?? "127.0.0.1";
  const allowedHosts = v["allowed-host"] ?? [];
  if (http && !isLoopbackHost(host) && allowedHosts.length === 0) {
    throw new UsageError(
      `Listening on ${host} (not loopback) needs --allowed-host with the name clients use to reach this server.`,
    );
  }
  const issuer = v["oauth-issuer"];
  const jwksUrl = v["oauth-jwks-url"];
  if ((issuer === undefined) !== (jwksUrl === undefined) || (v["oauth-audience"] !== undefined && issuer === undefined))
    throw new UsageError("OAuth needs both --oauth-issuer and --oauth-jwks-url (--oauth-audience is optional).");
  for (const [flag, value] of [
    ["--oauth-issuer", issuer],
    ["--oauth-jwks-url", jwksUrl],
    ["--oauth-audience", v["oauth-audience"]],
  ] as const) {
    const problem = value === undefined ? null : oauthUrlProblem(flag, value, flag === "--oauth-jwks-url");
    if (problem !== null) throw new UsageError(problem);
  }
  const oauth =
    issuer !== undefined && jwksUrl !== undefined ? { issuer, jwksUrl, audience: v["oauth-audience"] ?? null } : null;
  const authTokensFile = v["auth-tokens-file"] ?? null;
  // Set but holding no token (",", blanks): refused, since it would count as authentication here and
  // configure none, serving /mcp off loopback to anyone.
  const envTokens = authTokensFromEnv(env);
  if (http && envTokens.length === 0 && (env["KERVANC_AUTH_TOKENS"] ?? "") !== "")
    throw new UsageError("KERVANC_AUTH_TOKENS holds no token (comma-separated tokens; unset it for none).");
  if (oauth !== null && (authTokensFile !== null || envTokens.length > 0))
    throw new UsageError("Choose one kind of authentication: bearer tokens or OAuth, not both.");
  const authOn = oauth !== null || authTokensFile !== null || envTokens.length > 0;
  const exposed = exposure(host, allowedHosts);
  if (http && exposed !== null && !authOn && !v["insecure-no-auth"]) {
    throw new UsageError(
      `${exposed} needs authentication: --auth-tokens-file FILE (or KERVANC_AUTH_TOKENS), or --oauth-issuer with --oauth-jwks-url. To serve without it anyway, pass --insecure-no-auth.`,
    );
  }
  if (oauth !== null && oauth.audience === null && port === 0)
    throw new UsageError("With --port 0, give --oauth-audience: the default audience names this server's port.");
  const rateRaw = v["client-rate-limit"] ?? "300";
  if (!/^\d{1,9}$/.test(rateRaw)) throw new UsageError("--client-rate-limit must be a whole number (0 turns it off).");
  const logFormat = v["log-format"] ?? "text";
  if (logFormat !== "text" && logFormat !== "json") throw new UsageError("--log-format must be text or json.");
  const logLevel = v["log-level"] ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}.`);
  return {
    http,
    host,
    port,
    allowedHosts,
    drainMs,
    limits,
    secretsFiles: v["secrets-file"] ?? [],
    authTokensFile,
    oauth,
    insecureNoAuth: v["insecure-no-auth"] ?? false,
    clientRateLimit: Number(rateRaw),
    trustProxy: v["trust-proxy"] ?? [],
    logFormat,
    logLevel: logLevel as LogLevel,
    allowPrivateNetwork: v["allow-private-network"] ?? false,
    allowInsecureSecrets:
      (v["allow-insecure-secrets"] ?? false)
        ? true
        : (v["allow-insecure-secrets-to-loopback"] ?? false)
          ? "loopback"
          : false,
    denyNetwork: v["deny-network"] ?? [],
    upstreamKeepAlive: !(v["no-upstream-keep-alive"] ?? false),
    selection: {
      tools: v.tools === undefined ? null : nameList("--tools", v.tools),
      toolsets: v.toolsets === undefined ? null : nameList("--toolsets", v.toolsets),
      readOnly: v["read-only"] ?? false,
    },
    discovery: v.discovery ?? false,
    schemaProfile: v["schema-profile"] === undefined ? null : profileOption(v["schema-profile"]),
    stdioCaller: stdioCallerFromEnv(env, http, production),
    otel: { endpoint: v["otel-endpoint"], propagateTo: v["otel-propagate-to"] ?? [] },
    help: v.help ?? false,
    version: v.version ?? false,
  };
}

/**
 * The development stand-in for an HTTP caller over stdio (kervanc extension upstream-auth): the headers in
 * KERVANC_STDIO_CALLER_HEADERS (a JSON object of names and values) and the access token in
 * KERVANC_STDIO_SUBJECT_TOKEN, taken unverified. `kervanc call --caller-header` and `--subject-token` set them
 * for the child they start. Refused in production and with --http, where real callers send their own.
 */
function stdioCallerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  http: boolean,
  production: boolean,
): CallerContext | null {
  const headersJson = env["KERVANC_STDIO_CALLER_HEADERS"] ?? "";
  const subjectToken = env["KERVANC_STDIO_SUBJECT_TOKEN"] ?? "";
  if (headersJson === "" && subjectToken === "") return null;
  if (production)
    throw new UsageError(
      "KERVANC_STDIO_CALLER_HEADERS and KERVANC_STDIO_SUBJECT_TOKEN are refused when NODE_ENV=production.",
    );
  if (http)
    throw new UsageError(
      "KERVANC_STDIO_CALLER_HEADERS and KERVANC_STDIO_SUBJECT_TOKEN are for stdio; over --http each client sends its own.",
    );
  const headers = new Headers();
  if (headersJson !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(headersJson);
    } catch {
      parsed = null;
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new UsageError("KERVANC_STDIO_CALLER_HEADERS must be a JSON object of header names and values.");
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value !== "string")
        throw new UsageError(`KERVANC_STDIO_CALLER_HEADERS: the value of ${name} must be a string.`);
      try {
        headers.set(name, value);
      } catch {
        throw new UsageError(
          `KERVANC_STDIO_CALLER_HEADERS: ${JSON.stringify(name)} is not a header name and value that can be sent.`,
        );
      }
    }
  }
  return {
    transport: "stdio",
    headers,
    ...(subjectToken !== ""
      ? { oauth: { token: subjectToken, subject: "sub:development", exp: Math.floor(Date.now() / 1000) + 86_400 } }
      : {}),
  };
}

/** The environment with `--secrets-file` values merged under it: variables already set win. */
export function mergeSecretsFiles(
  env: Readonly<Record<string, string | undefined>>,
  files: readonly string[],
): Record<string, string | undefined> {
  const parsed = files.map((file) => {
    let text: string;
    try {
      text = process.getBuiltinModule("node:fs").readFileSync(file, "utf8");
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unreadable";
      throw new UsageError(`Cannot read --secrets-file ${file} (${code}).`);
    }
    const problem = secretsFileProblem(text);
    if (problem !== null) throw new UsageError(`--secrets-file ${file}, ${problem}`);
    return process.getBuiltinModule("node:util").parseEnv(text);
  });
  return envUnderFiles(env, parsed);
}

export function main(all: CompiledServer, argv: readonly string[] = process.argv.slice(2)): void {
  const vault = new SecretVault();
  // The log is best effort: when stderr's reader has gone (a client that closed its end of the pipe, a log
  // collector that died), a write fails with EPIPE, and an unhandled stream error would end the process.
  process.stderr.on("error", () => {});
  const write = (line: string): void => {
    if (!process.stderr.destroyed) process.stderr.write(`${line}\n`);
  };
  let logger: Logger = createLogger(vault, write, { format: "text", level: "info" });
  const log = (line: string): void => logger.line(line);
  let options: NodeOptions;
  // The tools this process serves: all of them, or the selection the options make.
  let compiled = all;
  let env: Record<string, string | undefined>;
  let policyOptions: NetworkPolicyOptions;
  try {
    options = parseNodeOptions(argv, process.env);
    logger = createLogger(vault, write, { format: options.logFormat, level: options.logLevel });
    if (options.help) {
      process.stderr.write(`${USAGE}\n`);
      return;
    }
    if (options.version) {
      process.stderr.write(`${compiled.plan.name} ${compiled.plan.version}\n`);
      return;
    }
    compiled = selectTools(all, options.selection);
    const cacheProblem = compileCacheProblem(process.env);
    if (cacheProblem !== null) throw new StartError(cacheProblem);
    env = mergeSecretsFiles(process.env, options.secretsFiles);
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
  let auth: Authenticator | null;
  let trustProxy: IpRange[];
  try {
    auth = options.http ? createAuthenticator(authSettings(options, env, vault)) : null;
    trustProxy = parseTrustedRanges(options.trustProxy);
    policy = createNetworkPolicy(policyOptions);
    // proxy-from-env reads process.env itself, so the proxy variables come from the real environment only.
    proxy = proxySettingsFromEnv(process.env);
    // Proxy credentials are secrets like any other: no result, error or log line may show them.
    for (const credential of proxy?.credentials ?? []) {
      if (credential.length >= MIN_SECRET_LENGTH) vault.add("the proxy credential", credential);
    }
  } catch (error) {
    if (
      !(error instanceof NetworkPolicyError) &&
      !(error instanceof ProxyConfigError) &&
      !(error instanceof UsageError) &&
      !(error instanceof TrustProxyError)
    )
      throw error;
    log(`Error: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  if (proxy !== null) log(`Egress proxy: ${proxy.summary.join(", ")}`);
  const runner = new ToolRunner(compiled, {
    transport: createNodeTransport({
      policy,
      gate: new LookupGate(defaultLookupConcurrency(env)),
      proxy,
      ...(options.upstreamKeepAlive ? {} : { pool: false as const }),
    }),
    secretSource: envSecrets(env),
    vault,
    allowSecretsOverHttp: options.allowInsecureSecrets,
    log,
    // The record (a UUID among it) is made per call only when the log writes it.
    ...(logger.logsCalls ? { onCall: (record: CallRecord) => logger.call(record) } : {}),
  });
  const prepared = runner.prepareSecrets();
  for (const warning of prepared.warnings) log(`Warning: ${warning}`);
  if (prepared.errors.length > 0) {
    for (const error of prepared.errors) log(`Error: ${error}`);
    process.exitCode = 1;
    return;
  }
  if (options.allowInsecureSecrets === true)
    log("!! --allow-insecure-secrets: secrets may travel over plain http. Never use this in production. !!");
  else if (options.allowInsecureSecrets === "loopback")
    log(
      "!! --allow-insecure-secrets-to-loopback: secrets may travel over plain http to loopback addresses. Never use this in production. !!",
    );
  let telemetry: Telemetry = NO_TELEMETRY;
  try {
    const settings = telemetrySettings(env, options.otel, compiled.plan.name);
    if (settings !== null) {
      // The collector's headers usually carry a backend's API key: redacted like a secret.
      for (const [, value] of settings.headers)
        if (value.length >= MIN_SECRET_LENGTH) vault.add("an OTLP header", value);
      telemetry = new OtlpTelemetry(settings, {
        resource: {
          "service.name": settings.serviceName,
          "service.version": compiled.plan.version,
          "telemetry.sdk.name": "kervanc",
          "telemetry.sdk.language": "nodejs",
        },
        log,
        redact: (text) => vault.redactText(text),
        timers: true,
      });
      log(telemetryLine(settings));
    }
  } catch (error) {
    if (!(error instanceof TelemetryConfigError)) throw error;
    log(`Error: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  const stdioCaller = options.stdioCaller ?? STDIO_CALLER;
  if (options.stdioCaller !== null)
    log(
      "!! KERVANC_STDIO_CALLER_HEADERS / KERVANC_STDIO_SUBJECT_TOKEN: stdio calls carry a development caller's headers and token. Never use this in production. !!",
    );
  const factory = options.discovery
    ? createDiscoveryFactory(compiled, runner, options.schemaProfile, stdioCaller, telemetry)
    : createServerFactory(compiled, runner, options.schemaProfile, stdioCaller, telemetry);
  // A report can quote what a client sent: over stdio it is made one line here; over HTTP the handler makes it
  // one line, cut and throttled (http-handler.ts), and cutting it again would lose its count of what was cut.
  const onerror = (error: Error): void => log(`Error: ${oneLine(error.message)}`);
  const onHttpError = (error: Error): void => log(`Error: ${error.message}`);
  if (!options.http) {
    // The guard answers oversized and malformed lines itself, so the SDK's transport sees only valid messages
    // and never reaches its own buffer limit (which would close it).
    const input = guardStdio(process.stdin, process.stdout, { log });
    // The SDK's transport waits for a drain with one listener per answer written while stdout is full; the
    // guard bounds how many answers can wait (MAX_OUTPUT_BACKLOG_BYTES), so many listeners are no leak, and
    // Node's warning about them would be a line of noise (and not JSON with --log-format json).
    process.stdout.setMaxListeners(0);
    const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: 2 * MAX_STDIO_MESSAGE_BYTES });
    const handle = serveStdio(factory, { legacy: "serve", onerror, transport });
    const stop = (): void => {
      void handle
        .close()
        .then(() => telemetry.shutdown(TELEMETRY_SHUTDOWN_MS))
        .finally(() => process.exit(0));
    };
    // A client that closes its end: what telemetry holds goes out before the process ends (the export keeps it
    // alive; the export timers do not).
    process.stdin.once("end", () => void telemetry.flush());
    // Handlers go in before the readiness line: a supervisor may signal as soon as it reads it.
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    log(
      `Loaded ${compiled.plan.name} ${compiled.plan.version}: ${servedCount(all, compiled, options.selection)}${options.discovery ? ", in discovery mode" : ""}`,
    );
    return;
  }
  const exposed = exposure(options.host, options.allowedHosts);
  if (auth === null && exposed !== null) {
    // Whatever the options said, no authenticator came of them: exposed, that is served only when asked.
    if (!options.insecureNoAuth) {
      log(`Error: ${exposed} needs authentication, and none is configured.`);
      process.exitCode = 2;
      return;
    }
    log("!! --insecure-no-auth: /mcp is served without authentication to anyone who can reach this port. !!");
  }
  const allowed = options.allowedHosts.length > 0 ? [...options.allowedHosts] : undefined;
  const handler = createHttpHandler(factory, {
    ...(allowed ? { allowedHosts: allowed } : {}),
    onerror: onHttpError,
    auth,
    clientLimit: new ClientRateLimit(options.clientRateLimit),
    health: { name: compiled.plan.name, version: compiled.plan.version, tools: compiled.tools.length },
    onrefused: (refusal) => logger.refused(refusal.status, refusal.reason),
    // Without authentication, only clients on this host are served: a request a proxy relayed (a reverse proxy
    // on this host reaches the server over loopback) is refused, unless the operator said --insecure-no-auth.
    ...(auth === null && !options.insecureNoAuth
      ? {
          refuseRelayed: {
            fix: "authentication: --auth-tokens-file FILE (or KERVANC_AUTH_TOKENS), or --oauth-issuer with --oauth-jwks-url; or pass --insecure-no-auth to serve relayed clients without it, or --trust-proxy for the proxy's address if it authenticates clients itself",
            log,
          },
        }
      : {}),
  });
  serveNodeHttp(handler, { host: options.host, port: options.port, log, limits: options.limits, trustProxy }).then(
    (server) => {
      let stopping = false;
      const stop = (): void => {
        if (stopping) return;
        stopping = true;
        log("Stopping: waiting for calls in flight.");
        void server
          .close(options.drainMs)
          .then(() => telemetry.shutdown(TELEMETRY_SHUTDOWN_MS))
          .finally(() => process.exit(0));
      };
      // Handlers go in before the readiness line: a supervisor may signal as soon as it reads it.
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      stopWithParent(stop);
      log(
        `Loaded ${compiled.plan.name} ${compiled.plan.version}: ${servedCount(all, compiled, options.selection)}${options.discovery ? ", in discovery mode" : ""}`,
      );
      logger.ready(`Serving ${compiled.plan.name} on ${server.url}`);
    },
    (error: unknown) => {
      const code = typeof error === "object" && error !== null && "code" in error ? ` (${String(error.code)})` : "";
      log(`Error: cannot listen on ${options.host}:${options.port}${code}.`);
      process.exitCode = 1;
    },
  );
}

/** How long a stopping server waits for its last telemetry export. */
const TELEMETRY_SHUTDOWN_MS = 2000;

/** The start-up line that names where telemetry goes (the collector is the operator's, not a tool's). */
function telemetryLine(settings: TelemetrySettings): string {
  const where = [
    ...(settings.tracesUrl !== null ? [`traces to ${settings.tracesUrl}`] : []),
    ...(settings.metricsUrl !== null ? [`metrics to ${settings.metricsUrl}`] : []),
  ].join(", ");
  const propagate = settings.propagateTo.size > 0 ? [...settings.propagateTo].join(", ") : "no upstream host";
  return `Telemetry: ${where} (OTLP/HTTP JSON, service ${settings.serviceName}); traceparent sent to ${propagate}.`;
}

/**
 * An HTTP server started by a Node parent with an IPC channel (`kervanc dev --http` does that) stops when the
 * channel closes, which it does when the parent ends however it ends, SIGKILL included: such a server reads no
 * stdin, so without this it outlived its parent and went on serving on a port nobody watched. Node counts the
 * channel as keeping the process alive only while something listens on it, which here is only a server that
 * serves anyway; a server started any other way has no channel.
 */
function stopWithParent(stop: () => void): void {
  if ((process as { channel?: unknown }).channel !== undefined) process.once("disconnect", stop);
}

/** The tokens of KERVANC_AUTH_TOKENS: comma-separated, blanks around each dropped, empty entries skipped. */
function authTokensFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return (env["KERVANC_AUTH_TOKENS"] ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token !== "");
}

/** The authentication settings from the options, the tokens file and KERVANC_AUTH_TOKENS; tokens go in the vault. */
export function authSettings(
  options: NodeOptions,
  env: Readonly<Record<string, string | undefined>>,
  vault: SecretVault,
): AuthSettings {
  if (options.oauth !== null) {
    const name = options.allowedHosts[0] ?? options.host;
    // An IPv6 address goes in brackets, or the URL would not parse.
    const host = name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
    const audience = options.oauth.audience ?? `http://${host}:${options.port}/mcp`;
    return { tokens: [], oauth: { issuer: options.oauth.issuer, jwksUrl: options.oauth.jwksUrl, audience } };
  }
  const tokens: string[] = [];
  if (options.authTokensFile !== null) {
    let text: string;
    try {
      text = process.getBuiltinModule("node:fs").readFileSync(options.authTokensFile, "utf8");
    } catch (error) {
      const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unreadable";
      throw new UsageError(`Cannot read --auth-tokens-file ${options.authTokensFile} (${code}).`);
    }
    for (const line of text.split(/\r?\n/)) {
      const token = line.trim();
      if (token !== "" && !token.startsWith("#")) tokens.push(token);
    }
    if (tokens.length === 0) throw new UsageError(`--auth-tokens-file ${options.authTokensFile} holds no token.`);
  }
  tokens.push(...authTokensFromEnv(env));
  for (const [index, token] of tokens.entries()) {
    const problem = authTokenProblem(index, token);
    if (problem !== null) throw new UsageError(problem);
    vault.add(`bearer token ${index + 1}`, token);
  }
  return { tokens, oauth: null };
}
