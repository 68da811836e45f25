/**
 * Discovery mode (`server.mjs --discovery`, `KERVANC_DISCOVERY=1`): instead of every tool, the server lists three,
 * so a client with a large package pays for three listings per conversation, not for all of them:
 *
 * - `search_tools`: a query in words → the best matching tools' names, titles and one-line descriptions
 *   (tool-search.ts);
 * - `describe_tool`: a name → that tool's `tools/list` entry (its input and output schemas);
 * - `call_tool`: a name and arguments → exactly what calling that tool directly does. The call goes through the
 *   same `ToolRunner.call` as a direct call (validators, limits, rate limits, redaction, network policy, logs)
 *   and its result through the same projection for the client's protocol revision.
 *
 * Only the tools the server serves can be found, described or called: a start-up selection (`--tools`,
 * `--toolsets`, `--read-only`) applies inside discovery too, since it has already narrowed the server given here.
 *
 * The three tools' own arguments are checked here, by hand: no schema is compiled at run time, and these
 * schemas are fixed. A mistake in them is a tool error the model can read and correct, as a validation error of
 * a generated tool is.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type McpRequestContext,
} from "@modelcontextprotocol/server";
import { type CallerContext, callerOf, STDIO_CALLER } from "../secrets/credentials/caller.ts";
import { requestSpan, traceInitialize } from "../telemetry/request-span.ts";
import { NO_TELEMETRY, type Telemetry } from "../telemetry/telemetry.ts";
import { deepFreeze, headOf } from "../define.ts";
import type { CompiledServer, JsonObject, ToolListing } from "../plan.ts";
import type { ToolRunner } from "../call/runner.ts";
import { ToolIndex } from "./tool-search.ts";
import { serverOptions, toolsList } from "./mcp.ts";
import { viewServing } from "./views.ts";

export const SEARCH_TOOLS = "search_tools";
export const DESCRIBE_TOOL = "describe_tool";
export const CALL_TOOL = "call_tool";

/** The longest query `search_tools` reads; a longer one is refused, not cut. */
const MAX_QUERY_CHARS = 1000;
const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 25;

function listings(count: number, allReadOnly: boolean): readonly ToolListing[] {
  const list: ToolListing[] = [
    {
      name: SEARCH_TOOLS,
      title: "Search tools",
      description: `Find this server's tools (${count} in all) by what they do. Returns the best matches' names, titles and one-line descriptions, best first. Then call describe_tool for a tool's arguments, and call_tool to run it.`,
      inputSchema: {
        type: "object",
        properties: {
          query: {
            type: "string",
            minLength: 1,
            maxLength: MAX_QUERY_CHARS,
            description: "What the tool should do, in words.",
          },
          limit: {
            type: "integer",
            minimum: 1,
            maximum: MAX_LIMIT,
            description: `How many tools to return (default ${DEFAULT_LIMIT}).`,
          },
        },
        required: ["query"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          tools: {
            type: "array",
            items: {
              type: "object",
              properties: { name: { type: "string" }, title: { type: "string" }, description: { type: "string" } },
              required: ["name", "description"],
            },
          },
        },
        required: ["tools"],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: DESCRIBE_TOOL,
      title: "Describe a tool",
      description:
        "Returns one of this server's tools as a client would list it: its description, the JSON Schema of its arguments and, when it has one, of its result.",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string", description: "The tool's name, as search_tools gave it." } },
        required: ["name"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      title: "Call a tool",
      description:
        "Calls one of this server's tools with its arguments (as describe_tool shows them) and returns its result.",
      inputSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "The tool's name." },
          arguments: { type: "object", description: "The tool's arguments." },
        },
        required: ["name"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: allReadOnly, openWorldHint: true },
    },
  ];
  return deepFreeze(list);
}

/** A tool error the model reads, for a mistake in the discovery tools' own arguments. */
function mistake(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function structured(value: JsonObject): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Arguments with exactly the keys allowed and `required` present, or the mistake to report. */
function checkKeys(args: unknown, allowed: readonly string[], required: readonly string[]): string | null {
  if (args !== undefined && !isObject(args)) return "The arguments must be an object.";
  const given = args ?? {};
  const extra = Object.keys(given).filter((key) => !allowed.includes(key));
  if (extra.length > 0) return `Unknown argument ${JSON.stringify(extra[0])}; the arguments are ${allowed.join(", ")}.`;
  const missing = required.filter((key) => !Object.hasOwn(given, key));
  return missing.length > 0 ? `Missing argument ${JSON.stringify(missing[0])}.` : null;
}

export function createDiscoveryFactory(
  compiled: CompiledServer,
  runner: ToolRunner,
  profile: string | null = null,
  stdioCaller: CallerContext = STDIO_CALLER,
  telemetry: Telemetry = NO_TELEMETRY,
): (context?: McpRequestContext) => Server {
  const options = serverOptions(compiled.plan, compiled.views !== undefined);
  // The kervanc views extension's resources; nothing for a spec without views.
  const serveViews = compiled.views !== undefined ? viewServing(compiled.views) : undefined;
  const heads = compiled.tools.map((tool) => headOf(tool));
  const allReadOnly = heads.every((head) => head.readOnly === true);
  const listed = deepFreeze({ tools: listings(compiled.tools.length, allReadOnly) });
  const info = { name: compiled.plan.name, version: compiled.plan.version };
  // The served tools' listings, parsed once, when first described or searched.
  let served: ReadonlyMap<string, ToolListing> | null = null;
  let index: ToolIndex | null = null;
  const servedListings = (): ReadonlyMap<string, ToolListing> =>
    (served ??= new Map(toolsList(compiled.tools, true, profile).tools.map((listing) => [listing.name, listing])));
  const searchIndex = (): ToolIndex =>
    (index ??= new ToolIndex(
      [...servedListings().values()],
      heads.map((head) => head.toolsets),
    ));

  const unknown = (name: string): CallToolResult =>
    mistake(`This server has no tool named ${JSON.stringify(name)}; search_tools finds the ones it has.`);

  function search(args: unknown): CallToolResult {
    const problem = checkKeys(args, ["query", "limit"], ["query"]);
    if (problem !== null) return mistake(problem);
    const { query, limit = DEFAULT_LIMIT } = args as { query: unknown; limit?: unknown };
    if (typeof query !== "string" || query.trim() === "" || query.length > MAX_QUERY_CHARS)
      return mistake(`query must be words describing the tool, at most ${MAX_QUERY_CHARS} characters.`);
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return mistake(`limit must be a whole number from 1 to ${MAX_LIMIT}.`);
    return structured({ tools: searchIndex().search(query, limit) as unknown as JsonObject[] });
  }

  function describe(args: unknown): CallToolResult {
    const problem = checkKeys(args, ["name"], ["name"]);
    if (problem !== null) return mistake(problem);
    const { name } = args as { name: unknown };
    if (typeof name !== "string") return mistake("name must be a string.");
    const listing = servedListings().get(name);
    return listing === undefined ? unknown(name) : structured(listing as unknown as JsonObject);
  }

  return (context) => {
    // Who calls, for the upstream-auth extension: HTTP request headers and a verified OAuth token, or neither.
    const caller = context?.requestInfo !== undefined ? callerOf(context) : stdioCaller;
    const server = new Server(info, options);
    traceInitialize(server, telemetry, context);
    server.setRequestHandler("tools/list", () => listed as never);
    server.setRequestHandler("tools/call", async (request, ctx) => {
      const args = request.params.arguments;
      switch (request.params.name) {
        case SEARCH_TOOLS:
          return search(args);
        case DESCRIBE_TOOL:
          return describe(args);
        case CALL_TOOL: {
          const problem = checkKeys(args, ["name", "arguments"], ["name"]);
          if (problem !== null) return mistake(problem);
          const { name, arguments: toolArgs = {} } = args as { name: unknown; arguments?: unknown };
          if (typeof name !== "string") return mistake("name must be a string.");
          if (!runner.has(name)) return unknown(name);
          // The direct call's own path, from validation to redaction, and its projection for this client.
          const span = requestSpan(telemetry, "tools/call", name, request.params._meta, context, ctx.mcpReq.id);
          const result = await runner.call(name, toolArgs, ctx.mcpReq.signal, caller, span);
          return result.isError ? result : server.projectCallToolResult(result, runner.outputSchema(name));
        }
        default:
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
      }
    });
    serveViews?.(server);
    return server;
  };
}
