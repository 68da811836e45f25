/**
 * KV3018: literal text that looks like a template but is sent as written (`{input.q}`, `${API_KEY}`, `{id}`).
 * `{id}` (an OpenAPI path parameter, or text that really has braces) is a warning only when the name is an input
 * property; `${X}` may be meant literally (there is no escape for it), so it is an error only when X names a
 * declared secret or input property or has a template's prefix.
 */
import { report } from "../../diagnostics/diagnostic.ts";
import { closest } from "../suggest.ts";
import { propertiesAt } from "../templates.ts";
import type { Rule, ToolContext } from "./context.ts";

export const lookAlikesRule: Rule<ToolContext> = {
  name: "look-alikes",
  codes: ["KV3018"],
  check(ctx) {
    const { out } = ctx.spec;
    const inputNames = propertiesAt(ctx.inputSchema, [])?.names ?? [];
    for (const { path, lookAlike } of ctx.request?.lookAlikes ?? []) {
      const place = { offset: lookAlike.offset, length: lookAlike.length };
      if (lookAlike.bareName !== undefined) {
        const name = closest(lookAlike.bareName, inputNames, { abbreviations: true });
        if (name === undefined) continue;
        const meant = `{{input.${name}}}`;
        out.push(
          report("KV3018", path, (m) => m.singleBraces({ written: lookAlike.written, meant }), {
            ...place,
            severity: "warning",
            fix: { description: `Write ${meant}`, replacement: meant },
          }),
        );
        continue;
      }
      const dollar = lookAlike.written.startsWith("$");
      const name = lookAlike.written.replace(/^\$?\{\s*|\s*\}$/g, "");
      const known =
        /^(input|inputs|secrets?|env)\./i.test(name) ||
        ctx.spec.secrets.bindings.has(name) ||
        inputNames.includes(name);
      const look = { written: lookAlike.written, meant: lookAlike.meant };
      out.push(
        report("KV3018", path, (m) => (dollar ? m.dollarBraces(look) : m.singleBracesTwo(look)), {
          ...place,
          ...(dollar && !known ? { severity: "warning" as const } : {}),
          fix: { description: `Write ${lookAlike.meant}`, replacement: lookAlike.meant },
        }),
      );
    }
  },
};
