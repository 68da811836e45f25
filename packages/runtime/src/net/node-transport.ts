/**
 * The Node hop transport: resolve once, check every address, connect only to the checked addresses.
 *
 * DNS is asked once per hop (`dns.lookup` with `all` and `verbatim`), bounded by the hop's signal and the
 * process-wide lookup gate. Every answer must pass the address policy; one bad answer blocks the request.
 * A new connection uses a `lookup` function that answers only for that host name and only with the checked
 * addresses, so a second DNS answer (rebinding) can never be used, and its remote address is checked again
 * once connected. Connections are kept alive and reused only for the same checked destination (see pool.ts
 * for why that is safe, the bounds, and the one retry of a safe request on a reused connection the upstream
 * closed); the remote address of every response is checked, reused connection or not. With `pool: false`
 * every request gets a fresh connection (`agent: false`, no proxy variables) and is never retried.
 *
 * node:http, node:https, node:dns and node:zlib are loaded on first use, not at start-up: every built-in
 * loaded at start costs compile time, much more under --disallow-code-generation-from-strings.
 */
import type { LookupFunction, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ToolError } from "../errors.ts";
import { checkAddress, classifyHost, type NetworkPolicy } from "./address.ts";
import { LookupGate, LookupWaitAborted } from "./lookup-gate.ts";
import { ConnectionPool, destinationKey, RetryWatch, tlsTrust } from "./pool.ts";
import type { ProxySettings } from "./proxy.ts";
import { sendThroughProxy } from "./proxy-hop.ts";
import { destroyOnAbort, failOnSilentClose, requestHeaders, tlsServername, toHopResponse } from "./node-hop.ts";
import type { Hop, HopContext, HopResponse, HopTransport } from "./upstream.ts";

export interface NodeTransportOptions {
  readonly policy: NetworkPolicy;
  readonly gate: LookupGate;
  /** Injected for tests; defaults to `dns.promises.lookup`. */
  readonly resolve?: (hostname: string) => Promise<readonly { address: string; family: number }[]>;
  /** The egress proxy settings (from the *_PROXY variables); null or absent connects directly. */
  readonly proxy?: ProxySettings | null;
  /** Keep-alive connections: a pool (tests pass their own), or false for a fresh connection per request. */
  readonly pool?: ConnectionPool | false;
  /** For tests: the CA certificates (PEM) TLS upstreams are verified against, instead of the default store. */
  readonly ca?: string;
}

type Checked = readonly { address: string; family: number }[];

function blocked(host: string, reason: string): ToolError {
  return new ToolError(`Request to ${host} was blocked: it resolves to a disallowed address (${reason}).`);
}

export function createNodeTransport(options: NodeTransportOptions): HopTransport {
  const resolve =
    options.resolve ??
    ((hostname: string) =>
      process.getBuiltinModule("node:dns").promises.lookup(hostname, { all: true, verbatim: true }));
  const pool = options.pool === false ? null : (options.pool ?? new ConnectionPool());

  /**
   * Resolves and checks the hop's host. `unresolvableOk` is for hops through a proxy: there the name may
   * resolve only at the proxy, so a failed lookup is not a refusal (the answer is empty), but an answer that
   * does come back is still checked.
   */
  async function resolveChecked(
    url: URL,
    ctx: HopContext,
    unresolvableOk = false,
  ): Promise<{ connectHost: string; addresses: Checked }> {
    const host = url.host;
    const kind = classifyHost(url.hostname);
    if (kind.kind === "invalid") throw blocked(host, kind.reason);
    if (kind.kind === "ip") {
      const verdict = checkAddress(kind.address, options.policy);
      if (!verdict.ok) throw blocked(host, verdict.reason);
      return {
        connectHost: kind.address,
        addresses: [{ address: kind.address, family: kind.address.includes(":") ? 6 : 4 }],
      };
    }
    // Read only for a name: an IP literal needs no signal, and the runner's is made on first read.
    const signal = ctx.signal;
    let answers: Checked;
    try {
      answers = await options.gate.lookup(kind.name, resolve, signal);
    } catch (error) {
      if (error instanceof LookupWaitAborted) {
        const slots = `${options.gate.active} in use, ${options.gate.waiting} waiting`;
        throw signalMessage(signal, host, `waiting for a DNS lookup slot (${slots})`);
      }
      if (signal.aborted) throw signalMessage(signal, host, "while resolving the host name");
      if (unresolvableOk) return { connectHost: kind.name, addresses: [] };
      throw new ToolError(`Request to ${host} was blocked: the host name could not be resolved.`);
    }
    if (answers.length === 0 && unresolvableOk) return { connectHost: kind.name, addresses: [] };
    if (answers.length === 0)
      throw new ToolError(`Request to ${host} was blocked: the host name resolved to no addresses.`);
    for (const answer of answers) {
      const verdict = checkAddress(answer.address, options.policy);
      if (!verdict.ok) throw blocked(host, verdict.reason);
    }
    return { connectHost: kind.name, addresses: answers };
  }

  return {
    decoders: new Map<string, () => TransformStream<Uint8Array, Uint8Array>>([
      ["gzip", () => zlibStream(process.getBuiltinModule("node:zlib").createGunzip())],
      ["deflate", () => zlibStream(process.getBuiltinModule("node:zlib").createInflate())],
      ["br", () => zlibStream(process.getBuiltinModule("node:zlib").createBrotliDecompress())],
    ]),
    async send(hop: Hop, ctx: HopContext): Promise<HopResponse> {
      const proxy = options.proxy?.forUrl(hop.url) ?? null;
      if (proxy !== null) {
        // The address policy still applies to what the proxy is asked to reach, as far as it can be seen here.
        await resolveChecked(hop.url, ctx, true);
        return sendThroughProxy(hop, ctx, proxy, pool, options.ca);
      }
      const { connectHost, addresses } = await resolveChecked(hop.url, ctx);
      const host = hop.url.host;
      const checked = (remote: string | undefined): boolean => addresses.some((a) => a.address === remote);
      const pinned: LookupFunction = (hostname, opts, callback) => {
        const family = typeof opts === "object" && opts !== null ? opts.family : undefined;
        const wantAll = typeof opts === "object" && opts !== null && opts.all === true;
        const usable = addresses.filter((a) => family === undefined || family === 0 || a.family === family);
        if (hostname !== connectHost || usable.length === 0) {
          callback(Object.assign(new Error("lookup refused"), { code: "ENOTFOUND" }), "", 4);
          return;
        }
        if (wantAll) (callback as unknown as (e: null, a: Checked) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      };
      const headers = requestHeaders(hop);
      const bodyBytes = hop.body === null ? null : Buffer.from(hop.body, "utf8");
      if (bodyBytes !== null) headers["content-length"] = String(bodyBytes.byteLength);
      const secure = hop.url.protocol === "https:";
      const lib = secure ? process.getBuiltinModule("node:https") : process.getBuiltinModule("node:http");
      const servername = secure ? tlsServername(connectHost) : "";
      const port = hop.url.port === "" ? (secure ? 443 : 80) : Number(hop.url.port);
      const key = destinationKey({
        scheme: hop.url.protocol,
        hostname: hop.url.hostname,
        port,
        addresses,
        servername,
        trust: secure ? tlsTrust(options.ca) : "",
        proxy: "",
      });
      const agent = pool?.agent(key, (agentOptions) => new lib.Agent(agentOptions)) ?? false;

      const attempt = (agent: InstanceType<typeof lib.Agent> | false): Promise<HopResponse> =>
        new Promise<HopResponse>((resolvePromise, reject) => {
          let settled = false;
          const fail = (error: unknown): void => {
            if (settled) return;
            settled = true;
            reject(error);
          };
          const req = lib.request(
            {
              method: hop.method,
              host: connectHost.startsWith("[") ? connectHost.slice(1, -1) : connectHost,
              port,
              path: hop.url.pathname + hop.url.search,
              headers,
              agent,
              lookup: pinned,
              ...(servername !== "" ? { servername } : {}),
              ...(secure && options.ca !== undefined ? { ca: options.ca } : {}),
            },
            (res) => {
              const remote = res.socket?.remoteAddress;
              if (!checked(remote)) {
                res.destroy();
                fail(new ToolError(`Request to ${host} was blocked: it was not checked.`));
                return;
              }
              settled = true;
              resolvePromise(toHopResponse(res));
            },
          );
          destroyOnAbort(req, ctx);
          failOnSilentClose(req, host, fail);
          const watch = new RetryWatch();
          req.on("socket", (socket: Socket) => {
            watch.socket(socket);
            // A reused connection was checked when it connected (and its responses are checked above).
            if (!socket.connecting) return;
            socket.once("connect", () => {
              const remote = socket.remoteAddress;
              if (!checked(remote)) {
                const error = new ToolError(`Request to ${host} was blocked: it connected to an unchecked address.`);
                fail(error);
                req.destroy(error);
              }
            });
          });
          req.on("error", (error) => {
            if (!ctx.signal.aborted && watch.retryable(req, hop.method, settled, error)) {
              settled = true;
              resolvePromise(attempt(false));
              return;
            }
            fail(error);
          });
          req.end(bodyBytes ?? undefined);
        });
      return await attempt(agent);
    },
  };
}

/** Wraps a Node zlib transform as a web TransformStream; the adapter keeps backpressure and errors. */
function zlibStream(transform: Duplex): TransformStream<Uint8Array, Uint8Array> {
  const { Duplex: NodeDuplex } = process.getBuiltinModule("node:stream");
  return NodeDuplex.toWeb(transform) as unknown as TransformStream<Uint8Array, Uint8Array>;
}

function signalMessage(signal: AbortSignal, host: string, what: string): ToolError {
  const reason: unknown = signal.reason;
  if (reason instanceof ToolError) return reason;
  const timedOut = reason instanceof DOMException && reason.name === "TimeoutError";
  return new ToolError(
    timedOut ? `Request to ${host} timed out ${what}.` : `Request to ${host} was cancelled ${what}.`,
  );
}
