/**
 * The request body: a JSON body becomes one `body` input property sent as the request's body.
 *
 * The body property is always required: OpenAPI's `required: false` is the default even where an API needs a
 * body, and an omitted body would be sent as JSON null.
 */
import { report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { selectorOf } from "./operations.ts";
import type { ImportContext, Operation } from "./context.ts";
import { type Inputs, withDescription } from "./inputs.ts";
import { isJsonMediaType } from "./responses.ts";
import { MULTIPART, placeMultipartBody } from "./multipart-body.ts";
import { isPlainObject, own } from "./refs.ts";
import type { JsonSchema } from "./schema.ts";

/**
 * The body template (undefined: no body) and whether it is sent form-encoded (the kervanc extension form-body),
 * or null when the operation is left out (reported).
 */
export type PlacedBody = {
  readonly body: string | Record<string, unknown> | undefined;
  readonly form?: true;
  readonly multipart?: true;
} | null;

const FORM = "application/x-www-form-urlencoded";

export function placeRequestBody(
  ctx: ImportContext,
  operation: Operation,
  inputs: Inputs,
  headers: Record<string, unknown>,
): PlacedBody {
  const { op, at, method } = operation;
  if (op["requestBody"] === undefined) return { body: undefined };
  const requestBody = ctx.resolver.deref(op["requestBody"], [...at, "requestBody"]);
  const content = own(requestBody.value, "content");
  const types = isPlainObject(content) ? Object.keys(content) : [];
  const jsonType = jsonMediaType(ctx, content, types, [...requestBody.path, "content"]);
  // A form body (Stripe, Twilio, Slack) is sent with the kervanc extension form-body: its schema describes the
  // fields as JSON would, and the runtime form-encodes them (docs/extensions/form-body.md).
  const formType =
    jsonType === undefined && method !== "get"
      ? types.find((t) => t.split(";")[0]!.trim().toLowerCase() === FORM)
      : undefined;
  const bodyRequired = own(requestBody.value, "required") === true;
  if (method === "get") {
    ctx.report(
      report("KV7010", requestBody.path, (m) =>
        bodyRequired ? m.requiredBodyOnGet({ operation: selectorOf(operation) }) : m.bodyOnGet,
      ),
    );
    return bodyRequired ? null : { body: undefined };
  }
  if (formType !== undefined) {
    const schema = own(own(content, formType), "schema");
    const id = inputs.name("body", "body");
    let converted: JsonSchema =
      schema === undefined
        ? { type: "object" }
        : inputs.converter.convert(schema, [...requestBody.path, "content", formType, "schema"]);
    const description = inputs.describe(own(requestBody.value, "description"), [...requestBody.path, "description"]);
    if (description !== undefined) converted = withDescription(converted, description);
    inputs.addSchema(id, converted, true);
    return { body: `{{input.${id}}}`, form: true };
  }
  // A multipart body (file uploads) is sent with the kervanc extension multipart-body (multipart-body.ts).
  const multipartType =
    jsonType === undefined ? types.find((t) => t.split(";")[0]!.trim().toLowerCase() === MULTIPART) : undefined;
  if (multipartType !== undefined) {
    const at = [...requestBody.path, "content", multipartType, "schema"];
    const body = placeMultipartBody(ctx, operation, inputs, own(own(content, multipartType), "schema"), at);
    return body === null ? null : { body, multipart: true };
  }
  if (jsonType === undefined) {
    ctx.report(
      report("KV7010", requestBody.path, (m) => {
        const operationName = selectorOf(operation);
        const listed = types.join(", ");
        if (listed === "")
          return bodyRequired ? m.requiredBodyUndescribed({ operation: operationName }) : m.bodyUndescribed;
        return bodyRequired
          ? m.requiredBodyNotJson({ types: listed, operation: operationName })
          : m.bodyNotJson({ types: listed });
      }),
    );
    return bodyRequired ? null : { body: undefined };
  }
  const mediaAt = [...requestBody.path, "content", jsonType];
  const schema = own(own(content, jsonType), "schema");
  const id = inputs.name("body", "body");
  let converted: JsonSchema = schema === undefined ? {} : inputs.converter.convert(schema, [...mediaAt, "schema"]);
  const description = inputs.describe(own(requestBody.value, "description"), [...requestBody.path, "description"]);
  if (description !== undefined) converted = withDescription(converted, description);
  inputs.addSchema(id, converted, true);
  const mediaType = jsonType.split(";")[0]!.trim();
  // A wildcard (`*/*` with a JSON schema, as Kubernetes writes) is sent as application/json, the default.
  if (mediaType.toLowerCase() !== "application/json" && !mediaType.includes("*")) headers["Content-Type"] = mediaType;
  return { body: `{{input.${id}}}` };
}

/**
 * The media type a JSON body is sent as: application/json, else a `+json` type that fits the schema (a JSON
 * Patch document is a list, so `application/json-patch+json` only for a list schema: Kubernetes offers it first
 * for PATCH against an object schema, where merge-patch is what fits), else a wildcard (`*\/*`,
 * `application/*`) that has a schema, sent as application/json.
 */
function jsonMediaType(
  ctx: ImportContext,
  content: unknown,
  types: readonly string[],
  at: SpecPath,
): string | undefined {
  const base = (t: string): string => t.split(";")[0]!.trim().toLowerCase();
  const exact = types.find((t) => base(t) === "application/json");
  if (exact !== undefined) return exact;
  const isList = (t: string): boolean => {
    try {
      const schema = ctx.resolver.deref(own(own(content, t), "schema"), [...at, t, "schema"]).value;
      const type = own(schema, "type");
      return type === "array" || (Array.isArray(type) && type.includes("array"));
    } catch {
      return false;
    }
  };
  const plusJson = types.filter((t) => isJsonMediaType(t) && !base(t).includes("*"));
  const fitting = plusJson.find((t) => base(t) !== "application/json-patch+json" || isList(t));
  if (fitting !== undefined) return fitting;
  return (
    types.find(
      (t) => (base(t) === "*/*" || base(t) === "application/*") && own(own(content, t), "schema") !== undefined,
    ) ?? plusJson[0]
  );
}
