/**
 * One upstream exchange: the hop loop with its redirect rules, size limits and decoding.
 *
 * The platform-specific part (how a single hop resolves, connects and decodes) is a HopTransport; this module
 * holds the rules every platform shares, so the Node server and the fetch-handler build refuse the same things
 * with the same words. Every hop gets its own timeout; the call's deadline (the tool's own timeout or a
 * cancellation) covers the whole exchange. Both live in the call's one CallDeadline.
 */
import type { CallDeadline } from "../call/deadline.ts";
import { ToolError } from "../call/errors.ts";
import type { HttpLimits } from "../plan.ts";
import type { RenderedRequest } from "../call/render.ts";

export interface Hop {
  readonly method: string;
  readonly url: URL;
  readonly headers: readonly (readonly [string, string])[];
  /** Text (JSON, form) or bytes (the multipart-body extension's). */
  readonly body: string | Uint8Array | null;
}

/** A response's headers as the hop reads them: by lower-cased name, repeated headers joined with ", ". */
export interface HeaderLookup {
  get(name: string): string | undefined;
  /** Every header's (lower-cased) name, where the transport can list them (Node's can; the recording relay reads it). */
  names?(): string[];
}

export interface HopResponse {
  readonly status: number;
  /** Read for a handful of names only (content-length, content-encoding, content-type, location). */
  readonly headers: HeaderLookup;
  /** The raw (still encoded) body, read lazily. */
  readonly body: AsyncIterable<Uint8Array>;
  /**
   * Reads all of `body` as `collect` would (refused the moment it passes `max` bytes), where the platform has a
   * cheaper way than an async iterator: Node's streams do, with `data` and `end` listeners.
   */
  readAll?(max: number, tooLarge: () => Error): Promise<Uint8Array>;
  /** Stops reading and frees the connection. */
  discard(): void;
}

export interface HopContext {
  /** Aborts when the hop's own timeout fires or the caller cancels. */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when `signal` aborts (at once if it has); the returned function removes it. Where it
   * is given, a transport that only needs to hear the abort uses it: the runner's context then never makes the
   * AbortSignal, which on Node costs more than the rest of a pooled hop's bookkeeping.
   */
  onAbort?(listener: () => void): () => void;
  /** Whether the tool sends secrets (used by the transport for its own checks). */
  readonly sendsSecrets: boolean;
  /**
   * This hop carries secrets over plain http, allowed only to loopback: the transport sends it only on a new,
   * direct connection to an address it resolved and found loopback (a name proves nothing: `mock.localhost` is
   * asked of DNS under glibc's usual `hosts: files dns`).
   */
  readonly plainSecretsLoopbackOnly?: boolean;
}

export interface HopTransport {
  send(hop: Hop, ctx: HopContext): Promise<HopResponse>;
  /** Content codings this platform can decode, and the decoder for one. */
  readonly decoders: ReadonlyMap<string, () => TransformStream<Uint8Array, Uint8Array>>;
  /**
   * Set when the platform decodes bodies itself (fetch does): the coding is still checked (one accepted coding),
   * but the body arrives decoded, so only decoded bytes can be counted against maxResponseBytes.
   */
  readonly decodesBodies?: boolean;
}

export interface SecretCarry {
  /** Whether every secret of the tool may be sent to this `hostname:port`. */
  mayReceive(hostPort: string): boolean;
  /** Whether a text contains a secret value in any form. */
  containsSecret(text: string): boolean;
}

export interface UpstreamOptions {
  readonly limits: HttpLimits;
  readonly transport: HopTransport;
  /** The call's deadline: the tool's timeout and cancellation; each hop's timeout is started on it. */
  readonly deadline: CallDeadline;
  readonly secrets: SecretCarry | null;
  /**
   * Lifts the rule that secrets never travel over plain http (only from code or the CLI, never a spec): everywhere,
   * or, with "loopback", to loopback addresses only, as the transport resolves them.
   */
  readonly allowSecretsOverHttp: boolean | "loopback";
  /**
   * The server's egress list: whether a URL's scheme, host and port is one the server's tools call. Every hop
   * must pass it, so a redirect can never take a request to a destination the build did not list.
   */
  readonly egress: (url: URL) => boolean;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: Uint8Array;
  readonly url: URL;
  /** The answer's Retry-After header as sent (read by the retry extension only), or null. */
  readonly retryAfter: string | null;
}

const ACCEPTED_ENCODINGS = new Set(["gzip", "x-gzip", "deflate", "br", "identity"]);

/** `hostname:port` with the scheme's default port, the form secret bindings use. */
export function urlHostPort(url: URL): string {
  const port = url.port !== "" ? url.port : url.protocol === "http:" ? "80" : "443";
  return `${url.hostname}:${port}`;
}

/** The egress check for a set of tool plans: scheme, host and port exactly as the tools' URLs name them. */
export function egressCheck(
  requests: readonly { readonly protocol: string; readonly hostPort: string }[],
): (url: URL) => boolean {
  const allowed = new Set(requests.map((r) => `${r.protocol}//${r.hostPort}`));
  return (url) => allowed.has(`${url.protocol}//${urlHostPort(url)}`);
}

export async function sendUpstream(request: RenderedRequest, options: UpstreamOptions): Promise<UpstreamResponse> {
  const { limits, transport, deadline } = options;
  let hop: Hop = { method: request.method, url: request.url, headers: request.headers, body: request.body };
  for (let redirects = 0; ; redirects++) {
    const host = hop.url.host;
    checkScheme(hop.url, options);
    if (!options.egress(hop.url))
      throw new ToolError(`Request to ${host} was blocked: it is not in this server's egress list.`);
    deadline.startHop(limits.timeoutMs, () => new DOMException(`Request to ${host} timed out.`, "TimeoutError"));
    try {
      let response: HopResponse;
      try {
        const plainLoopback =
          options.allowSecretsOverHttp === "loopback" && options.secrets !== null && hop.url.protocol === "http:";
        response = await transport.send(hop, new DeadlineContext(deadline, options.secrets !== null, plainLoopback));
      } catch (error) {
        throw hopFailure(error, host, deadline, limits.timeoutMs);
      }
      if (response.status >= 300 && response.status < 400) {
        // A redirect's body is never read.
        response.discard();
        hop = nextHop(hop, response, redirects, options);
        continue;
      }
      try {
        const body = await readBody(response, host, limits.maxResponseBytes, transport);
        return {
          status: response.status,
          contentType: response.headers.get("content-type") ?? "",
          body,
          url: hop.url,
          retryAfter: response.headers.get("retry-after") ?? null,
        };
      } catch (error) {
        response.discard();
        throw hopFailure(error, host, deadline, limits.timeoutMs);
      }
    } finally {
      deadline.endHop();
    }
  }
}

/** A hop's context on the call's deadline: its signal is made only if a transport reads it. */
class DeadlineContext implements HopContext {
  readonly #deadline: CallDeadline;
  readonly sendsSecrets: boolean;
  readonly plainSecretsLoopbackOnly: boolean;

  constructor(deadline: CallDeadline, sendsSecrets: boolean, plainSecretsLoopbackOnly: boolean) {
    this.#deadline = deadline;
    this.sendsSecrets = sendsSecrets;
    this.plainSecretsLoopbackOnly = plainSecretsLoopbackOnly;
  }

  get signal(): AbortSignal {
    return this.#deadline.signal;
  }

  onAbort(listener: () => void): () => void {
    return this.#deadline.onAbort(listener);
  }
}

function checkScheme(url: URL, options: UpstreamOptions): void {
  if (url.protocol === "http:" && options.secrets !== null && !options.allowSecretsOverHttp) {
    throw new ToolError(
      `Request to ${url.host} was not sent: this tool uses secrets, which never travel over plain http.`,
    );
  }
}

function hopFailure(error: unknown, host: string, deadline: CallDeadline, timeoutMs: number): Error {
  if (error instanceof ToolError) return error;
  if (deadline.ended) {
    // The tool-level timeout or a cancellation: the caller words it.
    return deadline.endReason instanceof ToolError
      ? deadline.endReason
      : new ToolError(`Request to ${host} was cancelled.`);
  }
  if (deadline.hopTimedOut) return new ToolError(`Request to ${host} timed out after ${timeoutMs} ms.`);
  const code = errorCode(error);
  return new ToolError(code !== null ? `Request to ${host} failed (${code}).` : `Request to ${host} failed.`);
}

/** A system error's code (`ECONNRESET`) when it has one of the plain form error messages may name, else null. */
export function errorCode(error: unknown): string | null {
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : null;
  return code !== null && /^[A-Z0-9_]{1,40}$/.test(code) ? code : null;
}

function nextHop(hop: Hop, response: HopResponse, redirects: number, options: UpstreamOptions): Hop {
  const { limits } = options;
  const host = hop.url.host;
  if (limits.followRedirects === 0) {
    throw new ToolError(`Request to ${host} was redirected (${response.status}); redirects are not followed.`);
  }
  if (redirects >= limits.followRedirects) {
    throw new ToolError(`Request to ${host} was redirected more than ${limits.followRedirects} times.`);
  }
  const location = response.headers.get("location");
  if (location === undefined || location === "")
    throw new ToolError(`Request to ${host} was redirected without a location.`);
  let next: URL;
  try {
    next = new URL(location, hop.url);
  } catch {
    throw new ToolError(`Request to ${host} was redirected to an invalid location.`);
  }
  if (next.protocol !== "https:" && !(next.protocol === "http:" && limits.allowInsecureHttp)) {
    throw new ToolError(`Request to ${host} was redirected to a disallowed scheme.`);
  }
  if (next.username !== "" || next.password !== "")
    throw new ToolError(`Request to ${host} was redirected to a URL with credentials.`);
  if (hop.url.protocol === "https:" && next.protocol === "http:")
    throw new ToolError(`Request to ${host} was redirected from https to http.`);
  next.hash = "";

  const toGet =
    response.status === 303 || ((response.status === 301 || response.status === 302) && hop.method !== "GET");
  const method = toGet ? "GET" : hop.method;
  const body = toGet ? null : hop.body;
  let headers = toGet ? hop.headers.filter(([name]) => name.toLowerCase() !== "content-type") : hop.headers;
  const crossOrigin = next.origin !== hop.url.origin;
  if (crossOrigin) {
    if (body !== null)
      throw new ToolError(`Request to ${host} was redirected to another host with a request body; not followed.`);
    const secrets = options.secrets;
    if (secrets !== null && urlHostPort(next) !== urlHostPort(hop.url) && !secrets.mayReceive(urlHostPort(next))) {
      throw new ToolError(
        `Request to ${host} was redirected to a host that may not receive this tool's secrets; not followed.`,
      );
    }
    // Only content negotiation survives a change of origin, and not even that if it carries a secret.
    headers = headers.filter(([name, value]) => {
      const lower = name.toLowerCase();
      return (lower === "accept" || lower === "user-agent") && !(secrets !== null && secrets.containsSecret(value));
    });
  }
  if (!options.egress(next))
    throw new ToolError(
      `Request to ${host} was redirected to a destination outside this server's egress list; not followed.`,
    );
  return { method, url: next, headers, body };
}

async function readBody(
  response: HopResponse,
  host: string,
  max: number,
  transport: HopTransport,
): Promise<Uint8Array> {
  const tooLarge = (): ToolError =>
    new ToolError(`The response from ${host} is larger than ${max} bytes; it was not read.`);
  const declared = response.headers.get("content-length");
  if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > max) throw tooLarge();

  const encoding = response.headers.get("content-encoding");
  const codings =
    encoding === undefined
      ? []
      : encoding
          .split(",")
          .map((c) => c.trim().toLowerCase())
          .filter((c) => c !== "");
  // One coding at most: stacked codings (`gzip, gzip`) are how decompression bombs multiply.
  if (codings.length > 1 || (codings.length === 1 && !ACCEPTED_ENCODINGS.has(codings[0]!))) {
    throw new ToolError(`The response from ${host} uses an unsupported encoding.`);
  }
  const coding = codings[0] === "x-gzip" ? "gzip" : codings[0];
  const makeDecoder =
    coding === undefined || coding === "identity" || transport.decodesBodies ? null : transport.decoders.get(coding);
  if (makeDecoder === undefined) throw new ToolError(`The response from ${host} uses an unsupported encoding.`);

  if (makeDecoder === null)
    return response.readAll !== undefined ? response.readAll(max, tooLarge) : collect(response.body, max, tooLarge);
  const decoder = makeDecoder();
  const writer = decoder.writable.getWriter();
  // Errors of the wire (too large, timeout, reset) win over the decoder's: they explain why decoding stopped.
  let wireError: unknown = null;
  const pump = (async () => {
    const iterator = response.body[Symbol.asyncIterator]();
    let total = 0;
    try {
      for (;;) {
        let step: IteratorResult<Uint8Array>;
        try {
          step = await iterator.next();
          // The wire bytes are capped as well as the decoded ones: a compressed body is read only so far.
          if (!step.done && (total += step.value.byteLength) > max) throw tooLarge();
        } catch (error) {
          wireError = error;
          throw error;
        }
        if (step.done) break;
        await writer.write(step.value);
      }
      await writer.close();
    } catch (error) {
      await writer.abort(error).catch(() => {});
    }
  })();
  try {
    return await collect(decoder.readable as unknown as AsyncIterable<Uint8Array>, max, tooLarge);
  } catch (error) {
    await pump;
    if (wireError !== null) throw wireError;
    if (error instanceof ToolError) throw error;
    throw new ToolError(`The response from ${host} could not be decoded.`);
  } finally {
    await pump;
  }
}

/** Reads a body to its end, refusing it the moment it passes `max` bytes; one chunk is returned as it is. */
async function collect(source: AsyncIterable<Uint8Array>, max: number, tooLarge: () => Error): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source) {
    total += chunk.byteLength;
    if (total > max) throw tooLarge();
    chunks.push(chunk);
  }
  return joinChunks(chunks, total);
}

/** The chunks as one array (the one chunk itself when there is only one). */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
