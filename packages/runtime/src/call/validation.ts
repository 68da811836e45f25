/**
 * Messages for failed validation, in the words of the MCP SDK's own Ajv provider (`errorsText`), so a client
 * sees `data/latitude must be <= 90, data must have required property 'longitude'` as it would from any
 * SDK-based server.
 */
import type { ValidationIssue } from "../plan.ts";

export function formatValidationErrors(errors: readonly ValidationIssue[] | null | undefined): string {
  if (!errors || errors.length === 0) return "No errors";
  return errors.map((e) => `data${e.instancePath} ${e.message ?? "is invalid"}`).join(", ");
}

/** Counts array elements plus object members, stopping once past `max` (the SDK's argument size rule). */
export function countElements(value: unknown, max: number): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (++count > max) return count;
        if (child !== null && typeof child === "object") stack.push(child);
      }
    } else {
      for (const key of Object.keys(node)) {
        if (++count > max) return count;
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === "object") stack.push(child);
      }
    }
  }
  return count;
}
