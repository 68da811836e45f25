import type { OutputPlan } from "../plan.ts";

/**
 * The Accept header a tool sends when the spec sets none: raw output takes text or JSON, select needs JSON.
 * A switch with no default, so a new output mode fails to compile here until it says what it accepts.
 */
export function acceptFor(output: OutputPlan): string {
  switch (output.kind) {
    case "raw":
      return "text/plain, application/json";
    case "select":
      return "application/json";
    case "binary":
      return "*/*";
    default: {
      const unknown: never = output;
      throw new Error(`Unexpected output plan ${JSON.stringify(unknown)}.`);
    }
  }
}
