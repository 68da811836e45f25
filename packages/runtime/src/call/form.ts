/**
 * The kervanc form-body extension (docs/extensions/form-body.md): a rendered JSON body sent as
 * `application/x-www-form-urlencoded`, as APIs such as Stripe, Twilio and Slack take it.
 *
 * The body is rendered exactly as a JSON body is (each value from its reference, with its JSON type), then
 * flattened: a scalar is `key=value`, a nested object `key[child]=value`, a list of scalars repeats the key
 * (`key=a&key=b`), a list of objects is indexed (`key[0][child]=value`), and null leaves the key out (an omitted
 * optional argument). Names and values are form-encoded by URLSearchParams, so no argument can add a field or
 * break out of its value.
 */
import { ToolError } from "./errors.ts";
import type { JsonValue } from "../plan.ts";

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

/** Nesting deeper than this is not a form an API reads; it is refused rather than sent. */
const MAX_FORM_DEPTH = 8;

export function formEncode(body: JsonValue): string {
  if (body === null) return "";
  if (typeof body !== "object" || Array.isArray(body)) throw new ToolError("A form body must be an object of fields.");
  const params = new URLSearchParams();
  const add = (key: string, value: JsonValue, depth: number): void => {
    if (depth > MAX_FORM_DEPTH) throw new ToolError(`The form field "${key}" is nested too deeply.`);
    if (value === null) return;
    if (typeof value !== "object") {
      params.append(key, String(value));
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        if (item !== null && typeof item === "object") add(`${key}[${i}]`, item, depth + 1);
        else if (item !== null) params.append(key, String(item));
      });
      return;
    }
    for (const [child, item] of Object.entries(value)) add(`${key}[${child}]`, item, depth + 1);
  };
  for (const [key, value] of Object.entries(body)) add(key, value, 0);
  return params.toString();
}
