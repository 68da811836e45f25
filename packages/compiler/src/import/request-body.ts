/**
 * The request body: a JSON body becomes one `body` input property sent as the request's body.
 *
 * The body property is always required: OpenAPI's `required: false` is the default even where an API needs a
 * body, and an omitted body would be sent as JSON null.
 */
import { finding } from "../diagnostics/diagnostic.ts";
import type { ImportContext, Operation } from "./context.ts";
import { type Inputs, withDescription } from "./inputs.ts";
import { isJsonMediaType } from "./responses.ts";
import { isPlainObject, own } from "./refs.ts";
import type { JsonSchema } from "./schema.ts";

/** The body template (undefined: no body), or null when the operation is left out (reported). */
export type PlacedBody = { readonly body: string | undefined } | null;

export function placeRequestBody(ctx: ImportContext, operation: Operation, inputs: Inputs, headers: Record<string, unknown>): PlacedBody {
  const { op, at, method } = operation;
  if (op["requestBody"] === undefined) return { body: undefined };
  const requestBody = ctx.resolver.deref(op["requestBody"], [...at, "requestBody"]);
  const content = own(requestBody.value, "content");
  const types = isPlainObject(content) ? Object.keys(content) : [];
  const jsonType = types.find((t) => t.split(";")[0]!.trim().toLowerCase() === "application/json") ?? types.find((t) => isJsonMediaType(t) && !t.includes("*"));
  const bodyRequired = own(requestBody.value, "required") === true;
  if (method === "get") {
    ctx.report(finding("KV7010", requestBody.path, `A GET request cannot have a body in a spec; ${bodyRequired ? "the operation is left out" : "the body is left out"}.`));
    return bodyRequired ? null : { body: undefined };
  }
  if (jsonType === undefined) {
    ctx.report(
      finding("KV7010", requestBody.path, `The request body is ${types.join(", ") || "not described"}; a spec sends JSON bodies only, so ${bodyRequired ? "the operation is left out" : "the body is left out"}.`),
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
  if (mediaType.toLowerCase() !== "application/json") headers["Content-Type"] = mediaType;
  return { body: `{{input.${id}}}` };
}
