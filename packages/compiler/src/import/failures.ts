/**
 * Proposals for how a tool meets an API's failures, from the responses an operation documents, written into the
 * imported spec as comments (never as keys: each needs a kervanc extension, and import writes plain Kervan unless
 * asked otherwise):
 *
 * - an operation that documents `429` or `503` gets a `retry` proposal (docs/extensions/retry.md);
 * - one that documents a `4xx` JSON error body with an `errors` list or a `message` text gets an `error` proposal
 *   (docs/extensions/error-detail.md), naming the part a model could act on.
 */
import type { SpecPath } from "../diagnostics/diagnostic.ts";
import { isPlainObject as isObject, own, type Resolver } from "./refs.ts";

/** The idempotent methods the retry extension retries by default. */
const RETRIED = new Set(["get", "put", "delete"]);

export interface FailureProposals {
  /** For `http`: a commented-out retry, or "". */
  readonly retry: string;
  /** For `output`: a commented-out error detail, or "". */
  readonly error: string;
}

export function proposeFailures(
  resolver: Resolver,
  operation: Record<string, unknown>,
  at: SpecPath,
  method: string,
): FailureProposals {
  const responses = resolver.deref(own(operation, "responses"), [...at, "responses"]);
  const codes = isObject(responses.value) ? Object.keys(responses.value) : [];
  const limited = codes.filter((c) => c === "429" || c === "503");
  const retry =
    limited.length === 0
      ? ""
      : [
          `proposal (kervanc extension retry, with kervancExtensions: [retry]): this operation documents ${limited.join(" and ")}.`,
          `retry: { attempts: 3${RETRIED.has(method) ? "" : `, methods: [${method.toUpperCase()}]`} }${RETRIED.has(method) ? "" : `  # ${method.toUpperCase()} is not idempotent: retry it only if the API deduplicates`}`,
        ].join("\n");
  let error = "";
  for (const code of codes.filter((c) => /^4(\d\d|XX)$/i.test(c) && c !== "429")) {
    const response = resolver.deref(own(responses.value, code), [...responses.path, code]);
    const content = own(response.value, "content");
    const json = isObject(content)
      ? Object.keys(content).find((t) => /^application\/([\w.+-]*\+)?json\b/i.test(t))
      : undefined;
    if (json === undefined) continue;
    const schema = resolver.deref(own(own(content, json), "schema"), [
      ...response.path,
      "content",
      json,
      "schema",
    ]).value;
    const properties = resolver.deref(own(schema, "properties"), []).value;
    const part =
      own(properties, "errors") !== undefined ? "errors" : own(properties, "message") !== undefined ? "message" : null;
    if (part === null) continue;
    error = [
      `proposal (kervanc extension error-detail, with kervancExtensions: [error-detail]): the ${code} answer documents ${part}, which a model could act on.`,
      `error: { select: "${part}", maxChars: 600 }  # the API's text then reaches the model: a prompt-injection surface`,
    ].join("\n");
    break;
  }
  return { retry, error };
}
