/**
 * Tool names every client accepts. The spec format allows `[A-Za-z0-9_.-]{1,128}` (Kervan's rule), but Claude's
 * and OpenAI's tool-calling APIs take only `^[a-zA-Z0-9_-]{1,64}$`, and a client in front of them refuses, or
 * silently drops, a tool with a dot or a longer name. Kervan accepts such names, so kervanc does too, with a
 * warning (KV2015) that gives the name to use instead; `kervanc import` never makes one.
 */
import { createHash } from "node:crypto";
import { type Finding, report } from "../../diagnostics/diagnostic.ts";
import type { SpecFile } from "../spec-format.ts";
import type { Rule, SpecContext } from "./context.ts";

export const CLIENT_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_CLIENT_TOOL_NAME = 64;

/** How many hex digits of a long name's hash its cut keeps, so two long names that share a start stay apart. */
const HASH_DIGITS = 6;

/**
 * `name` made a name every client accepts: each run of other characters becomes `_`, and a name over 64
 * characters is cut, ending in `_` and a short hash of the whole name. A name that already fits is unchanged.
 */
export function clientToolName(name: string): string {
  const plain = name.replace(/[^A-Za-z0-9_-]+/g, "_");
  if (plain.length <= MAX_CLIENT_TOOL_NAME) return plain === "" ? "tool" : plain;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, HASH_DIGITS);
  return `${plain.slice(0, MAX_CLIENT_TOOL_NAME - HASH_DIGITS - 1)}_${hash}`;
}

/** KV2015 for each tool whose name some clients refuse, with the rename (made unique among the spec's names). */
export function checkClientNames(spec: SpecFile, out: Finding[]): void {
  const taken = new Set(spec.tools.map((tool) => tool.name.toLowerCase()));
  spec.tools.forEach((tool, index) => {
    if (CLIENT_TOOL_NAME.test(tool.name)) return;
    let rename = clientToolName(tool.name);
    for (let n = 2; taken.has(rename.toLowerCase()); n++) {
      const suffix = `_${n}`;
      rename = clientToolName(tool.name).slice(0, MAX_CLIENT_TOOL_NAME - suffix.length) + suffix;
    }
    taken.add(rename.toLowerCase());
    const reason = /[^A-Za-z0-9_-]/.test(tool.name) ? "dotted" : "long";
    out.push(
      report(
        "KV2015",
        ["tools", index, "name"],
        (m) =>
          reason === "dotted"
            ? m.notClientSafeCharacters({ name: tool.name, rename })
            : m.notClientSafeLength({ name: tool.name, length: tool.name.length, rename }),
        { fix: { description: `Rename the tool to ${rename}`, replacement: rename } },
      ),
    );
  });
}

export const clientNamesRule: Rule<SpecContext> = {
  name: "client-names",
  codes: ["KV2015"],
  check: (ctx) => checkClientNames(ctx.spec, ctx.out),
};
