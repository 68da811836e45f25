/**
 * The imported tool never takes an input its request cannot send (KV3020, analyze/encodable.ts): a path segment
 * and a header carry a string, number or boolean; a query value that is one reference also carries a list of
 * them. A parameter whose schema admits more is narrowed to the forms its place can carry: a union's scalar
 * branches (Stripe's `created`: an integer, or a range object sent as deepObject), a type list without "object",
 * an untyped schema or list item read as text. When nothing is left, the operation is left out, named in a
 * warning, rather than imported with a tool that passes validation and is then refused.
 */
import { encodeProblem, type Place, schemaAtInputPath } from "../analyze/encodable.ts";
import { parseTemplate } from "../analyze/templates.ts";

/** A template's reference whose schema lost forms its place cannot carry, with the wire name of its place. */
export interface Narrowing {
  readonly place: "query" | "header" | "path";
  /** The parameter's name on the wire (the URL template's reference for a path). */
  readonly name: string;
  readonly ref: string;
}

/**
 * Narrows, in place, the input properties the request's templates send where their values cannot all be
 * encoded. Returns the narrowings made and, when one cannot be made, the reference that cannot be sent.
 */
export function narrowToRequest(
  input: Record<string, unknown>,
  http: { url: string; query?: Record<string, unknown>; headers?: Record<string, unknown> },
): { narrowed: Narrowing[]; unsendable: string | null } {
  const narrowed: Narrowing[] = [];
  const sites: { source: string; place: "query" | "header" | "path"; name: string }[] = [];
  const pathPart = http.url.replace(/^https?:\/\/[^/]*/, "").split("?")[0]!;
  sites.push({ source: pathPart, place: "path", name: "" });
  for (const [name, value] of Object.entries(http.query ?? {}))
    for (const item of Array.isArray(value) ? value : [value])
      if (typeof item === "string") sites.push({ source: item, place: "query", name });
  for (const [name, value] of Object.entries(http.headers ?? {}))
    if (typeof value === "string") sites.push({ source: value, place: "header", name });
  for (const site of sites) {
    const parsed = parseTemplate(site.source);
    if (!parsed.ok) continue;
    const single = parsed.template.parts.length === 1;
    const place: Place = site.place === "query" && single ? "query" : "text";
    for (const part of parsed.template.parts) {
      if (part.kind !== "ref" || part.ref.kind !== "input") continue;
      const ref = `{{input.${part.ref.path.join(".")}}}`;
      const schema = schemaAtInputPath(input, part.ref.path);
      if (schema === null || typeof schema !== "object" || encodeProblem(schema, input, place) === null) continue;
      const dropped = narrow(schema as Record<string, unknown>, input, place);
      if (encodeProblem(schema, input, place) !== null) return { narrowed, unsendable: ref };
      if (dropped)
        narrowed.push({ place: site.place, name: site.place === "path" ? part.ref.path.join(".") : site.name, ref });
    }
  }
  return { narrowed, unsendable: null };
}

const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * Narrows one schema, in place, towards what `place` can encode; the caller checks whether it got there. True when
 * forms the document allows were dropped (branches of a union, types of a list), which the import reports; an
 * untyped schema read as text is not reported, as a parameter without a schema is not.
 */
function narrow(schema: Record<string, unknown>, root: unknown, place: Place): boolean {
  let dropped = false;
  for (const key of ["anyOf", "oneOf"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const kept = branches.filter((b) => encodeProblem(b, root, place) === null);
    if (kept.length === 0 || kept.length === branches.length) continue;
    dropped = true;
    const [only] = kept;
    if (kept.length === 1 && only !== null && typeof only === "object" && !Array.isArray(only)) {
      // One form is left: it becomes the schema, beside the parameter's own description and title.
      delete schema[key];
      for (const [k, v] of Object.entries(only as Record<string, unknown>))
        if (!Object.hasOwn(schema, k)) schema[k] = v;
    } else schema[key] = kept;
  }
  const type = schema["type"];
  if (Array.isArray(type)) {
    const kept = type.filter((t) => SCALARS.has(t as string) || (place === "query" && t === "array"));
    if (kept.length > 0 && kept.length < type.length) {
      schema["type"] = kept.length === 1 ? kept[0] : kept;
      dropped = true;
    }
  }
  const untyped =
    schema["type"] === undefined &&
    !["enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not"].some((k) => Object.hasOwn(schema, k));
  if (untyped) schema["type"] = "string";
  if (place === "query" && schema["type"] === "array") {
    const items = schema["items"];
    if (items === undefined || items === true) schema["items"] = { type: "string" };
    else if (items !== null && typeof items === "object" && !Array.isArray(items)) {
      const item = items as Record<string, unknown>;
      dropped = narrow(item, root, "text") || dropped;
      // A list's items are sent one by one in the query, where a null item has no text (the runtime refuses it):
      // dropped silently, as an untyped schema is read as text (no object or list form is lost).
      const itemType = item["type"];
      if (Array.isArray(itemType) && itemType.includes("null") && itemType.length > 1) {
        const kept = itemType.filter((t) => t !== "null");
        item["type"] = kept.length === 1 ? kept[0] : kept;
      }
    }
  }
  return dropped;
}
