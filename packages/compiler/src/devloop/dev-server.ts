/**
 * One generated server for the inner loop: the package emitted into a private temp folder and its server.mjs
 * started with the development relaxations, initialized, ready for requests.
 */
import type { CompiledSpec } from "../build.ts";
import type { PlannedServer } from "../plan/plan.ts";
import { emitDevPackage } from "./dev-package.ts";
import { DEV_SERVER_FLAGS } from "./relax.ts";
import { type JsonRpcMessage, ServerChild } from "./server-child.ts";

export interface DevServerOptions {
  /** Secrets as KEY=value lines, handed to the server as --env-file. */
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
  /** The server's answer to initialize (undefined when no handshake was made). */
  readonly initialized: unknown;
  close(): Promise<void>;
}

/** The server's own startup lines that the inner loop's banner already says. */
const QUIET = [/^Loaded .*: \d+ tool\(s\)$/, /^!! --allow-insecure-secrets/];

export async function startDevServer(compiled: CompiledSpec, planned: PlannedServer, options: DevServerOptions): Promise<DevServer> {
  const pkg = await emitDevPackage({ ...compiled, planned });
  const args = [...DEV_SERVER_FLAGS, ...(options.secretsFile !== undefined ? ["--env-file", options.secretsFile] : [])];
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
    return { child, initialized, close };
  } catch (error) {
    await close();
    throw error;
  }
}
