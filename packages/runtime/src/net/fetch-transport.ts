/**
 * The hop transport for platforms that only offer `fetch` (Cloudflare Workers, and the fetch-handler build on
 * Deno and Bun).
 *
 * What still applies there: the scheme rules, the egress list (every hop, redirects included, because redirects
 * are followed here by hand with `redirect: "manual"`), the address policy for IP-literal hosts, the address
 * policy for every DNS answer where the platform can resolve names for us (`resolve`: `Bun.dns.lookup`),
 * timeouts, size limits and content codings. What cannot apply, because fetch gives no control over DNS or
 * sockets: pinning the connection to the checked addresses (the platform resolves the name again and may get
 * another answer), and checking the connected socket's address. Without a resolver, a host name's answers are
 * not checked here at all: the host must be on the egress list (it always is, by construction), and the
 * platform's own rules are the last line (Workers cannot reach private networks; workerd's network service
 * allows only public addresses unless configured otherwise; Deno's `--allow-net` and `--deny-net`). Where a
 * check cannot run, the request is refused rather than sent unchecked: an unresolvable name, an empty answer or
 * a resolver error blocks it, and so does a redirect the platform hides (an opaque redirect) or a content
 * coding the platform may not have decoded. docs/runtime.md has the table per platform.
 */
import { ToolError } from "../call/errors.ts";
import { checkAddress, classifyHost, type NetworkPolicy } from "./address.ts";
import type { Hop, HopContext, HopResponse, HopTransport } from "./upstream.ts";

export interface FetchTransportOptions {
  readonly policy: NetworkPolicy;
  /** Resolves a host name to addresses, if the platform can (checked, not pinned). */
  readonly resolve?: (hostname: string, signal: AbortSignal) => Promise<readonly string[]>;
  readonly fetch?: typeof fetch;
  /**
   * Decode gzip and br here, with `DecompressionStream`, instead of letting the platform's fetch do it: for a
   * platform whose fetch decodes ahead of the reader. Bun's does: a 2 KB brotli body that decodes to 2 GB took
   * one call to 110 MB and ten parallel calls to 1.4 GB (1.3 GB still held after), although each read stopped
   * at 1 MiB. Its fetch then gets `decompress: false`, and the hop loop caps the wire bytes and the decoded
   * bytes as it does on Node, reading the decoder only as far as it needs.
   */
  readonly decodeHere?: boolean;
}

/**
 * The codings requested from upstreams, and the only ones accepted back. Every fetch platform decodes gzip and
 * br itself (measured: Node's undici, Deno, Bun and workerd). `deflate` is left out on purpose: Node and Bun
 * decode it, but Deno and workerd hand the still-compressed bytes over with the header intact, and nothing in
 * the response says which happened, so a deflate body could not be read correctly everywhere.
 */
export const FETCH_ACCEPT_ENCODING = "gzip, br";
const PLATFORM_DECODED = new Set(["gzip", "br", "identity"]);

function blocked(host: string, reason: string): ToolError {
  return new ToolError(`Request to ${host} was blocked: it resolves to a disallowed address (${reason}).`);
}

/**
 * Decoders for the codings asked for, where the transport decodes itself. "brotli" is not among the types'
 * CompressionFormat yet; Bun's DecompressionStream takes it.
 */
function webDecoders(): Map<string, () => TransformStream<Uint8Array, Uint8Array>> {
  const make = (format: string) => (): TransformStream<Uint8Array, Uint8Array> =>
    new DecompressionStream(format as "gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
  return new Map([
    ["gzip", make("gzip")],
    ["br", make("brotli")],
  ]);
}

export function createFetchTransport(options: FetchTransportOptions): HopTransport {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const decodeHere = options.decodeHere === true;
  return {
    decoders: decodeHere ? webDecoders() : new Map(),
    decodesBodies: !decodeHere,
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
        if (answers.length === 0)
          throw new ToolError(`Request to ${host} was blocked: the host name resolved to no addresses.`);
        for (const address of answers) {
          const verdict = checkAddress(address, options.policy);
          if (!verdict.ok) throw blocked(host, verdict.reason);
        }
      }
      const headers = new Headers();
      for (const [name, value] of hop.headers) {
        if (name.toLowerCase() !== "accept-encoding") headers.append(name, value);
      }
      headers.set("accept-encoding", FETCH_ACCEPT_ENCODING);
      const response = await doFetch(hop.url, {
        method: hop.method,
        headers,
        ...(hop.body === null ? {} : { body: hop.body }),
        redirect: "manual",
        signal: ctx.signal,
        // Bun's own option (other platforms ignore it): hand the body over as it came.
        ...(decodeHere ? { decompress: false } : {}),
      } as RequestInit);
      const body = response.body;
      const discard = (): void => {
        void body?.cancel().catch(() => {});
      };
      // A browser-style opaque redirect hides the status and the location: it can be neither checked nor followed.
      if (response.type === "opaqueredirect" || response.status === 0) {
        discard();
        throw new ToolError(
          `Request to ${host} was redirected, and this platform does not show where to; not followed.`,
        );
      }
      const responseHeaders = new Map<string, string>();
      response.headers.forEach((value, name) => responseHeaders.set(name.toLowerCase(), value));
      const coding = (responseHeaders.get("content-encoding") ?? "").trim().toLowerCase();
      // Several codings are refused by the hop loop; a single one must be one the platform is known to decode.
      if (coding !== "" && !coding.includes(",") && !PLATFORM_DECODED.has(coding)) {
        discard();
        throw new ToolError(`The response from ${host} uses an unsupported encoding.`);
      }
      return {
        status: response.status,
        headers: responseHeaders,
        body: body ? readStream(body) : emptyBody(),
        discard,
      };
    },
  };
}

/**
 * Reads a web stream chunk by chunk through its reader, which every platform has (async iteration of a
 * ReadableStream is newer and not everywhere). Stopping early cancels the stream, which frees the connection.
 */
async function* readStream(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const step = await reader.read();
      if (step.done) {
        done = true;
        return;
      }
      yield step.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}
