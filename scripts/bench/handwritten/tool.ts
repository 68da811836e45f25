/**
 * Baseline (a), the work of one call written by hand: the generated specs' tool 0 (`get_order_0`, see
 * gen-specs.ts) as a careful programmer would write it inline, with no plan, no interpreter and no generality.
 *
 * It does what the compiled tool does: check the arguments (a hand-written check of the same schema), build the
 * URL with encoded path and query values, send the request with a timeout and a size limit, refuse error
 * statuses and non-JSON answers, pick the five fields (JMESPath semantics: a missing field is null), check the
 * output against the output schema, keep the token out of the result, and return text plus structured content.
 * Sending is injected, so the same code runs over a socket in the server and against a stub in process.
 */

export const TOOL_NAME = "get_order_0";

/** The tool as listed: the same schemas the compiled server publishes for tool 0. */
export const LISTING = {
  name: TOOL_NAME,
  title: "Get a order",
  description: "Get one order by id, with its status, last update and owner.",
  inputSchema: {
    type: "object",
    properties: {
      id: { type: "integer", minimum: 1, maximum: 2147483647, description: "The order id." },
      fields: {
        type: "string",
        maxLength: 64,
        pattern: "^[a-z_,]*$",
        description: "Comma-separated fields to include.",
      },
      lang: { type: "string", enum: ["en", "de", "fr", "tr"] },
    },
    required: ["id"],
    additionalProperties: false,
  },
  outputSchema: {
    type: "object",
    properties: {
      id: { type: "integer" },
      name: { type: "string" },
      status: { type: "string" },
      updated: { type: "string" },
      owner: { type: "string" },
    },
    required: ["id", "name"],
  },
  annotations: { openWorldHint: true, readOnlyHint: true },
} as const;

export interface Sent {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Sends one GET; rejects on network errors, timeouts and oversized bodies. */
export type Send = (path: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Sent>;

export interface ToolContext {
  readonly send: Send;
  /** The bearer token, when the spec variant sends one. */
  readonly token: string | undefined;
  readonly timeoutMs: number;
}

export interface Result {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const LANGS = new Set(["en", "de", "fr", "tr"]);
const FIELDS = /^[a-z_,]*$/;
const KNOWN = new Set(["id", "fields", "lang"]);

export function error(text: string): Result {
  return { content: [{ type: "text", text }], isError: true };
}

/** The input schema, checked by hand; null when the arguments are valid. */
export function checkArgs(args: unknown): string | null {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return "arguments must be an object";
  const a = args as Record<string, unknown>;
  for (const key of Object.keys(a)) if (!KNOWN.has(key)) return `must NOT have additional property ${key}`;
  const id = a["id"];
  if (id === undefined) return "must have required property 'id'";
  if (typeof id !== "number" || !Number.isInteger(id)) return "id must be integer";
  if (id < 1 || id > 2147483647) return "id must be >= 1 and <= 2147483647";
  const fields = a["fields"];
  if (fields !== undefined && (typeof fields !== "string" || fields.length > 64 || !FIELDS.test(fields)))
    return "fields must be a string of at most 64 characters matching ^[a-z_,]*$";
  const lang = a["lang"];
  if (lang !== undefined && (typeof lang !== "string" || !LANGS.has(lang)))
    return "lang must be equal to one of the allowed values";
  return null;
}

export function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : null;
}

export async function callTool(args: unknown, ctx: ToolContext): Promise<Result> {
  const problem = checkArgs(args ?? {});
  if (problem !== null) return error(`Input validation error: Invalid arguments for tool ${TOOL_NAME}: ${problem}`);
  const a = args as { id: number; fields?: string; lang?: string };
  const query = new URLSearchParams();
  if (a.fields !== undefined) query.append("fields", a.fields);
  if (a.lang !== undefined) query.append("lang", a.lang);
  query.append("include", "owner");
  const path = `/v1/orders/${encodeURIComponent(String(a.id))}?${query.toString()}`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (ctx.token !== undefined) headers["authorization"] = `Bearer ${ctx.token}`;
  let sent: Sent;
  try {
    sent = await ctx.send(path, headers, AbortSignal.timeout(ctx.timeoutMs));
  } catch (e) {
    return error(`Request failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (sent.status >= 400) return error(`Upstream returned ${sent.status}.`);
  const type = sent.contentType.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json"))
    return error(`Upstream returned content type ${type}; expected JSON.`);
  let data: unknown;
  try {
    data = JSON.parse(sent.body);
  } catch {
    return error("Upstream returned invalid JSON.");
  }
  const value = {
    id: field(data, "id"),
    name: field(data, "name"),
    status: field(data, "status"),
    updated: field(field(data, "meta"), "updated"),
    owner: field(field(data, "owner"), "name"),
  };
  // The output schema: id an integer, the rest strings (a missing field selects null, which the schema refuses).
  if (typeof value.id !== "number" || !Number.isInteger(value.id))
    return error("Output validation error: id must be integer");
  for (const key of ["name", "status", "updated", "owner"] as const) {
    if (typeof value[key] !== "string") return error(`Output validation error: ${key} must be string`);
  }
  let text = JSON.stringify(value);
  let structured: Record<string, unknown> = value;
  // The token never leaves in a result: an upstream that echoes it gets it cut out.
  if (ctx.token !== undefined && text.includes(ctx.token)) {
    text = text.split(ctx.token).join("[redacted]");
    structured = JSON.parse(text) as Record<string, unknown>;
  }
  return { content: [{ type: "text", text }], structuredContent: structured };
}
