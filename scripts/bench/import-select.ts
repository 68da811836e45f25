/**
 * For the import benchmark: the selection a user makes when `kervanc import` refuses a document over 200
 * operations (KV7011 lists the operations by tag, or by path prefix): the largest groups, as many as fit in 200
 * operations.
 */
import type { ImportResult } from "../../packages/compiler/src/import/openapi.ts";

const MAX_TOOLS = 200;

/** `--include` tags for a refused result that was too large, or null when it was refused for another reason. */
export function tooManySelection(result: ImportResult): string[] | null {
  const message = result.diagnostics.find(
    (d) => d.code === "KV7011" && / Operations by (tag|path): /.test(d.message),
  )?.message;
  if (message === undefined) return null;
  const start = / Operations by (tag|path): /.exec(message)!;
  const list = message.slice(start.index + start[0].length, message.indexOf(". Choose with"));
  const include: string[] = [];
  let total = 0;
  for (const part of list.split(", ")) {
    const m = /^(.*) (\d+)$/.exec(part);
    if (m === null || m[1] === "(untagged)") continue;
    if (total + Number(m[2]) > MAX_TOOLS) continue;
    include.push(m[1]!);
    total += Number(m[2]);
  }
  return include.length > 0 ? include : null;
}
