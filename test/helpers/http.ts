/** Starting a generated server in HTTP mode as a process, and finding the URL it listens on. */
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";

/** Starts `server.mjs --http --port 0` and resolves with the endpoint it reports on stderr. */
export async function startHttpServer(
  serverPath: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    ["--disallow-code-generation-from-strings", serverPath, "--http", "--port", "0", ...args],
    {
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${err}`)), 20_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
      // A text line ends at the URL; a JSON line (--log-format json) at the closing quote.
      const match = / on (http:\/\/[^\s"]+\/mcp)["\n]/.exec(err);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("exit", (code) => reject(new Error(`the server exited (${code}): ${err}`)));
  });
  return { child, url, stderr: () => err };
}

/**
 * POSTs `body` to `url` with exactly `headers` and resolves with the status, the answer drained unread: for tests
 * of who gets served, where only the status counts. http.request, not fetch, so that no header is added.
 */
export function postStatus(url: string, headers: http.OutgoingHttpHeaders, body: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
