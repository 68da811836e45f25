/**
 * An input is sent only where its values can be encoded (KV3020): a path segment, a header, and text mixed into
 * a query value or a body string carry a string, number or boolean; a query value that is exactly one reference
 * also carries a list of them (one parameter per item); a body value that is exactly one reference carries any
 * JSON value. A schema that admits more (an object, a list, no type at all) lets a call pass validation that the
 * server then refuses ("input.x must be a string, number or boolean here"), which the model cannot make sense of.
 *
 * Kervan accepts such specs and fails the call at run time, so for a spec Kervan can run this is a warning (a
 * spec kervanc refuses must be one Kervan refuses, docs/spec.md); a spec that declares kervanc extensions runs on
 * kervanc only, and there a schema whose type admits an object or a list where none can go is an error. An untyped
 * schema (`{}`) stays a warning there too: it is a common way to write "a value", most often given a scalar, and
 * kervanc-only specs that build today keep building. Only declared properties are judged: below a level without
 * `properties` nothing is declared (as for KV3004), and `{{input.filter.any}}` under `filter: { type: object }`
 * stays accepted, as Kervan's own template fixtures have it.
 */
import type { SpecPath } from "../../diagnostics/diagnostic.ts";
import { report } from "../../diagnostics/diagnostic.ts";
import { encodeProblem, type Place, schemaAtInputPath } from "../encodable.ts";
import { parseTemplate, refText } from "../templates.ts";
import type { Rule, ToolContext } from "./context.ts";

export const encodableInputsRule: Rule<ToolContext> = {
  name: "encodable-inputs",
  codes: ["KV3020"],
  check(ctx) {
    // A request or an input schema with errors is reported as such; what it would encode is judged once it is right.
    if (ctx.request === null || ctx.input === null) return;
    const strict = (ctx.spec.spec.kervancExtensions ?? []).length > 0;
    for (const { ref, path, offset, length } of ctx.request.refs) {
      if (ref.kind !== "input") continue;
      const place = placeOf(ctx, path);
      if (place === null) continue;
      const schema = schemaAtInputPath(ctx.inputSchema, ref.path);
      if (schema === undefined) continue;
      const problem = encodeProblem(schema, ctx.inputSchema, place);
      if (problem === null) continue;
      const text = refText(ref);
      ctx.spec.out.push(
        report("KV3020", path, (m) => m[problem]({ ref: text }), {
          ...(offset === undefined ? {} : { offset, length: length ?? text.length }),
          // An untyped schema is a warning everywhere: `{}` is a common way to write "a value", most often a scalar.
          ...(strict && problem !== "anyValue" && problem !== "queryAnyValue" ? { severity: "error" as const } : {}),
        }),
      );
    }
  },
};

/**
 * What the place at `path` (a template in the tool's `http`) can encode: "query" for a query value that is exactly
 * one reference, "text" for the URL's path, headers and text with other text around it; null for a body value
 * that is exactly one reference (any JSON value).
 */
function placeOf(ctx: ToolContext, path: SpecPath): Place | null {
  const inHttp = path.slice(ctx.at.length);
  if (inHttp[0] !== "http") return null;
  const where = inHttp[1];
  if (where === "url" || where === "headers") return "text";
  const source = valueAt(ctx.tool, inHttp);
  const single = typeof source === "string" && isSingleRef(source);
  if (where === "query") return single ? "query" : "text";
  if (where === "body") return single ? null : "text";
  return null;
}

function isSingleRef(source: string): boolean {
  const parsed = parseTemplate(source);
  return parsed.ok && parsed.template.parts.length === 1 && parsed.template.parts[0]!.kind === "ref";
}

function valueAt(value: unknown, path: SpecPath): unknown {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    if (Array.isArray(node)) node = typeof key === "number" ? node[key] : undefined;
    else node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}
