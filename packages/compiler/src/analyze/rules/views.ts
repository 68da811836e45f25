/**
 * The kervanc views extension's checks (docs/extensions/views.md): `output.view` is declared with
 * `kervancExtensions: [views]` (KV8002), and the output schema has the shape the view draws (KV8030): a list of
 * objects with properties for a table, an object with properties for a card, one of the two for auto. A view is
 * drawn from the structured result, so a tool with a view needs an output schema.
 */
import { report } from "../../diagnostics/diagnostic.ts";
import { autoKind, isListOfObjects, isObjectSchema, type ViewKind } from "../../plan/view-model.ts";
import type { Rule, ToolContext } from "./context.ts";

export const viewsRule: Rule<ToolContext> = {
  name: "views",
  codes: ["KV8002", "KV8030"],
  check(ctx) {
    const view = viewKind(ctx);
    if (view !== undefined) ctx.view = view;
  },
};

/** The view a tool gets, null for none; undefined when its `view` was refused. */
function viewKind(ctx: ToolContext): ViewKind | null | undefined {
  const output = ctx.tool.output;
  const written = "view" in output ? output.view : undefined;
  if (written === undefined || written === "none") {
    if (written === "none") undeclared(ctx);
    return null;
  }
  const at = [...ctx.at, "output", "view"];
  const { out } = ctx.spec;
  if (undeclared(ctx)) return undefined;
  // An output the output rule refused (its schema, say) has nothing to draw; that rule said why.
  if (ctx.output === null) return undefined;
  const schema = "schema" in output ? output.schema : undefined;
  if (schema === undefined || schema === null || typeof schema !== "object") {
    out.push(report("KV8030", at, (m) => m.noSchema));
    return undefined;
  }
  switch (written) {
    case "table":
      if (isListOfObjects(schema, schema)) return "table";
      out.push(report("KV8030", at, (m) => m.tableNotList));
      return undefined;
    case "card":
      if (isObjectSchema(schema, schema)) return "card";
      out.push(report("KV8030", at, (m) => m.cardNotObject));
      return undefined;
    default: {
      const kind = autoKind(schema);
      if (kind === null) out.push(report("KV8030", at, (m) => m.autoNeither));
      return kind ?? undefined;
    }
  }
}

/** Reports a view whose extension is not declared; true when it did. */
function undeclared(ctx: ToolContext): boolean {
  if ((ctx.spec.spec.kervancExtensions ?? []).includes("views")) return false;
  ctx.spec.out.push(report("KV8002", [...ctx.at, "output", "view"], (m) => m.viewUndeclared, { atKey: true }));
  return true;
}
