/**
 * One hop through an egress proxy (Node).
 *
 * HTTPS upstreams: a `CONNECT host:port` to the proxy, by name (the proxy resolves it), then TLS over the
 * tunnel with the upstream's name as SNI and as the name the certificate is verified against, so the proxy
 * relays bytes it cannot read and cannot impersonate the upstream. Plain-http upstreams (allowed only where
 * the spec allows insecure http, and never with secrets unless the operator says so) are sent to the proxy in
 * absolute form. Credentials from the proxy URL go in `Proxy-Authorization` to the proxy only; they never reach
 * the upstream, a result or a log line (the vault holds them too).
 *
 * A refusal of the tunnel (407, 403, 502, any status but 2xx) or a tunnel dropped before it is up is a tool
 * error that names the proxy's status (with the standard reason phrase, never the proxy's own text) and the
 * upstream host; the server keeps serving.
 *
 * Tunnels and proxy connections are kept alive in the transport's pool (pool.ts), keyed by the proxy (host,
 * port, credentials) and the target (scheme, host, port, TLS server name), so a tunnel opened to one upstream
 * carries requests to that upstream only. The local check of the target (`check`: the address policy on what
 * the name resolves to here, if it does) runs when a tunnel is opened, as the direct transport checks a
 * connection when it opens it; a plain-http request, which the proxy forwards on its own, is checked every time. A reused tunnel the proxy or upstream closed is retried once, on a
 * fresh tunnel, for safe methods only (pool.ts). node:http and node:tls are loaded on first use.
 */
import type http from "node:http";
import type { Socket } from "node:net";
import { ToolError } from "../call/errors.ts";
import { type ConnectionPool, destinationKey, RetryWatch, tlsTrust } from "./pool.ts";
import type { EgressProxy } from "./proxy.ts";
import { failOnSilentClose, HopCheck, requestHeaders, tlsServername, toHopResponse } from "./node-hop.ts";
import { errorCode, type Hop, type HopContext, type HopResponse } from "./upstream.ts";

function proxyStatus(status: number): string {
  const phrase = process.getBuiltinModule("node:http").STATUS_CODES[status];
  return phrase === undefined ? String(status) : `${status} ${phrase}`;
}

/** Opens a CONNECT tunnel to `target` (`host:port`) through the proxy; resolves with the raw socket. */
function openTunnel(proxy: EgressProxy, target: string, host: string, signal: AbortSignal): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
    };
    const req = process.getBuiltinModule("node:http").request({
      host: proxy.hostname,
      port: proxy.port,
      method: "CONNECT",
      path: target,
      headers: {
        host: target,
        ...(proxy.authorization !== null ? { "proxy-authorization": proxy.authorization } : {}),
      },
      agent: false,
      signal,
    });
    req.once("connect", (res: http.IncomingMessage, socket: Socket, head: Buffer) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300 || head.length > 0) {
        socket.destroy();
        settle(() =>
          reject(
            new ToolError(
              status >= 200 && status < 300
                ? `Request to ${host} failed: the egress proxy sent data before the tunnel was up.`
                : `Request to ${host} failed: the egress proxy refused the tunnel (${proxyStatus(status)}).`,
            ),
          ),
        );
        return;
      }
      settle(() => resolve(socket));
    });
    // Some proxies answer a refusal as an ordinary response rather than a CONNECT reply.
    req.once("response", (res: http.IncomingMessage) => {
      res.destroy();
      settle(() =>
        reject(
          new ToolError(
            `Request to ${host} failed: the egress proxy refused the tunnel (${proxyStatus(res.statusCode ?? 0)}).`,
          ),
        ),
      );
    });
    req.once("error", (error) => {
      settle(() => {
        if (signal.aborted) {
          reject(error);
          return;
        }
        const code = errorCode(error);
        reject(
          new ToolError(
            code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EHOSTUNREACH"
              ? `Request to ${host} failed: the egress proxy could not be reached (${code}).`
              : `Request to ${host} failed: the egress proxy dropped the tunnel${code !== null ? ` (${code})` : ""}.`,
          ),
        );
      });
    });
    req.end();
  });
}

/** Opens a tunnel to `target` and starts TLS over it, verified against the upstream's name. */
async function openSecureTunnel(
  proxy: EgressProxy,
  target: string,
  hostname: string,
  host: string,
  signal: AbortSignal,
  ca: string | undefined,
): Promise<Socket> {
  const tunnel = await openTunnel(proxy, target, host, signal);
  const servername = tlsServername(hostname);
  const secure = process.getBuiltinModule("node:tls").connect({
    socket: tunnel,
    // Verified against the upstream's name (or IP literal), never the proxy's.
    host: hostname,
    ...(servername !== "" ? { servername } : {}),
    ALPNProtocols: ["http/1.1"],
    ...(ca !== undefined ? { ca } : {}),
  });
  // The request reports the socket's errors; this keeps one that comes before it is attached (or after it is
  // gone, or while the socket is idle in the pool) from being an unhandled 'error' event, which would end the
  // process.
  secure.on("error", () => {});
  return secure;
}

/** The request options that carry a request's signal and check to the pooled agent's tunnel opener. */
const TUNNEL_SIGNAL = "kervancTunnelSignal";
const TUNNEL_CHECK = "kervancTunnelCheck";

export async function sendThroughProxy(
  hop: Hop,
  ctx: HopContext,
  proxy: EgressProxy,
  pool: ConnectionPool | null,
  /** Checks the target here (the address policy on what its name resolves to locally); throws a ToolError. */
  checkTarget: () => Promise<void>,
  /** For tests: the CA certificates the upstream is verified against, instead of the default store. */
  ca?: string,
): Promise<HopResponse> {
  const check = new HopCheck(checkTarget);
  const nodeHttp = process.getBuiltinModule("node:http");
  const url = hop.url;
  const host = url.host;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const headers = requestHeaders(hop);
  headers["host"] = host;
  const bodyBytes =
    hop.body === null
      ? null
      : typeof hop.body === "string"
        ? Buffer.from(hop.body, "utf8")
        : Buffer.from(hop.body.buffer, hop.body.byteOffset, hop.body.byteLength);
  if (bodyBytes !== null) headers["content-length"] = String(bodyBytes.byteLength);
  const key = destinationKey({
    scheme: url.protocol,
    hostname,
    // What the proxy connects to is its own business; the pool is keyed by the name it was asked for.
    port,
    servername: url.protocol === "https:" ? tlsServername(hostname) : "",
    trust: url.protocol === "https:" ? tlsTrust(ca) : "",
    proxy: JSON.stringify([proxy.hostname, proxy.port, proxy.authorization]),
  });

  let options: http.RequestOptions & { [TUNNEL_SIGNAL]?: AbortSignal; [TUNNEL_CHECK]?: HopCheck<void> };
  let pooled: http.Agent | undefined;
  if (url.protocol === "https:") {
    const target = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
    pooled = pool?.agent(key, (agentOptions) => {
      const agent = new nodeHttp.Agent(agentOptions);
      // Every connection of this agent is a fresh tunnel to this one target; the request's signal bounds it.
      (agent as unknown as { createConnection: unknown }).createConnection = (
        connectOptions: { [TUNNEL_SIGNAL]?: AbortSignal; [TUNNEL_CHECK]?: HopCheck<void> },
        callback: (error: unknown, socket?: Socket) => void,
      ): undefined => {
        const signal = connectOptions[TUNNEL_SIGNAL] ?? AbortSignal.timeout(30_000);
        // A tunnel is only opened for a request, which brings its check; none would be a bug, refused.
        const tunnelCheck = connectOptions[TUNNEL_CHECK];
        const checked = tunnelCheck ? tunnelCheck.start() : Promise.reject(new Error("a tunnel without a check"));
        checked
          .then(() => openSecureTunnel(proxy, target, hostname, host, signal, ca))
          .then(
            (socket) => callback(null, socket),
            (error: unknown) => callback(error),
          );
        return undefined;
      };
      return agent;
    });
    const base = {
      method: hop.method,
      host: hostname,
      port,
      path: url.pathname + url.search,
      headers,
      signal: ctx.signal,
    };
    if (pooled !== undefined) options = { ...base, agent: pooled, [TUNNEL_SIGNAL]: ctx.signal, [TUNNEL_CHECK]: check };
    else {
      await check.start();
      const secure = await openSecureTunnel(proxy, target, hostname, host, ctx.signal, ca);
      // No agent: with one (even `agent: false`, which makes a fresh one) Node ignores createConnection.
      options = { ...base, createConnection: () => secure };
    }
  } else {
    await check.start();
    if (proxy.authorization !== null) headers["proxy-authorization"] = proxy.authorization;
    pooled = pool?.agent(key, (agentOptions) => new nodeHttp.Agent(agentOptions));
    options = {
      method: hop.method,
      host: proxy.hostname,
      port: proxy.port,
      // Absolute form: the proxy forwards by this URL (its userinfo is always empty, upstream.ts refuses it).
      path: url.href,
      headers,
      agent: pooled ?? false,
      signal: ctx.signal,
    };
  }
  try {
    return await exchange(nodeHttp, options, hop, bodyBytes, check);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    // Once, on a fresh connection that is not pooled, checked again.
    return await sendThroughProxy(hop, ctx, proxy, null, checkTarget, ca);
  }
}

/** A safe request failed on a reused connection before any response: it may be sent again (pool.ts). */
class StaleConnection extends Error {}

function exchange(
  nodeHttp: typeof import("node:http"),
  options: http.RequestOptions,
  hop: Hop,
  bodyBytes: Buffer | null,
  check: HopCheck<void>,
): Promise<HopResponse> {
  const url = hop.url;
  const host = url.host;
  return new Promise<HopResponse>((resolve, reject) => {
    let responded = false;
    const watch = new RetryWatch();
    const req = nodeHttp.request(options, (res) => {
      responded = true;
      if (url.protocol === "http:" && res.statusCode === 407) {
        res.destroy();
        reject(new ToolError(`Request to ${host} failed: the egress proxy refused it (${proxyStatus(407)}).`));
        return;
      }
      resolve(toHopResponse(res));
    });
    req.on("socket", (socket: Socket) => watch.socket(socket));
    // Not after a response, nor after an error (which may be worded later, by the check).
    let errored = false;
    failOnSilentClose(req, host, () => !responded && !errored, reject);
    req.on("error", (error) => {
      errored = true;
      if (check.wordsFailure(error, reject)) return;
      const signal = options.signal;
      if (!(signal?.aborted ?? false) && watch.retryable(req, hop.method, responded, error))
        reject(new StaleConnection());
      else reject(error);
    });
    req.end(bodyBytes ?? undefined);
  });
}
