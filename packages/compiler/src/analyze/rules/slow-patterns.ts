/**
 * KV5019: a regular expression the generated validator runs on every argument (or upstream result) can take
 * super-linear time on a string crafted for it. A warning, not an error: Kervan accepts these specs and lists
 * regex ReDoS as an accepted risk (kervan-spec-v1 §6), and a pattern's author may know the strings it meets are
 * short. The analysis itself is in regex-backtracking.ts.
 *
 * Ajv checks every keyword of a string even after one fails (all errors are reported), but a generated validator
 * does not run a pattern or a format on a string over the `maxLength` of the same schema
 * (emit/validators/validator-pattern-guard.ts), so a `maxLength` bounds what a polynomial one costs: the messages say so, or
 * suggest one.
 */
import type { Ajv2020 } from "ajv/dist/2020.js";
import { type Finding, type MessagesOf, report, sentences, type SpecPath } from "../../diagnostics/diagnostic.ts";
import { type Backtracking, backtrackingOf, type PatternBudget } from "../regex-backtracking.ts";

/**
 * A `pattern` value or `patternProperties` key (already known to compile) that backtracks, or null. `maxLength` is
 * the schema's own (a number, or undefined when it has none) for a `pattern`, null for a key (names have none).
 */
export function slowPattern(
  source: string,
  path: SpecPath,
  at: string,
  maxLength: number | undefined | null,
  budget: PatternBudget,
): Finding | null {
  const found = backtrackingOf(source, "u", budget);
  if (found.kind === "linear") return null;
  const pattern = JSON.stringify(source);
  return report("KV5019", path, (m) => {
    if (found.kind === "unchecked") return m.patternUnchecked({ pattern, at, reason: found.reason });
    const how = { pattern, at, parts: partsOf(found), character: JSON.stringify(found.character) };
    const rewrite =
      found.kind === "moving"
        ? m.rewriteAnchor
        : "fix" in found && found.fix !== null
          ? m.rewriteAs({ fix: JSON.stringify(found.fix) })
          : m.rewrite;
    const cost =
      found.kind === "exponential"
        ? m.patternExponential(how)
        : found.kind === "polynomial"
          ? m.patternPolynomial(how)
          : m.patternMoving(how);
    return sentences(cost, rewrite, bound(m, found, maxLength));
  });
}

/**
 * What the schema's maxLength does for it (the validator runs neither a pattern nor a format on longer strings):
 * nothing for an exponential one, which needs a rewrite (a bound long enough for real strings is still too long
 * for it), nor for a patternProperties key (null: names have no maxLength).
 */
function bound(m: MessagesOf<"KV5019">, found: Backtracking, maxLength: number | undefined | null): string | null {
  if (found.kind === "exponential" || found.kind === "linear" || found.kind === "unchecked" || maxLength === null)
    return null;
  return maxLength === undefined ? m.addMaxLength : m.maxLengthBounds({ maxLength });
}

function partsOf(found: Backtracking): string {
  return "parts" in found ? found.parts.map((part) => JSON.stringify(part)).join(" and ") : "";
}

/** A `format` whose Ajv check is a regular expression that backtracks (ajv-formats' "url"), or null. */
export function slowFormat(
  ajv: Ajv2020,
  format: string,
  path: SpecPath,
  at: string,
  maxLength: number | undefined,
  budget: PatternBudget,
): Finding | null {
  const definition = ajv.formats[format];
  const regex =
    definition instanceof RegExp
      ? definition
      : typeof definition === "object" && definition !== null && "validate" in definition
        ? definition.validate
        : null;
  if (!(regex instanceof RegExp)) return null;
  const found = backtrackingOf(regex.source, regex.flags, budget);
  if (found.kind === "linear") return null;
  const name = JSON.stringify(format);
  return report("KV5019", path, (m) => {
    if (found.kind === "unchecked") return m.formatUnchecked({ format: name, at, reason: found.reason });
    const how = { format: name, at, parts: partsOf(found), character: JSON.stringify(found.character) };
    const cost =
      found.kind === "exponential"
        ? m.formatExponential(how)
        : found.kind === "polynomial"
          ? m.formatPolynomial(how)
          : m.formatMoving(how);
    return sentences(cost, format === "url" && m.uriInstead, bound(m, found, maxLength));
  });
}
