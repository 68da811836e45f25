/**
 * The request body. A JSON or form body whose schema is a plain object of at most 30 properties is flattened:
 * each top-level property becomes a tool argument next to the parameters (models often write `{"name": ...}`
 * where a nested `{"body": {"name": ...}}` is asked for), and the body template rebuilds the object
 * (`body: { name: "{{input.name}}" }`). Optional properties are left out of the body when absent, with the kervanc
 * extension omit-absent (`http.omitAbsent: true`); a name a parameter already has gets a `body_` prefix and a
 * comment. Any other body (an array or a scalar at the root, a combinator, more than 30 properties, root
 * constraints a flat input cannot keep) is one `body` input property sent as the request's body.
 *
 * A single body property is always required: OpenAPI's `required: false` is the default even where an API needs
 * a body, and an omitted body would be sent as JSON null.
 */
import { report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { selectorOf } from "./operations.ts";
import type { ImportContext, Operation } from "./context.ts";
import { type Inputs, withDescription } from "./inputs.ts";
import { isJsonMediaType } from "./responses.ts";
import { MULTIPART, placeMultipartBody } from "./multipart-body.ts";
import type { Comment } from "./emit.ts";
import { identifierFrom } from "./names.ts";
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
  /** Optional body fields are left out when absent: the tool needs `http.omitAbsent` (omit-absent). */
  readonly omitAbsent?: true;
  /** Review comments, at paths inside the tool. */
  readonly comments?: readonly Comment[];
} | null;

/** A body with more top-level properties than this stays one `body` argument. */
export const MAX_FLAT_PROPERTIES = 30;

/**
 * Root keywords a flattened body keeps (in the tool's input: its properties and their required-ness) or can drop
 * (texts); any other (`allOf`, `minProperties`, `patternProperties`, an open `additionalProperties`, ...) says
 * something a flat input could not, so the body stays whole.
 */
const FLAT_ROOT_KEYWORDS = new Set(["type", "properties", "required", "additionalProperties", "title", "description"]);

/**
 * The body as a template of its flattened properties, their inputs added; null when the converted schema is not a
 * plain object of named properties (then the body stays one argument).
 */
function flattenBody(
  converted: JsonSchema,
  inputs: Inputs,
  description: string | undefined,
  /** The key a property is sent under (a form's deepObject array: `expand[]`); its own name by default. */
  keyOf: (name: string, schema: unknown) => string = (name) => name,
): { body: Record<string, string>; optional: boolean; comments: Comment[] } | null {
  if (typeof converted === "boolean") return null;
  const properties = converted["properties"];
  if (!isPlainObject(properties)) return null;
  const names = Object.keys(properties);
  if (names.length === 0 || names.length > MAX_FLAT_PROPERTIES) return null;
  if (converted["type"] !== undefined && converted["type"] !== "object") return null;
  if (Object.keys(converted).some((k) => !FLAT_ROOT_KEYWORDS.has(k))) return null;
  const additional = converted["additionalProperties"];
  if (additional !== undefined && additional !== false) return null;
  // A name a template cannot carry as a body key, or that names an Object member, keeps the body whole.
  if (names.some((n) => n.includes("{{") || n === "__proto__")) return null;
  const requiredList = converted["required"];
  const required = new Set(Array.isArray(requiredList) ? requiredList : []);
  const body: Record<string, string> = {};
  const comments: Comment[] = [];
  let optional = false;
  // The names the parameters took, before the body's own are added.
  const parameters = new Set(names.map(identifierFrom).filter((base) => inputs.taken(base)));
  for (const name of names) {
    const base = identifierFrom(name);
    let id = base;
    if (inputs.taken(id)) {
      id = `body_${base}`;
      for (let n = 2; inputs.taken(id); n++) id = `body_${base}_${n}`;
      const owner = parameters.has(base) ? "a parameter" : "another body property";
      comments.push({
        path: ["input", "properties", id],
        text: `${id} is the body's ${JSON.stringify(name)}: the name ${base} is ${owner}'s`,
      });
    }
    inputs.name(id, "body");
    const needed = required.has(name);
    if (!needed) optional = true;
    inputs.addSchema(id, properties[name] as JsonSchema, needed);
    Object.defineProperty(body, keyOf(name, properties[name]), {
      value: `{{input.${id}}}`,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  comments.push({
    path: ["http", "body"],
    text: `the request body, rebuilt from the tool's arguments${description !== undefined ? `: ${description}` : ""}`,
  });
  return { body, optional, comments };
}

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
    let converted: JsonSchema =
      schema === undefined
        ? { type: "object" }
        : inputs.converter.convert(schema, [...requestBody.path, "content", formType, "schema"]);
    const description = inputs.describe(own(requestBody.value, "description"), [...requestBody.path, "description"]);
    // Stripe documents its form arrays with encoding style deepObject: sent as expand[]=a&expand[]=b, where the
    // form encoder alone would repeat the plain key.
    const encoding = own(own(content, formType), "encoding");
    const keyOf = (name: string, property: unknown): string =>
      own(own(encoding, name), "style") === "deepObject" && own(property, "type") === "array" ? `${name}[]` : name;
    const flat = flattenBody(converted, inputs, description, keyOf);
    if (flat !== null)
      return { body: flat.body, form: true, comments: flat.comments, ...(flat.optional ? { omitAbsent: true } : {}) };
    const id = inputs.name("body", "body");
    if (description !== undefined) converted = withDescription(converted, description);
    inputs.addSchema(id, converted, true);
    return { body: `{{input.${id}}}`, form: true };
  }
  // A multipart body (file uploads) is sent with the kervanc extension multipart-body (multipart-body.ts).
  const multipartType =
    jsonType === undefined ? types.find((t) => t.split(";")[0]!.trim().toLowerCase() === MULTIPART) : undefined;
  if (multipartType !== undefined) {
    const at = [...requestBody.path, "content", multipartType, "schema"];
    const placed = placeMultipartBody(ctx, operation, inputs, own(own(content, multipartType), "schema"), at);
    return placed === null
      ? null
      : { body: placed.body, multipart: true, ...(placed.optional ? { omitAbsent: true as const } : {}) };
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
  let converted: JsonSchema = schema === undefined ? {} : inputs.converter.convert(schema, [...mediaAt, "schema"]);
  const description = inputs.describe(own(requestBody.value, "description"), [...requestBody.path, "description"]);
  const mediaType = jsonType.split(";")[0]!.trim();
  // A wildcard (`*/*` with a JSON schema, as Kubernetes writes) is sent as application/json, the default.
  if (mediaType.toLowerCase() !== "application/json" && !mediaType.includes("*")) headers["Content-Type"] = mediaType;
  const flat = flattenBody(converted, inputs, description);
  if (flat !== null)
    return { body: flat.body, comments: flat.comments, ...(flat.optional ? { omitAbsent: true } : {}) };
  const id = inputs.name("body", "body");
  if (description !== undefined) converted = withDescription(converted, description);
  inputs.addSchema(id, converted, true);
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
