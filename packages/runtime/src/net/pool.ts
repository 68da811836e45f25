/**
 * Keep-alive connections for the Node hop transport, pooled per destination, each checked when it was opened.
 *
 * Why reusing a connection keeps the address policy: every connection is checked when it is opened. Its host name
 * is resolved then, every answer must pass the policy, the pinned lookup answers only from that set, and the
 * socket's remote address is checked against it; the transport keeps that set with the connection and checks
 * the remote address of every response against it, reused connection or not. A pooled connection therefore only
 * ever leads to an address that was checked for its host name. It is handed only to a request whose destination
 * key is the one it was opened for: the scheme, the host name, the port, the TLS server name and whether
 * certificates are verified, and, through an egress proxy, the proxy (host, port, credentials) and the target.
 * A DNS answer that changes (rebinding included) is seen by the next new connection, which resolves and is
 * checked again; an answer that is refused refuses that connection, and no request ever reaches the refused
 * address. What a reused connection skips is the lookup: a server that calls one host over and over asks DNS once
 * per connection, as any keep-alive client does, instead of once per request (a lookup per call costs far more
 * than the rest of the hop, and is a network round trip where the resolver does not cache).
 *
 * Bounds (the defaults below; docs/runtime.md documents them): an idle connection closes after 4 s, before the
 * 5 s keep-alive timeout of a default Node server and most proxies (Node also shortens it to the upstream's
 * `Keep-Alive: timeout=N` hint minus one second); a connection is not kept past 60 s after its first answer, so
 * even under steady traffic a changed DNS answer is used within a minute; at most 128 idle connections per
 * destination and 256 idle connections in all; past any of these, a connection that finishes is closed instead
 * of kept. At most 256 destinations hold a pool at once; past that, and after dropping pools that hold no
 * connection, a request connects without pooling, as the transport did before. Idle connections never keep the
 * process alive.
 *
 * Retry: a request sent on a reused connection that the upstream had already closed (the keep-alive race)
 * fails with ECONNRESET or EPIPE before any byte came back on it. It is sent once more, on a fresh connection,
 * only when its method is safe (GET, HEAD, OPTIONS: RFC 9110 section 9.2.1), because nothing tells whether the
 * upstream read the first copy before closing; POST, PUT, PATCH and DELETE fail as they did before. A
 * request on a fresh connection, or one that received any part of a response, is never retried.
 */
import type { Agent, AgentOptions, ClientRequest } from "node:http";
import type { Socket } from "node:net";

export interface PoolLimits {
  /** Idle connections kept per destination. */
  readonly maxIdlePerDestination: number;
  /** Idle connections kept in all. */
  readonly maxIdleTotal: number;
  /** An idle connection closes after this long without traffic. */
  readonly idleTimeoutMs: number;
  /** Destinations that hold a pool at once; requests to further ones connect without pooling. */
  readonly maxDestinations: number;
  /** A connection is closed instead of kept once this long has passed since it first finished a request. */
  readonly maxConnectionAgeMs: number;
}

export const DEFAULT_POOL_LIMITS: PoolLimits = Object.freeze({
  // Above the calls a busy destination has in flight (a tool allows up to 1,000 at once, 10 by default): with
  // fewer, every wave of calls past the bound closed its connections and opened new ones (32 measured 7% more
  // CPU per call at 50 calls in flight). The total still bounds what idle connections hold.
  maxIdlePerDestination: 128,
  maxIdleTotal: 256,
  idleTimeoutMs: 4000,
  maxDestinations: 256,
  // About a typical DNS answer's TTL: how long a busy destination keeps using the addresses it resolved to.
  maxConnectionAgeMs: 60_000,
});

/**
 * Where a connection leads, besides its addresses; two requests share connections only if all of it is equal. The
 * addresses a connection was checked against stay with the connection (node-transport.ts), not in the key.
 */
export interface Destination {
  readonly scheme: string;
  /** The host name (or IP literal) as the URL names it. */
  readonly hostname: string;
  readonly port: number;
  /** The TLS server name (SNI and certificate check), "" for none. */
  readonly servername: string;
  /** How the TLS certificate is verified: `tlsTrust()`, "" for plain http. */
  readonly trust: string;
  /** The egress proxy (`host:port` and its credentials), "" when connecting directly. */
  readonly proxy: string;
}

export function destinationKey(d: Destination): string {
  return JSON.stringify([d.scheme, d.hostname, d.port, d.servername, d.trust, d.proxy]);
}

const caIds = new Map<string, number>();

/**
 * How a TLS connection opened now verifies the certificate: against the default trust store or the given CA
 * text, or not at all when NODE_TLS_REJECT_UNAUTHORIZED=0 (Node reads the variable at each connect).
 */
export function tlsTrust(ca: string | undefined): string {
  if (process.env["NODE_TLS_REJECT_UNAUTHORIZED"] === "0") return "unverified";
  if (ca === undefined) return "default";
  let id = caIds.get(ca);
  if (id === undefined) caIds.set(ca, (id = caIds.size + 1));
  return `ca${id}`;
}

type MakeAgent = (options: AgentOptions) => Agent;

export class ConnectionPool {
  readonly limits: PoolLimits;
  readonly #agents = new Map<string, Agent>();
  readonly #idle = new Set<Socket>();
  /** When each connection first finished a request (and was watched for its close). */
  readonly #firstKept = new WeakMap<Socket, number>();

  constructor(limits: Partial<PoolLimits> = {}) {
    this.limits = { ...DEFAULT_POOL_LIMITS, ...limits };
  }

  /** Idle connections across every destination. */
  get idle(): number {
    return this.#idle.size;
  }

  /** Destinations that hold a pool. */
  get destinations(): number {
    return this.#agents.size;
  }

  /**
   * The keep-alive agent for one destination key, made by `make` on first use; undefined when the pool is full
   * (the caller then connects without pooling).
   */
  agent(key: string, make: MakeAgent): Agent | undefined {
    const existing = this.#agents.get(key);
    if (existing !== undefined) return existing;
    if (this.#agents.size >= this.limits.maxDestinations) this.#sweep();
    if (this.#agents.size >= this.limits.maxDestinations) return undefined;
    const agent = make({
      keepAlive: true,
      maxFreeSockets: this.limits.maxIdlePerDestination,
      timeout: this.limits.idleTimeoutMs,
      scheduling: "lifo",
    });
    this.#instrument(agent);
    this.#agents.set(key, agent);
    return agent;
  }

  /** Closes every pooled connection (idle and in use) and forgets every destination. */
  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
    this.#idle.clear();
  }

  /** Forgets destinations whose pool holds no connection at all. */
  #sweep(): void {
    for (const [key, agent] of this.#agents) {
      if (Object.keys(agent.sockets).length === 0 && Object.keys(agent.freeSockets).length === 0) {
        agent.destroy();
        this.#agents.delete(key);
      }
    }
  }

  /** Counts idle connections across destinations and enforces the total. */
  #instrument(agent: Agent): void {
    const idle = this.#idle;
    const firstKept = this.#firstKept;
    const max = this.limits.maxIdleTotal;
    const maxAge = this.limits.maxConnectionAgeMs;
    // Node's keepSocketAlive returns whether to keep the socket (its typings say void).
    const keep = agent.keepSocketAlive.bind(agent) as unknown as (socket: Socket) => boolean;
    const reuse = agent.reuseSocket.bind(agent);
    // Node calls keepSocketAlive when a finished connection is about to go idle; false closes it instead.
    (agent as unknown as { keepSocketAlive: (socket: Socket) => boolean }).keepSocketAlive = (socket) => {
      const now = performance.now();
      const since = firstKept.get(socket);
      if (since === undefined) {
        firstKept.set(socket, now);
        socket.once("close", () => idle.delete(socket));
      } else if (!(now - since >= 0 && now - since < maxAge)) return false;
      if (idle.size >= max || !keep(socket)) return false;
      idle.add(socket);
      return true;
    };
    agent.reuseSocket = (socket: Socket, request): void => {
      idle.delete(socket);
      reuse(socket, request);
    };
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const STALE_CODES = new Set(["ECONNRESET", "EPIPE"]);

/**
 * Whether a failed request may be sent once more on a fresh connection: it went out on a reused connection,
 * no byte came back on that connection after the request was handed to it, the failure is the connection
 * being closed under it, and the method is safe.
 */
export function retryableOnFreshConnection(
  method: string,
  reusedSocket: boolean,
  bytesCameBack: boolean,
  error: unknown,
): boolean {
  if (!reusedSocket || bytesCameBack || !SAFE_METHODS.has(method)) return false;
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return typeof code === "string" && STALE_CODES.has(code);
}

/**
 * What the retry rule needs to know about one request's connection: how many bytes it had read when the request
 * was handed to it, so that any more means something came back. Both Node hops (direct, and through a proxy)
 * feed it the request's socket.
 */
export class RetryWatch {
  #connection: Socket | null = null;
  #readBefore = -1;

  /** Node assigned the request this socket. */
  socket(socket: Socket): void {
    this.#connection = socket;
    this.#readBefore = socket.bytesRead;
  }

  /** Whether the failed request may be sent once more, on a fresh connection (`retryableOnFreshConnection`). */
  retryable(req: ClientRequest, method: string, responded: boolean, error: unknown): boolean {
    const connection = this.#connection;
    const answered = responded || connection === null || connection.bytesRead !== this.#readBefore;
    return retryableOnFreshConnection(method, req.reusedSocket, answered, error);
  }
}
