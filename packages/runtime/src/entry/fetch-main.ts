/**
 * The fetch-handler entry of a generated server: `export default { fetch }` for Cloudflare Workers (workerd),
 * Deno (`deno serve`) and Bun (`bun worker.mjs`). The bundle of this entry, worker.mjs, imports nothing: no
 * Node built-in, so workerd loads it without `nodejs_compat`.
 *
 * Configuration comes from the platform's environment: secrets by their names (a Workers `env` binding, or
 * `Deno.env`/`process.env`), plus the WORKER_ENV names: `KERVANC_ALLOWED_HOSTS` (comma-separated Host names
 * clients use; default localhost only), `KERVANC_DENY_NETWORK` (comma-separated CIDRs) and
 * `KERVANC_ALLOW_PRIVATE_NETWORK=1` (tests only; refused when `NODE_ENV=production`, as the Node entry's
 * `--allow-private-network` is). Authentication, as server.mjs has it: `KERVANC_AUTH_TOKENS` (comma-separated
 * bearer tokens), or `KERVANC_OAUTH_ISSUER` with `KERVANC_OAUTH_JWKS_URL` (and `KERVANC_OAUTH_AUDIENCE`,
 * default https://<first KERVANC_ALLOWED_HOSTS name>/mcp). When `KERVANC_ALLOWED_HOSTS` names a host that
 * is not loopback, the handler refuses to start without authentication unless `KERVANC_INSECURE_NO_AUTH=1`. The server is built on the first request, because Workers hand out `env` only
 * with a request. Requests go out through the fetch transport; see net/fetch-transport.ts for which network
 * checks apply there.
 */
// First: before the SDK builds its schemas.
import "./zod-jitless.ts";
import { BodyBudget, DEFAULT_BODY_LIMITS, DEFAULT_REQUEST_TIMEOUT_MS } from "../serve/body-budget.ts";
import { raceSignal } from "../call/deadline.ts";
import { authTokenProblem, createAuthenticator, oauthUrlProblem } from "../serve/auth.ts";
import { createHttpHandler, type HttpHandler } from "../serve/http-handler.ts";
import { isLoopbackHost } from "../net/loopback.ts";
import { createDiscoveryFactory } from "../serve/discovery.ts";
import { createServerFactory } from "../serve/mcp.ts";
import { schemaProfile } from "../serve/schema-profiles.ts";
import { allowPrivateNetwork, createNetworkPolicy } from "../net/address.ts";
import { createFetchTransport, type FetchTransportOptions } from "../net/fetch-transport.ts";
import type { CompiledServer } from "../plan.ts";
import {
  parseNameList,
  type SelectionLabels,
  selectTools,
  servedCount,
  type ToolSelection,
} from "../serve/tool-selection.ts";
import { ToolRunner } from "../call/runner.ts";
import { MIN_SECRET_LENGTH, SecretVault, type SecretSource } from "../secrets/secrets.ts";
import { STDIO_CALLER } from "../secrets/credentials/caller.ts";
import { NO_TELEMETRY, OtlpTelemetry, type Telemetry } from "../telemetry/telemetry.ts";
import { telemetrySettings } from "../telemetry/telemetry-settings.ts";
import { BodyRefused, webBody } from "../serve/web-body.ts";

/** The settings the fetch handler reads from its environment, besides the secrets. */
export const WORKER_ENV = {
  allowedHosts: "KERVANC_ALLOWED_HOSTS",
  authTokens: "KERVANC_AUTH_TOKENS",
  oauthIssuer: "KERVANC_OAUTH_ISSUER",
  oauthJwksUrl: "KERVANC_OAUTH_JWKS_URL",
  oauthAudience: "KERVANC_OAUTH_AUDIENCE",
  insecureNoAuth: "KERVANC_INSECURE_NO_AUTH",
  denyNetwork: "KERVANC_DENY_NETWORK",
  allowPrivateNetwork: "KERVANC_ALLOW_PRIVATE_NETWORK",
  tools: "KERVANC_TOOLS",
  toolsets: "KERVANC_TOOLSETS",
  readOnly: "KERVANC_READ_ONLY",
  discovery: "KERVANC_DISCOVERY",
  schemaProfile: "KERVANC_SCHEMA_PROFILE",
  otelPropagateTo: "KERVANC_OTEL_PROPAGATE_TO",
} as const;

/** The OpenTelemetry variables the fetch handler reads (telemetry/telemetry-settings.ts), besides WORKER_ENV's. */
const OTEL_ENV = [
  "OTEL_SDK_DISABLED",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_TIMEOUT",
  "OTEL_SERVICE_NAME",
  "OTEL_TRACES_SAMPLER",
  "OTEL_TRACES_SAMPLER_ARG",
  "OTEL_TRACES_EXPORTER",
  "OTEL_METRICS_EXPORTER",
  "OTEL_BSP_SCHEDULE_DELAY",
  "OTEL_METRIC_EXPORT_INTERVAL",
] as const;

type EnvLike = Readonly<Record<string, unknown>>;

interface PlatformGlobals {
  readonly Deno?: { readonly env: { get(name: string): string | undefined } };
  readonly Bun?: { readonly dns?: { lookup?(hostname: string): Promise<readonly { readonly address: string }[]> } };
  readonly process?: { readonly env: Record<string, string | undefined> };
}

/**
 * Reads a variable from a Workers binding first, then from the platform's process environment. Deno and Bun
 * pass something else as the handler's second argument (connection info, the server); it holds no own
 * property named like a variable, so it never shadows one.
 */
function platformEnv(binding: EnvLike | undefined): (name: string) => string | undefined {
  const g = globalThis as PlatformGlobals;
  return (name) => {
    const bound = binding !== undefined && Object.hasOwn(binding, name) ? binding[name] : undefined;
    if (typeof bound === "string") return bound === "" ? undefined : bound;
    try {
      const value = g.Deno ? g.Deno.env.get(name) : g.process?.env[name];
      return value === undefined || value === "" ? undefined : value;
    } catch {
      // Deno without --allow-env for this name: not configured (and so never the test-only allowance).
      return undefined;
    }
  };
}

/**
 * A resolver whose answers the transport checks, where the platform has one that needs no extra permission.
 * Bun's `dns.lookup` is the system resolver (the same answers its fetch gets, modulo a change between the two
 * lookups). Deno's `Deno.resolveDns` is not used: it queries the nameserver itself, which needs
 * `--allow-net=<nameserver>:53` on top of the narrow egress flags. Workers have no resolver at all.
 */
function platformResolver(): FetchTransportOptions["resolve"] {
  const dns = (globalThis as PlatformGlobals).Bun?.dns;
  // Called on its object: a method taken off it may need its `this`.
  const lookup = dns?.lookup?.bind(dns);
  if (typeof lookup !== "function") return undefined;
  return async (hostname, signal) => {
    const answers = await raceSignal(lookup(hostname), signal);
    return answers.map((answer) => answer.address);
  };
}

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

/**
 * The client's address, where the platform says it: Deno passes connection info (`remoteAddr`) as the handler's
 * second argument, Bun its server (`requestIP`), and self-hosted workerd puts the connection's `address:port`
 * (`127.0.0.1:35038`, `[::1]:41112`) in `request.cf.clientIp`, which a client cannot set unless the operator's
 * configuration reads the cf object from a header (`cfBlobHeader`, for a proxy in front). Cloudflare's own
 * network gives none there; the Host check and authentication decide.
 */
function peerAddress(request: Request, second: unknown): string | undefined {
  const cf = (request as { cf?: { clientIp?: unknown } }).cf;
  if (typeof cf === "object" && cf !== null && typeof cf.clientIp === "string") return withoutPort(cf.clientIp);
  if (second === null || typeof second !== "object") return undefined;
  const remote = (second as { remoteAddr?: { hostname?: unknown } }).remoteAddr;
  if (typeof remote === "object" && remote !== null && typeof remote.hostname === "string") return remote.hostname;
  const requestIP = (second as { requestIP?: unknown }).requestIP;
  if (typeof requestIP !== "function") return undefined;
  try {
    const answer = (requestIP as (r: Request) => { address?: unknown } | null).call(second, request);
    return typeof answer?.address === "string" ? answer.address : undefined;
  } catch {
    return undefined;
  }
}

/** `address:port` or `[v6]:port` without the port; an address without one as it is. */
function withoutPort(text: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(text);
  if (bracketed) return bracketed[1]!;
  const v4 = /^([^:]*):\d+$/.exec(text);
  return v4 ? v4[1]! : text;
}

/** Whether a peer address is this host's loopback (an IPv4-mapped 127.x included), by the one loopback rule. */
const loopbackPeer = (address: string): boolean => isLoopbackHost(address.replace(/^::ffff:/i, ""));

const BINDING_LABELS: SelectionLabels = {
  tools: `${WORKER_ENV.tools}=`,
  toolsets: `${WORKER_ENV.toolsets}=`,
  readOnly: `${WORKER_ENV.readOnly}=1`,
};

/** The tool selection the bindings make (the same as server.mjs's `--tools`, `--toolsets` and `--read-only`). */
function selectionFromEnv(env: (name: string) => string | undefined): ToolSelection {
  const names = (name: string): string[] | null => {
    const raw = env(name);
    return raw === undefined ? null : parseNameList(name, raw);
  };
  return {
    tools: names(WORKER_ENV.tools),
    toolsets: names(WORKER_ENV.toolsets),
    readOnly: flag(env, WORKER_ENV.readOnly),
  };
}

/** A switch binding: 1 on, 0 or unset off, anything else a mistake worth stopping for. */
function flag(env: (name: string) => string | undefined, name: string): boolean {
  const value = env(name);
  if (value !== undefined && value !== "1" && value !== "0") throw new Error(`${name} must be 1 or 0.`);
  return value === "1";
}

/**
 * The default export of worker.mjs. Besides `fetch`, Bun reads `hostname` and `development` from the default
 * export it serves: loopback, and no development error pages (Bun's default is every interface). Workers and
 * Deno ignore both; Deno takes the address from `deno serve --host`.
 */
export interface FetchHandler {
  fetch(request: Request, env?: unknown, platform?: unknown): Promise<Response>;
  readonly hostname: string;
  readonly development: boolean;
}

export function createFetchHandler(all: CompiledServer): FetchHandler {
  const vault = new SecretVault();
  const log = (line: string): void => console.error(vault.redactText(line));
  let handler: HttpHandler | null = null;
  let failure: string | null = null;
  // One budget for the bodies this process (Deno, Bun) or isolate (workerd) holds at once, as server.mjs has.
  const bodies = new BodyBudget(DEFAULT_BODY_LIMITS);
  /**
   * Without authentication (and without KERVANC_INSECURE_NO_AUTH=1) only clients on this host are served. The
   * Host check alone does not say so: a remote client can send `Host: localhost`, and on Deno (`deno serve`
   * listens on every interface unless --host says otherwise) or Bun bound publicly it would be served /mcp.
   */
  let loopbackOnly = false;
  /** OpenTelemetry, when configured: exported at each request's end (`waitUntil` where the platform has it). */
  let telemetry: Telemetry = NO_TELEMETRY;

  function failAudience(): never {
    throw new Error(`OAuth needs ${WORKER_ENV.oauthAudience} (this server's /mcp URL) or ${WORKER_ENV.allowedHosts}.`);
  }

  function init(binding: EnvLike | undefined): void {
    const env = platformEnv(binding);
    const allowPrivate = env(WORKER_ENV.allowPrivateNetwork) === "1";
    if (allowPrivate && env("NODE_ENV") === "production") {
      throw new Error(`${WORKER_ENV.allowPrivateNetwork} is refused when NODE_ENV=production.`);
    }
    const selection = selectionFromEnv(env);
    const compiled = selectTools(all, selection, BINDING_LABELS);
    const source: SecretSource = { get: (name) => env(name) };
    const policy = createNetworkPolicy({
      ...(allowPrivate ? allowPrivateNetwork() : {}),
      denyList: list(env(WORKER_ENV.denyNetwork)),
      // A fetch-only platform has no interface list to read; the address check runs on IP literals and on
      // resolver answers.
      localAddresses: [],
    });
    const resolve = platformResolver();
    // Bun's fetch decodes ahead of its reader, so a small compressed body could fill memory there whatever the
    // size cap (see FetchTransportOptions.decodeHere); Deno's and workerd's decode only as far as they are read.
    const decodeHere = (globalThis as PlatformGlobals).Bun !== undefined;
    const transport = createFetchTransport({ policy, decodeHere, ...(resolve ? { resolve } : {}) });
    const runner = new ToolRunner(compiled, {
      transport,
      secretSource: source,
      vault,
      allowSecretsOverHttp: false,
      log,
    });
    const prepared = runner.prepareSecrets();
    for (const warning of prepared.warnings) log(`Warning: ${warning}`);
    if (prepared.errors.length > 0) {
      failure = prepared.errors.join(" ");
      for (const error of prepared.errors) log(`Error: ${error}`);
      return;
    }
    const allowed = list(env(WORKER_ENV.allowedHosts));
    const tokens = list(env(WORKER_ENV.authTokens));
    const issuer = env(WORKER_ENV.oauthIssuer);
    const jwksUrl = env(WORKER_ENV.oauthJwksUrl);
    if ((issuer === undefined) !== (jwksUrl === undefined))
      throw new Error(`OAuth needs both ${WORKER_ENV.oauthIssuer} and ${WORKER_ENV.oauthJwksUrl}.`);
    for (const [name, value] of [
      [WORKER_ENV.oauthIssuer, issuer],
      [WORKER_ENV.oauthJwksUrl, jwksUrl],
      [WORKER_ENV.oauthAudience, env(WORKER_ENV.oauthAudience)],
    ] as const) {
      const problem = value === undefined ? null : oauthUrlProblem(name, value, name === WORKER_ENV.oauthJwksUrl);
      if (problem !== null) throw new Error(problem);
    }
    if (issuer !== undefined && tokens.length > 0)
      throw new Error("Choose one kind of authentication: bearer tokens or OAuth, not both.");
    for (const [index, token] of tokens.entries()) {
      const problem = authTokenProblem(index, token);
      if (problem !== null) throw new Error(problem);
      vault.add(`bearer token ${index + 1}`, token);
    }
    // The default audience is never taken from a request: on Deno and Bun the request's URL comes from its Host
    // header, and an attacker's first request would choose the audience. The Host names clients use decide.
    const audience =
      env(WORKER_ENV.oauthAudience) ??
      (allowed.length > 0 ? `https://${allowed[0]}/mcp` : issuer !== undefined ? failAudience() : "");
    const auth = createAuthenticator({
      tokens,
      oauth: issuer !== undefined && jwksUrl !== undefined ? { issuer, jwksUrl, audience } : null,
    });
    if (auth === null && allowed.some((host) => !isLoopbackHost(host)) && env(WORKER_ENV.insecureNoAuth) !== "1") {
      throw new Error(
        `${WORKER_ENV.allowedHosts} names a public host but no authentication is configured: set ${WORKER_ENV.authTokens}, or ${WORKER_ENV.oauthIssuer} and ${WORKER_ENV.oauthJwksUrl} (or ${WORKER_ENV.insecureNoAuth}=1 to serve without).`,
      );
    }
    loopbackOnly = auth === null && env(WORKER_ENV.insecureNoAuth) !== "1";
    const discovery = flag(env, WORKER_ENV.discovery);
    const profileName = env(WORKER_ENV.schemaProfile);
    const profile = profileName === undefined ? null : schemaProfile(WORKER_ENV.schemaProfile, profileName);
    const otelEnv = Object.fromEntries([...OTEL_ENV, WORKER_ENV.otelPropagateTo].map((name) => [name, env(name)]));
    const settings = telemetrySettings(otelEnv, {}, compiled.plan.name);
    if (settings !== null) {
      for (const [, value] of settings.headers)
        if (value.length >= MIN_SECRET_LENGTH) vault.add("an OTLP header", value);
      telemetry = new OtlpTelemetry(settings, {
        resource: {
          "service.name": settings.serviceName,
          "service.version": compiled.plan.version,
          "telemetry.sdk.name": "kervanc",
          "telemetry.sdk.language": "webjs",
        },
        log,
        redact: (text: string) => vault.redactText(text),
        timers: false,
      });
      log(
        `Telemetry: OTLP/HTTP JSON to ${settings.tracesUrl ?? settings.metricsUrl}, exported at the end of each request.`,
      );
    }
    const factory = discovery
      ? createDiscoveryFactory(compiled, runner, profile, STDIO_CALLER, telemetry)
      : createServerFactory(compiled, runner, profile, STDIO_CALLER, telemetry);
    handler = createHttpHandler(factory, {
      ...(allowed.length > 0 ? { allowedHosts: allowed } : {}),
      onerror: (error) => log(`Error: ${error.message}`),
      auth,
      // As on Node: without authentication a request a proxy relayed is refused (a reverse proxy in front of
      // `deno serve` or Bun on this host reaches it over loopback). There is no --trust-proxy here.
      ...(loopbackOnly
        ? {
            refuseRelayed: {
              fix: `authentication: ${WORKER_ENV.authTokens}, or ${WORKER_ENV.oauthIssuer} with ${WORKER_ENV.oauthJwksUrl}; or set ${WORKER_ENV.insecureNoAuth}=1 to serve relayed clients without it`,
              log,
            },
          }
        : {}),
      health: { name: compiled.plan.name, version: compiled.plan.version, tools: compiled.tools.length },
    });
    log(
      `Loaded ${compiled.plan.name} ${compiled.plan.version}: ${servedCount(all, compiled, selection, BINDING_LABELS)}${discovery ? ", in discovery mode" : ""}`,
    );
  }

  return {
    hostname: "127.0.0.1",
    development: false,
    async fetch(request: Request, env?: unknown, platform?: unknown): Promise<Response> {
      try {
        return await serve(request, env);
      } finally {
        // Spans of this request go out once its call has ended (a streamed response can leave before): workerd
        // keeps the isolate for them with waitUntil; Deno and Bun keep running anyway.
        if (telemetry.enabled) {
          const exported = telemetry.settled();
          const waitUntil = (platform as { waitUntil?: (work: Promise<unknown>) => void } | undefined)?.waitUntil;
          if (typeof waitUntil === "function") waitUntil.call(platform, exported);
        }
      }
    },
  };

  async function serve(request: Request, env?: unknown): Promise<Response> {
    {
      if (handler === null && failure === null) {
        try {
          init(env !== null && typeof env === "object" && !(env instanceof Request) ? (env as EnvLike) : undefined);
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
          log(`Error: ${failure}`);
        }
      }
      if (handler === null) {
        // The reason names the operator's settings and secrets (redacted, but still names and lengths): it goes to
        // the log, which the operator reads, and not to a client, who may be anyone on the network.
        return new Response("This server could not start; its log says why.\n", {
          status: 500,
          headers: { "content-type": "text/plain" },
        });
      }
      if (loopbackOnly) {
        const peer = peerAddress(request, env);
        if (peer !== undefined && !loopbackPeer(peer)) {
          return new Response(
            `Forbidden: without authentication this server answers only clients on its own host. Set ${WORKER_ENV.authTokens} (or ${WORKER_ENV.oauthIssuer} and ${WORKER_ENV.oauthJwksUrl}).\n`,
            { status: 403, headers: { "content-type": "text/plain" } },
          );
        }
      }
      if (request.body === null || request.method === "GET" || request.method === "HEAD") return handler.fetch(request);
      // The body is read by the handler only after its checks, and under the budget (web-body.ts).
      const body = webBody(request, bodies, DEFAULT_REQUEST_TIMEOUT_MS);
      try {
        return await handler.fetch(request, { body: () => body.read() });
      } catch (error) {
        if (error instanceof BodyRefused) return error.response();
        throw error;
      } finally {
        body.release();
      }
    }
  }
}
