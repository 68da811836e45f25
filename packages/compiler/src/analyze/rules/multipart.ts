/**
 * The kervanc multipart-body extension's checks (docs/extensions/multipart-body.md): declared, a body that is an
 * object of fields, field names a part header can carry, JSON fields that are `{json}`, file fields that are
 * `{content, encoding: base64, filename?, contentType?}`, and no Content-Type header of the spec's own (the server writes it, with the boundary).
 */
import { type Finding, report, type SpecPath } from "../../diagnostics/diagnostic.ts";
import type { ToolSpec } from "../spec-format.ts";

const FILE_KEYS = new Set(["content", "encoding", "filename", "contentType"]);
/** A field name a Content-Disposition header carries as a quoted string without escapes. */
const FIELD_NAME = /^[\x20-\x7e]+$/;

export function checkMultipart(tool: ToolSpec, at: SpecPath, declared: boolean, out: Finding[]): void {
  const http = tool.http;
  if (!declared) out.push(report("KV8002", [...at, "bodyEncoding"], (m) => m.multipartUndeclared));
  const body = http.body;
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    out.push(report("KV8021", [...at, body === undefined ? "bodyEncoding" : "body"], (m) => m.notObject));
    return;
  }
  for (const name of Object.keys(http.headers ?? {}))
    if (name.toLowerCase() === "content-type")
      out.push(report("KV8021", [...at, "headers", name], (m) => m.contentType, { atKey: true }));
  for (const [name, value] of Object.entries(body)) {
    const where: SpecPath = [...at, "body", name];
    if (!FIELD_NAME.test(name) || name.includes('"') || name.includes("\\"))
      out.push(report("KV8021", where, (m) => m.fieldName({ name: JSON.stringify(name) }), { atKey: true }));
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (item === null || typeof item !== "object") continue;
      if (Array.isArray(item)) {
        out.push(report("KV8021", where, (m) => m.nested({ name })));
        continue;
      }
      const keys = Object.keys(item);
      // A JSON part: `{ json: "{{input.attributes}}" }`, sent as application/json.
      if (keys.length === 1 && keys[0] === "json") continue;
      const unknown = keys.find((key) => !FILE_KEYS.has(key));
      if (!keys.includes("content") || unknown !== undefined) {
        out.push(report("KV8021", where, (m) => m.fileShape({ name })));
        continue;
      }
      if (item["encoding"] !== "base64")
        out.push(
          report("KV8021", [...where, keys.includes("encoding") ? "encoding" : "content"], (m) => m.encoding({ name })),
        );
    }
  }
}
