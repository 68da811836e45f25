/**
 * Who is calling a tool, as far as the kervanc upstream-auth extension needs to know: the headers of the
 * Streamable HTTP request (for `callerHeader` credentials) and the caller's verified OAuth access token (for
 * `tokenExchange`). Over stdio there is neither.
 */
import type { McpRequestContext } from "@modelcontextprotocol/server";

/** The `AuthInfo.extra` key http-handler.ts sets when the token was verified by this server's OAuth mode. */
export const VERIFIED_OAUTH = "kervancVerifiedOAuth";

export interface CallerContext {
  /** The MCP request's HTTP headers; absent over stdio. */
  readonly headers?: { get(name: string): string | null };
  /** The caller's access token, verified by this server's OAuth mode, its subject and `exp` (seconds). */
  readonly oauth?: { readonly token: string; readonly subject: string; readonly exp: number };
  /** How the server runs, for the words of an error: `stdio`, or `http` without OAuth. */
  readonly transport: "stdio" | "http";
}

export const STDIO_CALLER: CallerContext = { transport: "stdio" };

/** The caller of one MCP request, from what the SDK hands a server factory. */
export function callerOf(context: McpRequestContext | undefined): CallerContext {
  const request = context?.requestInfo;
  if (request === undefined) return STDIO_CALLER;
  const auth = context?.authInfo;
  const verified =
    auth !== undefined && auth.extra?.[VERIFIED_OAUTH] === true && typeof auth.expiresAt === "number"
      ? { token: auth.token, subject: auth.clientId, exp: auth.expiresAt }
      : undefined;
  return { transport: "http", headers: request.headers, ...(verified !== undefined ? { oauth: verified } : {}) };
}
