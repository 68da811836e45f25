/**
 * The fetch-handler entry of a generated server: `export default { fetch }` for Cloudflare Workers (workerd),
 * Deno (`deno serve`) and Bun (`bun run` / `Bun.serve`).
 *
 * Configuration comes from the platform's environment: secrets by their names (a Workers `env` binding, or
 * `Deno.env`/`process.env`), plus `KERVANC_ALLOWED_HOSTS` (comma-separated Host names clients use; default
 * localhost only), `KERVANC_DENY_NETWORK` (comma-separated CIDRs) and `KERVANC_ALLOW_PRIVATE_NETWORK=1` (tests
 * only). The server is built on the first request, because Workers hand out `env` only with a request.
 * Requests go out through the fetch transport; see net/fetch-transport.ts for which network checks apply there.
 */
import { createHttpHandler, type HttpHandler } from "./http-handler.ts";
import { createServerFactory } from "./mcp.ts";
import { allowPrivateNetwork, createNetworkPolicy } from "./net/address.ts";
import { createFetchTransport } from "./net/fetch-transport.ts";
import type { CompiledServer } from "./plan.ts";
import { ToolRunner } from "./runner.ts";
import { SecretVault, type SecretSource } from "./secrets.ts";

type EnvLike = Readonly<Record<string, unknown>>;

/** Reads a variable from a Workers binding first, then from the platform's process environment. */
function platformEnv(binding: EnvLike | undefined): (name: string) => string | undefined {
  const g = globalThis as { Deno?: { env: { get(name: string): string | undefined } }; process?: { env: Record<string, string | undefined> } };
  return (name) => {
    const bound = binding !== undefined && Object.hasOwn(binding, name) ? binding[name] : undefined;
    if (typeof bound === "string") return bound === "" ? undefined : bound;
    try {
      const value = g.Deno ? g.Deno.env.get(name) : g.process?.env[name];
      return value === undefined || value === "" ? undefined : value;
    } catch {
      // Deno without --allow-env for this name: treat as not configured.
      return undefined;
    }
  };
}

const list = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

export function createWorker(compiled: CompiledServer): { fetch(request: Request, env?: unknown): Promise<Response> } {
  const vault = new SecretVault();
  const log = (line: string): void => console.error(vault.redactText(line));
  let handler: HttpHandler | null = null;
  let failure: string | null = null;

  function init(binding: EnvLike | undefined): void {
    const env = platformEnv(binding);
    const source: SecretSource = { get: (name) => env(name) };
    const policy = createNetworkPolicy({
      ...(env("KERVANC_ALLOW_PRIVATE_NETWORK") === "1" ? allowPrivateNetwork() : {}),
      denyList: list(env("KERVANC_DENY_NETWORK")),
      // A fetch-only platform has no interface list to read; the address check runs on IP literals only.
      localAddresses: [],
    });
    const runner = new ToolRunner(compiled, { transport: createFetchTransport({ policy }), secretSource: source, vault, allowSecretsOverHttp: false, log });
    const prepared = runner.prepareSecrets();
    for (const warning of prepared.warnings) log(`Warning: ${warning}`);
    if (prepared.errors.length > 0) {
      failure = prepared.errors.join(" ");
      for (const error of prepared.errors) log(`Error: ${error}`);
      return;
    }
    const allowed = list(env("KERVANC_ALLOWED_HOSTS"));
    handler = createHttpHandler(createServerFactory(compiled, runner), {
      ...(allowed.length > 0 ? { allowedHosts: allowed } : {}),
      onerror: (error) => log(`Error: ${error.message}`),
    });
    log(`Loaded ${compiled.plan.name} ${compiled.plan.version}: ${compiled.tools.length} tool(s)`);
  }

  return {
    async fetch(request: Request, env?: unknown): Promise<Response> {
      if (handler === null && failure === null) {
        try {
          init(env !== null && typeof env === "object" && !(env instanceof Request) ? (env as EnvLike) : undefined);
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
          log(`Error: ${failure}`);
        }
      }
      if (handler === null) {
        return new Response(`This server could not start: ${vault.redactText(failure ?? "unknown error")}\n`, { status: 500, headers: { "content-type": "text/plain" } });
      }
      return handler.fetch(request);
    },
  };
}
