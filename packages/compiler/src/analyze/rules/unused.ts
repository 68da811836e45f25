/**
 * A declared secret (KV4002) or credential (KV8016) that no tool sends. A secret whose only use is a refused
 * look-alike (`{{secret.X}}`, `${X}`) is not "never used": that error already names it as the fix.
 */
import { report } from "../../diagnostics/diagnostic.ts";
import type { Rule, SpecContext } from "./context.ts";

export const unusedRule: Rule<SpecContext> = {
  name: "unused",
  codes: ["KV4002", "KV8016"],
  check({ out, secrets, credentials, used }) {
    const meant = new Set(
      out.flatMap((f) => [...(f.fix?.replacement ?? "").matchAll(/\{\{secrets\.([A-Z0-9_]+)\}\}/g)].map((m) => m[1]!)),
    );
    for (const [name, path] of secrets.paths)
      if (!used.secrets.has(name) && !meant.has(name)) out.push(report("KV4002", path, (m) => m.unused({ name })));
    for (const [name, path] of credentials.paths)
      if (!used.credentials.has(name)) out.push(report("KV8016", path, (m) => m.unused({ name }), { atKey: true }));
  },
};
