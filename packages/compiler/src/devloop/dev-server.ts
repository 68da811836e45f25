/**
 * One generated server for the inner loop: the package emitted into a private temp folder and its server.mjs
 * started with the development relaxations, initialized, ready for requests.
 */
import type { CompiledSpec } from "../compile.ts";
import type { PlannedServer } from "../plan/plan.ts";
import { emitDevPackage } from "./dev-package.ts";
import { DEV_SERVER_FLAGS } from "./relax.ts";
import { type JsonRpcMessage, ServerChild } from "./server-child.ts";

export interface DevServerOptions {
  /** Secrets as KEY=value lines, handed to the server as --secrets-file. */
  readonly secretsFile?: string;
  readonly env: NodeJS.ProcessEnv;
  /** The server's log lines (it redacts them itself). */
  readonly onLog?: (line: string) => void;
  readonly onMessage?: (message: JsonRpcMessage) => void;
  /** The initialize params to send (a client's, replayed); null: no handshake (the client has not made one). */
  readonly initialize?: unknown;
}

export interface DevServer {
  readonly child: ServerChild;
  /** The package's server.mjs (it lives until close). */
  readonly serverFile: string;
  /** The server's answer to initialize (undefined when no handshake was made). */
  readonly initialized: unknown;
  close(): Promise<void>;
}

/** The server's own startup lines that the inner loop's banner already says. */
const QUIET = [/^Loaded .*: \d+ tool\(s\)$/, /^!! --allow-insecure-secrets/, /^!! KERVANC_STDIO_CALLER_HEADERS/];

export async function startDevServer(
  compiled: CompiledSpec,
  planned: PlannedServer,
  options: DevServerOptions,
): Promise<DevServer> {
  const pkg = await emitDevPackage({ ...compiled, planned });
  const args = [
    ...DEV_SERVER_FLAGS,
    ...(options.secretsFile !== undefined ? ["--secrets-file", options.secretsFile] : []),
  ];
  const child = new ServerChild(pkg.serverFile, {
    args,
    env: options.env,
    onStderrLine: (line) => {
      if (!QUIET.some((q) => q.test(line))) options.onLog?.(line);
    },
    ...(options.onMessage !== undefined ? { onMessage: options.onMessage } : {}),
  });
  const close = async (): Promise<void> => {
    await child.close();
    await pkg.remove();
  };
  try {
    const initialized = options.initialize === null ? undefined : await child.initialize(options.initialize);
    return { child, serverFile: pkg.serverFile, initialized, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface HttpServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The same package served over Streamable HTTP on 127.0.0.1 (`dev --http`): resolves once it listens, rejects
 * if it stops first (the port taken, a secret refused).
 */
export async function startHttpServer(
  serverFile: string,
  port: number,
  options: Omit<DevServerOptions, "onMessage" | "initialize">,
): Promise<HttpServer> {
  const args = [
    "--http",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    ...DEV_SERVER_FLAGS,
    ...(options.secretsFile !== undefined ? ["--secrets-file", options.secretsFile] : []),
  ];
  let listening!: (url: string) => void;
  const ready = new Promise<string>((resolve) => (listening = resolve));
  const child = new ServerChild(serverFile, {
    args,
    env: options.env,
    onStderrLine: (line) => {
      const serving = /^Serving .* on (http:\/\/\S+)$/.exec(line);
      if (serving !== null) listening(serving[1]!);
      else if (!QUIET.some((q) => q.test(line))) options.onLog?.(line);
    },
  });
  const url = await Promise.race([
    ready,
    child.exited.then((code) => Promise.reject(new Error(`The HTTP server stopped (exit code ${String(code)}).`))),
  ]);
  return { url, close: () => child.close() };
}
