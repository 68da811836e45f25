/**
 * Hostile HTTP clients against the bundle as a process (an adversarial review of the serving surface): request
 * lines and bodies a web `Request` cannot hold, and text a client puts into the SDK's error reports. Each must
 * get a clear answer, and the server's log must stay one short line per report, in lines the client cannot
 * forge. Then the two serving findings of security round 2 in the forms an attacker would try: a relayed
 * request that hides its relay (without authentication), and token guesses sent all at once (with it).
 */
import type { ChildProcess } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "../helpers/http.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { modernHeadersFor, modernMessage } from "../helpers/mcp-http.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

let upstream: Upstream;
let root: string;
let serverPath: string;
let server: { child: ChildProcess; port: number; url: string; stderr: () => string };

beforeAll(async () => {
  upstream = await startUpstream((_req, res) => json(res, 200, { ok: true }));
  ({ root, serverPath } = await buildOneSpec(
    "hostile",
    "hostile.yaml",
    `specVersion: 1
name: hostile
version: "1.0.0"
defaults:
  http: { allowInsecureHttp: true }
tools:
  - name: get
    description: Gets a thing.
    http: { url: "${upstream.origin}/thing" }
    output: { select: "@" }
`,
  ));
  const started = await startHttpServer(serverPath, ["--allow-private-network"]);
  server = { ...started, port: Number(new URL(started.url).port) };
}, 120_000);

afterAll(async () => {
  server?.child.kill("SIGKILL");
  await upstream?.close();
  if (root) await removeDir(root);
});

/** Sends raw bytes on a fresh connection and resolves with the response's status line. */
function statusLine(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, "127.0.0.1");
    let received = "";
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
      const end = received.indexOf("\r\n");
      if (end >= 0) {
        socket.destroy();
        resolve(received.slice(0, end));
      }
    });
    socket.once("close", () => resolve(received.split("\r\n")[0] ?? ""));
    socket.write(text);
  });
}

/**
 * The server's stderr once the reports about the requests answered so far are in it: the server writes a report
 * before it answers the request that caused it, and one more round trip gives the pipe time to deliver it.
 */
async function settled(): Promise<string> {
  await fetch(server.url.replace(/\/mcp$/, "/healthz")).then((r) => r.text());
  return server.stderr();
}

describe("request lines a web Request cannot hold", () => {
  it("answers TRACE with 405 and a target that is not a path with 400, logging no error", async () => {
    const host = `host: 127.0.0.1:${server.port}\r\n`;
    const before = server.stderr().length;
    expect(await statusLine(`TRACE /mcp HTTP/1.1\r\n${host}\r\n`)).toBe("HTTP/1.1 405 Method Not Allowed");
    expect(await statusLine(`POST //[ HTTP/1.1\r\n${host}content-length: 2\r\n\r\n{}`)).toBe(
      "HTTP/1.1 400 Bad Request",
    );
    // Paths that name another authority once read as URLs (WHATWG reads `\` as `/`): not origin-form.
    expect(await statusLine(`POST //evil.example/mcp HTTP/1.1\r\n${host}content-length: 2\r\n\r\n{}`)).toBe(
      "HTTP/1.1 400 Bad Request",
    );
    expect(await statusLine(`POST /\\evil.example/mcp HTTP/1.1\r\n${host}content-length: 2\r\n\r\n{}`)).toBe(
      "HTTP/1.1 400 Bad Request",
    );
    const log = (await settled()).slice(before);
    expect(log).not.toMatch(/^Error/m);
    // The server goes on serving.
    const ok = await fetch(server.url, {
      method: "POST",
      headers: modernHeadersFor("tools/list"),
      body: JSON.stringify(modernMessage(1, "tools/list")),
    });
    expect(ok.status).toBe(200);
  });
});

describe("text a client puts into the SDK's error reports", () => {
  // Each test has its own server: the reports are throttled, so only a server's first report shows its text.
  const fresh = async (): Promise<typeof server> => {
    const started = await startHttpServer(serverPath, ["--allow-private-network"]);
    return { ...started, port: Number(new URL(started.url).port) };
  };
  /** A request the SDK refuses and reports: its method header disagrees with the method in its body. */
  const refused = (target: typeof server, method: string): Promise<number> =>
    fetch(target.url, {
      method: "POST",
      headers: modernHeadersFor("tools/list"),
      body: JSON.stringify(modernMessage(1, method)),
    }).then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    });
  const reports = async (target: typeof server): Promise<string[]> => {
    await fetch(target.url.replace(/\/mcp$/, "/healthz")).then((r) => r.text());
    return target
      .stderr()
      .split("\n")
      .filter((line) => line !== "" && !/^(Loaded|Serving) /.test(line));
  };

  it("never lets the client forge a log line", async () => {
    const target = await fresh();
    try {
      expect(await refused(target, "x\nError: forged by the client\r\nWarning: forged too")).toBe(400);
      const lines = await reports(target);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("x\\u000aError: forged by the client\\u000d\\u000aWarning: forged too");
    } finally {
      target.child.kill("SIGKILL");
    }
  });

  it("logs a short line however long the client's text", async () => {
    const target = await fresh();
    try {
      expect(await refused(target, "y".repeat(1_000_000))).toBe(400);
      const lines = await reports(target);
      expect(lines).toHaveLength(1);
      expect(lines[0]!.length).toBeLessThan(1_000);
      expect(lines[0]).toMatch(/\.\.\. \(\d+ more characters\)$/);
    } finally {
      target.child.kill("SIGKILL");
    }
  });

  it("logs one report, not one per request, when a client sends malformed requests by the hundred", async () => {
    const target = await fresh();
    try {
      for (let i = 0; i < 100; i++) expect(await refused(target, `bad-${i}`)).toBe(400);
      expect(await reports(target)).toHaveLength(1);
    } finally {
      target.child.kill("SIGKILL");
    }
  });
});

describe("a relayed request that hides what relayed it (security round 2, finding 3)", () => {
  /** A tools/list request written raw: `version` its HTTP version, `extra` header lines as a proxy writes them. */
  const raw = (version: string, extra: string): string => {
    const body = JSON.stringify(modernMessage(1, "tools/list"));
    const headers = Object.entries(modernHeadersFor("tools/list"))
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    return `POST /mcp HTTP/${version}\r\nhost: 127.0.0.1:${server.port}\r\n${headers}${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };

  it("is refused however the relay writes its mark, and a local client is still served", async () => {
    const forbidden = "HTTP/1.1 403 Forbidden";
    // nginx's bare proxy_pass: HTTP/1.0, Connection: close, no header added.
    expect(await statusLine(raw("1.0", "connection: close\r\n"))).toBe(forbidden);
    // Names in any case, empty values, a value that is no address, the header given twice.
    for (const extra of [
      "X-FORWARDED-FOR: 203.0.113.9\r\n",
      "x-real-ip:\r\n",
      "Forwarded: garbage\r\n",
      "via: 1.1 relay\r\nvia: 1.0 other\r\n",
      "X-Forwarded-Proto: https\r\n",
    ])
      expect(await statusLine(raw("1.1", extra)), extra).toBe(forbidden);
    expect(await statusLine(raw("1.1", "connection: close\r\n"))).toBe("HTTP/1.1 200 OK");
  });
});

describe("guessing tokens at once (security round 2, finding 4)", () => {
  it("gets at most --client-rate-limit credentials checked per address, however many requests arrive together", async () => {
    const guarded = await startHttpServer(serverPath, ["--allow-private-network", "--client-rate-limit", "5"], {
      KERVANC_AUTH_TOKENS: "hostile-right-token-0123456789",
    });
    try {
      const url = new URL(guarded.url);
      // Each guess on a connection of its own, all sent before any is answered.
      const statuses = await Promise.all(
        Array.from(
          { length: 300 },
          (_, i) =>
            new Promise<number>((resolve, reject) => {
              const req = http.request(
                {
                  host: url.hostname,
                  port: url.port,
                  path: url.pathname,
                  method: "GET",
                  agent: false,
                  headers: { host: url.host, authorization: `Bearer wrong-guess-${i}-0123456789` },
                },
                (res) => {
                  res.resume();
                  resolve(res.statusCode ?? 0);
                },
              );
              req.on("error", reject);
              req.end();
            }),
        ),
      );
      // Each 401 is a credential that was checked; the rest were turned away before any check.
      expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(5);
      expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    } finally {
      guarded.child.kill("SIGKILL");
    }
  });
});
