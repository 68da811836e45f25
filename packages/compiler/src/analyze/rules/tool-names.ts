/** KV2014: a tool name used twice (a client could only ever call one of them). */
import { report } from "../../diagnostics/diagnostic.ts";
import type { Rule, SpecContext } from "./context.ts";

export const toolNamesRule: Rule<SpecContext> = {
  name: "tool-names",
  codes: ["KV2014"],
  check({ spec, out }) {
    const names = new Map<string, number>();
    spec.tools.forEach((tool, index) => {
      const first = names.get(tool.name);
      if (first !== undefined)
        out.push(report("KV2014", ["tools", index, "name"], (m) => m.duplicateTool({ name: tool.name, first })));
      else names.set(tool.name, index);
    });
  },
};
