/**
 * The MCP face of a compiled server: a factory of low-level SDK `Server` instances.
 *
 * The low-level `Server` is used (not `McpServer.registerTool`) so the published schemas are exactly the spec's,
 * byte for byte, and so no schema is ever compiled at run time: validation uses the validators Ajv generated at
 * build time. The SDK still owns the protocol: both eras, `server/discover`, the result envelope, cache hints and
 * the 2025-era projection of structured results (`projectCallToolResult`).
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type jsonSchemaValidator,
  type McpRequestContext,
} from "@modelcontextprotocol/server";
import { type CallerContext, callerOf, STDIO_CALLER } from "../secrets/credentials/caller.ts";
import { requestSpan, traceInitialize } from "../telemetry/request-span.ts";
import { NO_TELEMETRY, type Telemetry } from "../telemetry/telemetry.ts";
import { deepFreeze } from "../define.ts";
import type { CompiledServer, CompiledTool, ToolListing } from "../plan.ts";
import type { ToolRunner } from "../call/runner.ts";
import { viewServing } from "./views.ts";

/**
 * The server never validates a schema at run time (it asks for no elicitation). Passing this validator keeps
 * the SDK from constructing its default Ajv-backed one, which would generate code.
 */
const noRuntimeSchemas: jsonSchemaValidator = {
  getValidator() {
    throw new Error("This server compiles no JSON Schema at run time.");
  },
};

/** The SDK `Server` options every generated server uses, in either mode. */
export type ServerOptions = ReturnType<typeof serverOptions>;

export function serverOptions(plan: CompiledServer["plan"], views = false) {
  return {
    // No listChanged: a generated server's tools never change while it runs, so it never sends
    // notifications/tools/list_changed (`kervanc dev`, which does, advertises it itself). Resources only for
    // the views of the kervanc views extension (views.ts).
    capabilities: views ? { tools: {}, resources: {} } : { tools: {} },
    jsonSchemaValidator: noRuntimeSchemas,
    ...(plan.description !== undefined ? { instructions: plan.description } : {}),
  };
}

export function createServerFactory(
  compiled: CompiledServer,
  runner: ToolRunner,
  profile: string | null = null,
  stdioCaller: CallerContext = STDIO_CALLER,
  telemetry: Telemetry = NO_TELEMETRY,
): (context?: McpRequestContext) => Server {
  const { plan } = compiled;
  const listTools = listingSource(compiled.tools, profile);
  const info = { name: plan.name, version: plan.version };
  const options = serverOptions(plan, compiled.views !== undefined);
  // The kervanc views extension's resources; nothing for a spec without views.
  const serveViews = compiled.views !== undefined ? viewServing(compiled.views) : undefined;
  return (context) => {
    // Who calls, for the upstream-auth extension: HTTP request headers and a verified OAuth token, or neither.
    const caller = context?.requestInfo !== undefined ? callerOf(context) : stdioCaller;
    const server = new Server(info, options);
    traceInitialize(server, telemetry, context);
    server.setRequestHandler("tools/list", (request, ctx) => {
      const span = requestSpan(telemetry, "tools/list", null, request.params?._meta, context, ctx.mcpReq.id);
      try {
        return listTools() as never;
      } finally {
        span.end();
      }
    });
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const name = request.params.name;
      if (!runner.has(name)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
      const span = requestSpan(telemetry, "tools/call", name, request.params._meta, context, ctx.mcpReq.id);
      const result = await runner.call(name, request.params.arguments, ctx.mcpReq.signal, caller, span);
      return result.isError ? result : server.projectCallToolResult(result, runner.outputSchema(name));
    });
    serveViews?.(server);
    return server;
  };
}

type ToolsListResult = { readonly tools: readonly ToolListing[] };

/**
 * What answers each `tools/list`. From the second on, one result is kept, deep-frozen, and shared: HTTP builds a
 * server per request and this is that request's hot path, and no answer can change what a later one says. The
 * first answer gets a result of its own, not frozen and not kept: a stdio session lists once, and freezing every
 * tool's schemas costs twice what parsing them does, on the way to a client's first answer.
 */
export function listingSource(tools: readonly CompiledTool[], profile: string | null = null): () => ToolsListResult {
  let kept: ToolsListResult | null = null;
  let listed = false;
  return () => {
    if (kept !== null) return kept;
    if (!listed) {
      listed = true;
      return toolsList(tools, false, profile);
    }
    return (kept = toolsList(tools, true, profile));
  };
}

/**
 * The `tools/list` result. A generated tool carries its entry as JSON text, parsed here without reading the
 * tool's plan; the SDK writes the result out as compact JSON, so the texts' whitespace never reaches the wire.
 * Frozen unless `frozen` is false, for a result that is used once and dropped.
 */
export function toolsList(
  tools: readonly CompiledTool[],
  frozen = true,
  profile: string | null = null,
): ToolsListResult {
  const entries = tools.map((tool) => {
    // A schema profile's rewrite where the tool has one; the spec's own listing otherwise.
    const json = (profile !== null ? tool.profiles?.[profile] : undefined) ?? tool.listingJson;
    return json !== undefined ? (JSON.parse(json) as ToolListing) : tool.plan.listing;
  });
  const result = { tools: entries };
  return frozen ? deepFreeze(result) : result;
}
