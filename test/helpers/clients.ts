/**
 * Real MCP clients for tests: the SDK v2 client pinned to 2026-07-28 (modern) and the SDK v1 client, which only
 * speaks 2025-11-25 (legacy). Both spawn the generated server as a child process over stdio.
 */
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Stream } from "node:stream";

export type Era = "modern" | "legacy";

export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

export interface TestClient {
  readonly era: Era;
  listTools(): Promise<{
    tools: { name: string; inputSchema: unknown; outputSchema?: unknown; [k: string]: unknown }[];
  }>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** `resources/list` and `resources/read` (the views extension's pages). */
  listResources(): Promise<{ resources: { uri: string; name: string; mimeType?: string; [k: string]: unknown }[] }>;
  readResource(
    uri: string,
  ): Promise<{ contents: { uri: string; mimeType?: string; text?: string; [k: string]: unknown }[] }>;
  /** The capabilities the server declared. */
  serverCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** The protocol era the connection actually landed on, as the client reports it. */
  negotiatedEra(): Era | undefined;
}

export interface SpawnOptions {
  readonly nodeArgs?: readonly string[];
  readonly serverArgs?: readonly string[];
  readonly env?: Record<string, string>;
  readonly cwd?: string;
}

function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  // A minimal environment: PATH for the runtime, plus what the test gives.
  return { PATH: process.env["PATH"] ?? "", ...extra };
}

/** The stdio transport parameters, the same for both SDKs: this process's node runs the server, stderr piped. */
function stdioServer(args: string[], options: SpawnOptions) {
  return {
    command: process.execPath,
    args,
    env: baseEnv(options.env),
    stderr: "pipe" as const,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  };
}

/** What the tests use of either SDK's client, which both have with the same shape (each with its own transport). */
interface SdkClient<Transport> {
  connect(transport: Transport): Promise<void>;
  listTools(): Promise<unknown>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  getServerCapabilities(): unknown;
  close(): Promise<void>;
}

/**
 * Connects either SDK's client over its stdio transport, keeping what the server writes to stderr: the two eras
 * differ only in the client they build and how it reports the era it landed on.
 */
async function connected<Transport extends { readonly stderr: Stream | null }>(
  era: Era,
  client: SdkClient<NoInfer<Transport>>,
  transport: Transport,
  negotiatedEra: () => Era | undefined,
): Promise<TestClient> {
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  await client.connect(transport);
  return {
    era,
    listTools: () => client.listTools() as never,
    callTool: (name, a) => client.callTool({ name, arguments: a }) as never,
    listResources: () => client.listResources() as never,
    readResource: (uri) => client.readResource({ uri }) as never,
    serverCapabilities: () => client.getServerCapabilities() as never,
    close: () => client.close(),
    stderr: () => stderr,
    negotiatedEra,
  };
}

export async function connect(era: Era, serverPath: string, options: SpawnOptions = {}): Promise<TestClient> {
  const args = [...(options.nodeArgs ?? []), serverPath, ...(options.serverArgs ?? [])];
  if (era === "modern") {
    const client = new ModernClient(
      { name: "kervanc-tests", version: "1.0.0" },
      // The client validates structuredContent; this validator generates no code.
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    return connected(era, client, new ModernStdio(stdioServer(args, options)), () => client.getProtocolEra());
  }
  const client = new LegacyClient({ name: "kervanc-tests", version: "1.0.0" });
  // The v1 client only knows the 2025 handshake; it reports the server it initialized with.
  return connected(era, client, new LegacyStdio(stdioServer(args, options)), () =>
    client.getServerVersion() ? "legacy" : undefined,
  );
}
