/**
 * A `multipart/form-data` request body (file uploads) as the kervanc extension multipart-body
 * (docs/extensions/multipart-body.md): each property of the body's object schema a field. A binary property
 * (`format: binary`, or 3.1's `contentMediaType`/`contentEncoding`) becomes a file field with three inputs: the
 * bytes as base64, the filename and the content type; a scalar or a list of scalars a text field with one input.
 * What a field cannot carry (an object, a list of files) leaves the operation out, named in a warning, rather than
 * importing a tool that cannot make the documented request.
 */
import { report } from "../diagnostics/diagnostic.ts";
import type { ImportContext, Operation } from "./context.ts";
import { type Inputs, withDescription } from "./inputs.ts";
import { identifierFrom } from "./names.ts";
import { selectorOf } from "./operations.ts";
import { isPlainObject, own } from "./refs.ts";
import type { JsonSchema } from "./schema.ts";

export const MULTIPART = "multipart/form-data";

function isBinary(schema: unknown): boolean {
  return (
    own(schema, "type") === "string" &&
    (own(schema, "format") === "binary" ||
      own(schema, "format") === "byte" ||
      own(schema, "contentEncoding") !== undefined ||
      own(schema, "contentMediaType") !== undefined)
  );
}

function isScalar(schema: unknown): boolean {
  const type = own(schema, "type");
  return type === "string" || type === "number" || type === "integer" || type === "boolean";
}

/**
 * The body template of a multipart operation, its fields' inputs added to `inputs`, and whether a field is
 * optional (then the tool leaves it out when absent: omit-absent); null when the operation is left out (reported).
 */
export function placeMultipartBody(
  ctx: ImportContext,
  operation: Operation,
  inputs: Inputs,
  schemaValue: unknown,
  at: (string | number)[],
): { body: Record<string, unknown>; optional: boolean } | null {
  const schema = ctx.resolver.deref(schemaValue, at);
  const properties = own(schema.value, "properties");
  const required = new Set(
    Array.isArray(own(schema.value, "required")) ? (own(schema.value, "required") as unknown[]) : [],
  );
  const operationName = selectorOf(operation);
  const leftOut = (
    why: "multipartNoFields" | "multipartFieldName" | "multipartFileList" | "multipartObject",
    name = "",
  ): null => {
    ctx.report(report("KV7010", schema.path, (m) => m[why]({ operation: operationName, name: JSON.stringify(name) })));
    return null;
  };
  if (!isPlainObject(properties) || Object.keys(properties).length === 0) return leftOut("multipartNoFields");
  const body: Record<string, unknown> = {};
  let optional = false;
  for (const [name, raw] of Object.entries(properties)) {
    if (!/^[\x20-\x7e]+$/.test(name) || name.includes('"') || name.includes("\\"))
      return leftOut("multipartFieldName", name);
    const field = ctx.resolver.deref(raw, [...schema.path, "properties", name]);
    const base = identifierFrom(name);
    const needed = required.has(name);
    if (!needed) optional = true;
    const description = inputs.describe(own(field.value, "description"), [...field.path, "description"]);
    if (isBinary(field.value)) {
      const content = inputs.name(`${base}_base64`, "body");
      const filename = inputs.name(`${base}_filename`, "body");
      const contentType = inputs.name(`${base}_content_type`, "body");
      inputs.addSchema(
        content,
        {
          type: "string",
          contentEncoding: "base64",
          description: `The bytes of the file ${JSON.stringify(name)}, base64-encoded${description !== undefined ? `: ${description}` : "."}`,
        },
        needed,
      );
      inputs.addSchema(filename, { type: "string", description: `The file's name, such as report.pdf.` }, needed);
      inputs.addSchema(
        contentType,
        { type: "string", description: "The file's media type, such as application/pdf." },
        false,
      );
      body[name] = {
        content: `{{input.${content}}}`,
        encoding: "base64",
        filename: `{{input.${filename}}}`,
        contentType: `{{input.${contentType}}}`,
      };
      continue;
    }
    const items = own(field.value, "items");
    if (own(field.value, "type") === "array" && isBinary(ctx.resolver.deref(items, [...field.path, "items"]).value))
      return leftOut("multipartFileList", name);
    if (
      isScalar(field.value) ||
      (own(field.value, "type") === "array" && isScalar(ctx.resolver.deref(items, [...field.path, "items"]).value))
    ) {
      const id = inputs.name(base, "body");
      let converted: JsonSchema = inputs.converter.convert(field.value, field.path);
      if (description !== undefined) converted = withDescription(converted, description);
      inputs.addSchema(id, converted, needed);
      body[name] = `{{input.${id}}}`;
      continue;
    }
    if (
      own(field.value, "type") === "object" ||
      (own(field.value, "type") === undefined && isPlainObject(own(field.value, "properties")))
    ) {
      // OpenAPI's default encoding for an object-valued field is application/json: one JSON part (Box's
      // upload sends its attributes so).
      const id = inputs.name(base, "body");
      let converted: JsonSchema = inputs.converter.convert(field.value, field.path);
      if (description !== undefined) converted = withDescription(converted, description);
      inputs.addSchema(id, converted, needed);
      body[name] = { json: `{{input.${id}}}` };
      continue;
    }
    return leftOut("multipartObject", name);
  }
  return { body, optional };
}
