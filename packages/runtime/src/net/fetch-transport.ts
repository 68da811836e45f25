/**
 * The hop transport for platforms that only offer `fetch` (Cloudflare Workers, and the fetch-handler build on
 * Deno and Bun).
 *
 * What still applies there: the scheme rules, the egress list (every hop, redirects included, because redirects
 * are followed here by hand with `redirect: "manual"`), the address policy for IP-literal hosts, the address
 * policy for every DNS answer where the platform can resolve names for us (`resolve`, e.g. `Deno.resolveDns`),
 * timeouts, size limits and content codings. What cannot apply, because fetch gives no control over DNS or
 * sockets: pinning the connection to the checked addresses (a second DNS answer could differ), and checking the
 * connected socket's address. Without a resolver, a host name's answers are not checked at all: the host must be
 * on the egress list (it always is, by construction), and the platform's own egress rules are the last line
 * (Workers cannot reach private networks). Where a check cannot run, the request is refused rather than sent
 * unchecked: an unresolvable name, an empty answer or a resolver error blocks it.
 */
import { ToolError } from "../errors.ts";
import { checkAddress, classifyHost, type NetworkPolicy } from "./address.ts";
import type { Hop, HopContext, HopResponse, HopTransport } from "./upstream.ts";

export interface FetchTransportOptions {
  readonly policy: NetworkPolicy;
  /** Resolves a host name to addresses, if the platform can (checked, not pinned). */
  readonly resolve?: (hostname: string, signal: AbortSignal) => Promise<readonly string[]>;
  readonly fetch?: typeof fetch;
}

function blocked(host: string, reason: string): ToolError {
  return new ToolError(`Request to ${host} was blocked: it resolves to a disallowed address (${reason}).`);
}

export function createFetchTransport(options: FetchTransportOptions): HopTransport {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return {
    decoders: new Map(),
    decodesBodies: true,
    async send(hop: Hop, ctx: HopContext): Promise<HopResponse> {
      const host = hop.url.host;
      const kind = classifyHost(hop.url.hostname);
      if (kind.kind === "invalid") throw blocked(host, kind.reason);
      if (kind.kind === "ip") {
        const verdict = checkAddress(kind.address, options.policy);
        if (!verdict.ok) throw blocked(host, verdict.reason);
      } else if (options.resolve) {
        let answers: readonly string[];
        try {
          answers = await options.resolve(kind.name, ctx.signal);
        } catch {
          if (ctx.signal.aborted) throw new ToolError(`Request to ${host} timed out while resolving the host name.`);
          throw new ToolError(`Request to ${host} was blocked: the host name could not be resolved.`);
        }
        if (answers.length === 0) throw new ToolError(`Request to ${host} was blocked: the host name resolved to no addresses.`);
        for (const address of answers) {
          const verdict = checkAddress(address, options.policy);
          if (!verdict.ok) throw blocked(host, verdict.reason);
        }
      }
      const headers = new Headers();
      for (const [name, value] of hop.headers) headers.append(name, value);
      const response = await doFetch(hop.url, {
        method: hop.method,
        headers,
        ...(hop.body === null ? {} : { body: hop.body }),
        redirect: "manual",
        signal: ctx.signal,
      });
      const responseHeaders = new Map<string, string>();
      response.headers.forEach((value, name) => responseHeaders.set(name.toLowerCase(), value));
      const body = response.body;
      return {
        status: response.status,
        headers: responseHeaders,
        body: body ? (body as unknown as AsyncIterable<Uint8Array>) : emptyBody(),
        discard: () => {
          void body?.cancel().catch(() => {});
        },
      };
    },
  };
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}
