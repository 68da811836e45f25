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
 */
import http from "node:http";
import type { Socket } from "node:net";
import tls from "node:tls";
import { ToolError } from "../errors.ts";
import type { EgressProxy } from "./proxy.ts";
import type { Hop, HopContext, HopResponse } from "./upstream.ts";

function requestHeaders(hop: Hop): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of hop.headers) {
    const existing = headers[name];
    headers[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

function toHopResponse(res: http.IncomingMessage): HopResponse {
  const responseHeaders = new Map<string, string>();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  return { status: res.statusCode ?? 0, headers: responseHeaders, body: res, discard: () => res.destroy() };
}

function errorCode(error: unknown): string | null {
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : null;
  return code !== null && /^[A-Z0-9_]{1,40}$/.test(code) ? code : null;
}

function proxyStatus(status: number): string {
  const phrase = http.STATUS_CODES[status];
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
    const req = http.request({
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

export async function sendThroughProxy(hop: Hop, ctx: HopContext, proxy: EgressProxy): Promise<HopResponse> {
  const url = hop.url;
  const host = url.host;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const headers = requestHeaders(hop);
  headers["host"] = host;
  const bodyBytes = hop.body === null ? null : Buffer.from(hop.body, "utf8");
  if (bodyBytes !== null) headers["content-length"] = String(bodyBytes.byteLength);

  let options: http.RequestOptions;
  if (url.protocol === "https:") {
    const target = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
    const tunnel = await openTunnel(proxy, target, host, ctx.signal);
    const isIp = /^[\d.]+$|:/.test(hostname);
    const secure = tls.connect({
      socket: tunnel,
      // Verified against the upstream's name (or IP literal), never the proxy's.
      host: hostname,
      ...(isIp ? {} : { servername: hostname }),
      ALPNProtocols: ["http/1.1"],
    });
    // The request below reports the socket's errors; this keeps one that comes before it is attached (or after
    // it is gone) from being an unhandled 'error' event, which would end the process.
    secure.on("error", () => {});
    options = {
      method: hop.method,
      host: hostname,
      port,
      path: url.pathname + url.search,
      headers,
      // No agent: with one (even `agent: false`, which makes a fresh one) Node ignores createConnection.
      signal: ctx.signal,
      createConnection: () => secure,
    };
  } else {
    if (proxy.authorization !== null) headers["proxy-authorization"] = proxy.authorization;
    options = {
      method: hop.method,
      host: proxy.hostname,
      port: proxy.port,
      // Absolute form: the proxy forwards by this URL (its userinfo is always empty, upstream.ts refuses it).
      path: url.href,
      headers,
      agent: false,
      signal: ctx.signal,
    };
  }
  return await new Promise<HopResponse>((resolve, reject) => {
    const req = http.request(options, (res) => {
      if (url.protocol === "http:" && res.statusCode === 407) {
        res.destroy();
        reject(new ToolError(`Request to ${host} failed: the egress proxy refused it (${proxyStatus(407)}).`));
        return;
      }
      resolve(toHopResponse(res));
    });
    req.once("error", reject);
    req.end(bodyBytes ?? undefined);
  });
}
