/**
 * The SDK v2 client pinned to 2026-07-28 (modern) and the SDK v1 client (legacy, 2025-11-25), over stdio with
 * any command (so a server can be spawned by another Node than the one running the tests) or over Streamable
 * HTTP to any URL.
 */
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Era, ToolResult } from "./clients.ts";

export interface ContractClient {
  readonly era: Era;
  /** The era the connection landed on, as the client reports it. */
  negotiated(): Era | undefined;
  listTools(): Promise<{ tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] }>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface StdioTarget {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd?: string;
}

const info = { name: "kervanc-runtime-tests", version: "1.0.0" };

function modern(): ModernClient {
  // The client validates structuredContent; this validator generates no code.
  return new ModernClient(info, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
}

function wrapModern(client: ModernClient): ContractClient {
  return {
    era: "modern",
    negotiated: () => client.getProtocolEra(),
    listTools: () => client.listTools() as never,
    callTool: (name, args) => client.callTool({ name, arguments: args }) as never,
    close: () => client.close(),
  };
}

function wrapLegacy(client: LegacyClient): ContractClient {
  return {
    era: "legacy",
    // The v1 client only knows the 2025 handshake; it reports the server it initialized with.
    negotiated: () => (client.getServerVersion() ? "legacy" : undefined),
    listTools: () => client.listTools() as never,
    callTool: (name, args) => client.callTool({ name, arguments: args }) as never,
    close: () => client.close(),
  };
}

export async function stdioClient(era: Era, target: StdioTarget): Promise<ContractClient> {
  const params = {
    command: target.command,
    args: [...target.args],
    env: { PATH: process.env["PATH"] ?? "", ...target.env },
    stderr: "pipe" as const,
    ...(target.cwd !== undefined ? { cwd: target.cwd } : {}),
  };
  if (era === "modern") {
    const client = modern();
    await client.connect(new ModernStdio(params));
    return wrapModern(client);
  }
  const client = new LegacyClient(info);
  await client.connect(new LegacyStdio(params));
  return wrapLegacy(client);
}

export async function httpClient(era: Era, url: string): Promise<ContractClient> {
  if (era === "modern") {
    const client = modern();
    await client.connect(new ModernHttp(new URL(url)));
    return wrapModern(client);
  }
  const client = new LegacyClient(info);
  await client.connect(new LegacyHttp(new URL(url)));
  return wrapLegacy(client);
}
