/**
 * The Node hop transport: resolve once, check every address, connect only to the checked addresses.
 *
 * A host name is resolved when a connection to it is opened, not on every request: the new connection's
 * `lookup` asks DNS once (`dns.lookup` with `all` and `verbatim`), bounded by the hop's signal and the
 * process-wide lookup gate; every answer must pass the address policy (one bad answer blocks the request), and
 * the lookup answers only for that host name and only with the checked addresses, so a second DNS answer
 * (rebinding) can never be used. Once connected, the socket's remote address is checked against that set, which
 * the connection keeps. Connections are kept alive and reused only for the same destination (see pool.ts for
 * why that is safe, the bounds, and the one retry of a safe request on a reused connection the upstream
 * closed); the remote address of every response is checked against the set its connection was opened with,
 * reused connection or not. An IP literal is checked on every request (a kept verdict). With `pool: false`
 * every request gets a fresh connection (`agent: false`, no proxy variables), hence a lookup, and is never
 * retried.
 *
 * node:http, node:https, node:dns and node:zlib are loaded on first use, not at start-up: every built-in
 * loaded at start costs compile time, much more under --disallow-code-generation-from-strings.
 */
import type { LookupFunction, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { ToolError } from "../call/errors.ts";
import { checkAddress, classifyHost, type NetworkPolicy } from "./address.ts";
import { LookupGate, LookupWaitAborted } from "./lookup-gate.ts";
import { ConnectionPool, destinationKey, RetryWatch, tlsTrust } from "./pool.ts";
import type { ProxySettings } from "./proxy.ts";
import { sendThroughProxy } from "./proxy-hop.ts";
import {
  destroyOnAbort,
  failOnSilentClose,
  HopCheck,
  requestHeaders,
  tlsServername,
  toHopResponse,
} from "./node-hop.ts";
import type { Hop, HopContext, HopResponse, HopTransport } from "./upstream.ts";
import { isLoopbackHost } from "./loopback.ts";

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

/** The addresses each direct connection was checked against when it was opened (pooled ones live on). */
const openedWith = new WeakMap<Socket, Checked>();

function notLoopback(host: string, why: string): ToolError {
  return new ToolError(
    `Request to ${host} was not sent: secrets travel over plain http only to loopback addresses here, and ${why}.`,
  );
}

function blocked(host: string, reason: string): ToolError {
  return new ToolError(`Request to ${host} was blocked: it resolves to a disallowed address (${reason}).`);
}

export function createNodeTransport(options: NodeTransportOptions): HopTransport {
  const resolve =
    options.resolve ??
    ((hostname: string) =>
      process.getBuiltinModule("node:dns").promises.lookup(hostname, { all: true, verbatim: true }));
  const pool = options.pool === false ? null : (options.pool ?? new ConnectionPool());

  /** An IP literal's one address, checked (a kept verdict, so cheap), or the refusal. */
  function checkedLiteral(host: string, address: string): Checked {
    const verdict = checkAddress(address, options.policy);
    if (!verdict.ok) throw blocked(host, verdict.reason);
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  }

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
    if (kind.kind === "ip") return { connectHost: kind.address, addresses: checkedLiteral(host, kind.address) };
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
      // Secrets over plain http go only directly, on a new connection, to addresses found loopback here.
      const loopbackOnly = ctx.plainSecretsLoopbackOnly === true;
      if (loopbackOnly && proxy !== null)
        throw notLoopback(hop.url.host, "it would go through an egress proxy, where the address cannot be seen");
      if (proxy !== null) {
        // The address policy still applies to what the proxy is asked to reach, as far as it can be seen here:
        // checked when a tunnel is opened (a pooled tunnel was checked when it was), or before a plain-http request.
        return sendThroughProxy(
          hop,
          ctx,
          proxy,
          pool,
          async () => void (await resolveChecked(hop.url, ctx, true)),
          options.ca,
        );
      }
      const host = hop.url.host;
      const kind = classifyHost(hop.url.hostname);
      if (kind.kind === "invalid") throw blocked(host, kind.reason);
      // An IP literal is checked now (a kept verdict, so cheap); a name is resolved and checked only when a new
      // connection is opened for it, in `pinned` below.
      const literal = kind.kind === "ip" ? checkedLiteral(host, kind.address) : null;
      if (loopbackOnly && literal !== null && !literal.every((a) => isLoopbackHost(a.address)))
        throw notLoopback(host, "it is not a loopback address");
      const connectHost = kind.kind === "ip" ? kind.address : kind.name;
      /** The lookup of this request's new connection (a name's), while it runs or once it ran. */
      const lookup =
        kind.kind === "name"
          ? new HopCheck(async () => {
              const { addresses } = await resolveChecked(hop.url, ctx);
              if (loopbackOnly && !addresses.every((a) => isLoopbackHost(a.address)))
                throw notLoopback(host, "it resolves to an address that is not loopback");
              return addresses;
            })
          : null;
      const checkedSet = (socket: Socket | null | undefined): Checked | undefined =>
        literal ?? (socket ? openedWith.get(socket) : undefined);
      const pinned: LookupFunction = (hostname, opts, callback) => {
        const family = typeof opts === "object" && opts !== null ? opts.family : undefined;
        const wantAll = typeof opts === "object" && opts !== null && opts.all === true;
        const refuse = (): void => callback(Object.assign(new Error("lookup refused"), { code: "ENOTFOUND" }), "", 4);
        if (hostname !== connectHost || lookup === null) return refuse();
        lookup.start().then(
          (addresses) => {
            const usable = addresses.filter((a) => family === undefined || family === 0 || a.family === family);
            if (usable.length === 0) return refuse();
            if (wantAll) (callback as unknown as (e: null, a: Checked) => void)(null, usable);
            else callback(null, usable[0]!.address, usable[0]!.family);
          },
          (error: unknown) => callback(error as Error, "", 4),
        );
      };
      const headers = requestHeaders(hop);
      const bodyBytes =
        hop.body === null
          ? null
          : typeof hop.body === "string"
            ? Buffer.from(hop.body, "utf8")
            : Buffer.from(hop.body.buffer, hop.body.byteOffset, hop.body.byteLength);
      if (bodyBytes !== null) headers["content-length"] = String(bodyBytes.byteLength);
      const secure = hop.url.protocol === "https:";
      const lib = secure ? process.getBuiltinModule("node:https") : process.getBuiltinModule("node:http");
      const servername = secure ? tlsServername(connectHost) : "";
      const port = hop.url.port === "" ? (secure ? 443 : 80) : Number(hop.url.port);
      const key = destinationKey({
        scheme: hop.url.protocol,
        hostname: hop.url.hostname,
        port,
        servername,
        trust: secure ? tlsTrust(options.ca) : "",
        proxy: "",
      });
      // A pooled connection was checked for what it was opened for; a hop that may only reach loopback opens its own.
      const agent = loopbackOnly ? false : (pool?.agent(key, (agentOptions) => new lib.Agent(agentOptions)) ?? false);

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
              // Always given, "" for an address: without it Node takes the TLS name from the Host header.
              servername,
              ...(secure && options.ca !== undefined ? { ca: options.ca } : {}),
            },
            (res) => {
              const remote = res.socket?.remoteAddress;
              if (!checkedSet(res.socket)?.some((a) => a.address === remote)) {
                res.destroy();
                fail(new ToolError(`Request to ${host} was blocked: it was not checked.`));
                return;
              }
              settled = true;
              resolvePromise(toHopResponse(res));
            },
          );
          destroyOnAbort(req, ctx);
          // An error may be worded later (by its connection's lookup, below): a close after it is not silent.
          let errored = false;
          failOnSilentClose(req, host, () => !settled && !errored, fail);
          const watch = new RetryWatch();
          req.on("socket", (socket: Socket) => {
            watch.socket(socket);
            // A reused connection was checked when it connected (and its responses are checked above).
            if (!socket.connecting) return;
            socket.once("connect", () => {
              const remote = socket.remoteAddress;
              const opened = literal ?? lookup?.value;
              if (opened === undefined || !opened.some((a) => a.address === remote)) {
                const error = new ToolError(`Request to ${host} was blocked: it connected to an unchecked address.`);
                fail(error);
                req.destroy(error);
                return;
              }
              openedWith.set(socket, opened);
            });
          });
          req.on("error", (error) => {
            errored = true;
            // Ended while its connection's lookup ran (a timeout or a cancellation): the lookup words it.
            if (lookup?.wordsFailure(error, fail) === true) return;
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
