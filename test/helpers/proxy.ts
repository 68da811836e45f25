/**
 * A real forward proxy on 127.0.0.1 for the egress tests: CONNECT tunnels (what HTTPS upstreams use) and
 * absolute-form plain-http requests. It resolves nothing: every host name it is asked for is mapped to
 * 127.0.0.1 on the requested port, so an upstream name that resolves nowhere else (api.proxied.test) is
 * reachable only through it. It records what it was asked and every byte it relayed, and can require
 * credentials, refuse every tunnel with a status, or drop it.
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";

export interface ProxyOptions {
  /** `user:password` the proxy requires (407 otherwise). */
  readonly credentials?: string;
  /** Answer every CONNECT with this status instead of tunnelling. */
  readonly refuseWith?: number;
  /** Close the client's socket as soon as the CONNECT arrives. */
  readonly drop?: boolean;
}

export interface TestProxy {
  readonly url: string;
  readonly port: number;
  /** `host:port` of every CONNECT, in order. */
  readonly connects: string[];
  /** The Proxy-Authorization header of every request (or ""), in order. */
  readonly authorizations: string[];
  /** Every byte relayed in either direction, as latin1 text, for plaintext searches. */
  relayed(): string;
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions = {}): Promise<TestProxy> {
  const connects: string[] = [];
  const authorizations: string[] = [];
  const relayed: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const expected =
    options.credentials === undefined ? null : `Basic ${Buffer.from(options.credentials).toString("base64")}`;
  const authorized = (header: string | undefined): boolean => expected === null || header === expected;
  const server = http.createServer((req, res) => {
    // Absolute-form plain http: forward to 127.0.0.1 on the target's port.
    authorizations.push(req.headers["proxy-authorization"] ?? "");
    if (!authorized(req.headers["proxy-authorization"])) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const target = new URL(req.url ?? "");
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = http.request(
      {
        host: "127.0.0.1",
        port: Number(target.port || 80),
        path: target.pathname + target.search,
        method: req.method,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    connects.push(req.url ?? "");
    authorizations.push(req.headers["proxy-authorization"] ?? "");
    if (options.drop) {
      client.destroy();
      return;
    }
    if (!authorized(req.headers["proxy-authorization"])) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n',
      );
      return;
    }
    if (options.refuseWith !== undefined) {
      client.end(`HTTP/1.1 ${options.refuseWith} Refused by test proxy\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const port = Number(/:(\d+)$/.exec(req.url ?? "")?.[1] ?? "443");
    const upstream = net.connect(port, "127.0.0.1", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      client.on("data", (chunk: Buffer) => relayed.push(chunk));
      upstream.on("data", (chunk: Buffer) => relayed.push(chunk));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    authorizations,
    relayed: () => Buffer.concat(relayed).toString("latin1"),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
