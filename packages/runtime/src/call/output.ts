/**
 * Turning an upstream response into what the model sees.
 *
 * The response is untrusted: its status line, reason phrase and error bodies are never shown. In select mode
 * the JSON is parsed and redacted before the expression runs, so an expression cannot reshape or probe a secret
 * that an API echoed; what the expression makes is redacted again before it is cut (it can join pieces). In
 * raw mode the text is redacted before it is cut. Either way a cut cannot leave a prefix of a secret behind.
 */
import { cutIndex } from "./cut.ts";
import { emptySuccess } from "./empty.ts";
import { ToolError } from "./errors.ts";
import { jsonTextNestsDeeper, MAX_JSON_NESTING } from "./json-depth.ts";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CompiledValidator, JsonValue, OutputPlan } from "../plan.ts";
import type { SecretVault } from "../secrets/secrets.ts";
import { evaluateSelect, SelectError } from "../select/evaluate.ts";
import { shownType } from "./shown-type.ts";
import { STATUS_REASONS } from "./status.ts";
import type { UpstreamResponse } from "../net/upstream.ts";
import { formatValidationErrors } from "./validation.ts";

/** The media type without parameters, lower-cased. */
export function mediaType(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

export function isJsonType(type: string): boolean {
  return type === "application/json" || type.endsWith("+json");
}

export function isTextType(type: string): boolean {
  return type.startsWith("text/") || isJsonType(type);
}

export function statusError(status: number): ToolError {
  const reason = STATUS_REASONS[status];
  return new ToolError(
    reason === undefined ? `Upstream returned ${status}.` : `Upstream returned ${status} ${reason}.`,
  );
}

/**
 * Kervan's marker, `[truncated: N more characters]`, with N in UTF-16 code units. The cut never splits a surrogate
 * pair (Kervan's does, leaving a lone surrogate): it keeps one unit less, and N counts it.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = cutIndex(text, max);
  return `${text.slice(0, end)}\n[truncated: ${text.length - end} more characters]`;
}

export interface OutputContext {
  readonly toolName: string;
  readonly output: OutputPlan;
  readonly validateOutput: CompiledValidator | null;
  readonly vault: SecretVault;
}

const decoder = new TextDecoder();

export function shapeOutput(response: UpstreamResponse, ctx: OutputContext): CallToolResult {
  if (response.status >= 400) throw statusError(response.status);
  const empty = emptySuccess(response);
  if (empty !== null) return empty;
  const type = mediaType(response.contentType);
  const { output, vault } = ctx;
  if (output.kind === "raw") {
    if (!isTextType(type)) throw new ToolError(`Upstream returned ${shownType(type)}; raw output needs text or JSON.`);
    // Text-level redaction undoes escapes itself (\u0073, \/, &#x73;, %73), so it needs neither valid JSON nor
    // a particular content type.
    const redacted = vault.redactText(decoder.decode(response.body));
    return { content: [{ type: "text", text: truncate(redacted, output.maxOutputChars) }] };
  }

  if (output.kind === "binary")
    throw new ToolError(`Upstream returned ${shownType(type)}; this tool returns binary answers only.`);
  if (!isJsonType(type)) throw new ToolError(`Upstream returned ${shownType(type)}; expected JSON.`);
  const body = decoder.decode(response.body);
  // Checked on the text, before parsing: what follows the parse (select, JSON.stringify, the SDK's handling
  // of the result) recurses once per level.
  if (jsonTextNestsDeeper(body, MAX_JSON_NESTING)) {
    throw new ToolError(`Upstream returned JSON nested more than ${MAX_JSON_NESTING} levels deep, the limit.`);
  }
  let data: JsonValue;
  try {
    data = vault.parseJson(body);
  } catch {
    throw new ToolError("Upstream returned invalid JSON.");
  }
  let value: JsonValue;
  try {
    value = evaluateSelect(output.ast, data) ?? null;
  } catch (error) {
    if (error instanceof SelectError && error.kind === "budget") {
      throw new ToolError(`output.select ${error.message} and was stopped. Simplify the expression.`);
    }
    // Kervan masks evaluation errors (the model sees an internal error with a ref); the log gets this text.
    throw new Error(`output.select failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  // The data was redacted, but an expression can build a secret from pieces that are not one (`join('', parts)`,
  // a key from `from_items`). Redact what it made before it is checked, measured and cut: the cut would leave
  // all but the end of a secret, which is no form of it.
  value = vault.redactValue(value);
  const max = output.maxOutputChars;
  // evaluateSelect has already measured the result's serialised size against its maxBytes budget, so this
  // stringify is bounded.
  const text = JSON.stringify(value);
  if (output.structured) {
    if (text.length > max) {
      throw new ToolError(
        `The selected output has ${text.length} characters, more than the limit of ${max}. Narrow output.select.`,
      );
    }
    if (ctx.validateOutput !== null && !ctx.validateOutput(value)) {
      throw new ToolError(
        `Output validation error: Invalid structured content for tool ${ctx.toolName}: ${formatValidationErrors(ctx.validateOutput.errors)}`,
      );
    }
    return { content: [{ type: "text", text }], structuredContent: value as CallToolResult["structuredContent"] };
  }
  return { content: [{ type: "text", text: truncate(text, max) }] };
}
