/**
 * The benchmark upstream: a node:http server on 127.0.0.1 that answers every request at once with the same JSON
 * (gen-specs.ts `upstreamBody()`), keeping connections alive. It runs as its own process, so that the servers
 * under test and the load generator never share an event loop with it; it prints `PORT <n>` when listening.
 *
 *   node --import tsx scripts/bench/upstream.ts [--port N]
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { parseArgs } from "node:util";
import { upstreamBody } from "./gen-specs.ts";

const { values } = parseArgs({ options: { port: { type: "string", default: "0" } } });

const body = Buffer.from(upstreamBody(), "utf8");
const headers = { "content-type": "application/json", "content-length": String(body.length) };

const server = http.createServer((req, res) => {
  // Request bodies (the create tools' JSON) are read and dropped; the answer never depends on them.
  req.resume();
  req.on("end", () => res.writeHead(200, headers).end(body));
});
server.keepAliveTimeout = 30_000;
// The rows with a new upstream connection per call open tens of thousands of short connections; allow them.
server.maxConnections = 100_000;
server.listen(Number(values.port), "127.0.0.1", () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
process.once("SIGTERM", () => process.exit(0));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
