/**
 * The kervanc error-detail extension (docs/extensions/error-detail.md): on a non-2xx answer with a JSON body, the
 * tool's `output.error.select` runs over the body, redacted first, under the same budgets as `select`; its result,
 * redacted again and cut at `maxChars`, follows the status line in the tool error, so a model can correct its
 * call ("email: must be a valid address"). Kervan hides error bodies (they are untrusted, and a prompt-injection
 * surface): a spec opts in per tool, and the README and `kervanc check` say so. No JSON, an expression that fails,
 * or an empty result: the plain status error, as without the extension.
 */
import { cutIndex } from "./cut.ts";
import { jsonTextNestsDeeper, MAX_JSON_NESTING } from "./json-depth.ts";
import type { UpstreamResponse } from "../net/upstream.ts";
import { isJsonType, mediaType } from "./output.ts";
import type { JsonValue, ToolPlan } from "../plan.ts";
import type { SecretVault } from "../secrets/secrets.ts";
import { evaluateSelect } from "../select/evaluate.ts";

const decoder = new TextDecoder();

/** The detail to show after the status line, or null for none. */
export function errorDetail(
  response: UpstreamResponse,
  detail: NonNullable<ToolPlan["errorDetail"]>,
  vault: SecretVault,
): string | null {
  if (!isJsonType(mediaType(response.contentType)) || response.body.byteLength === 0) return null;
  const body = decoder.decode(response.body);
  if (jsonTextNestsDeeper(body, MAX_JSON_NESTING)) return null;
  let value: JsonValue | null;
  try {
    value = vault.redactValue(evaluateSelect(detail.ast, vault.parseJson(body)) ?? null);
  } catch {
    return null;
  }
  if (value === null || value === "" || (Array.isArray(value) && value.length === 0)) return null;
  const text = vault.redactText(typeof value === "string" ? value : JSON.stringify(value));
  const end = cutIndex(text, detail.maxChars);
  return end < text.length ? `${text.slice(0, end)} [cut]` : text;
}
