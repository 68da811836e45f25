/**
 * Assembles a compiled server from its generated modules, and freezes it.
 *
 * Plans are data written by the compiler; freezing them (select ASTs included) means no code path, and no
 * hostile upstream data flowing through the select interpreter, can change what later calls do.
 */
import type { CompiledServer, CompiledTool, ServerPlan } from "./plan.ts";

export function defineServer(plan: ServerPlan, tools: readonly CompiledTool[]): CompiledServer {
  for (const tool of tools) deepFreeze(tool.plan);
  return Object.freeze({ plan: deepFreeze(plan), tools: Object.freeze([...tools]) });
}

function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object" || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) stack.push(child);
  }
  return value;
}
