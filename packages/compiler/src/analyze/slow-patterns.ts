/**
 * KV5019: a regular expression the generated validator runs on every argument (or upstream result) can take
 * super-linear time on a string crafted for it. A warning, not an error: Kervan accepts these specs and lists
 * regex ReDoS as an accepted risk (kervan-spec-v1 §6), and a pattern's author may know the strings it meets are
 * short. The analysis itself is in regex-backtracking.ts.
 *
 * Ajv checks every keyword of a string even after one fails (all errors are reported), but a generated validator
 * does not run a pattern or a format on a string over the `maxLength` of the same schema
 * (emit/validator-pattern-guard.ts), so a `maxLength` bounds what a polynomial one costs: the messages say so, or
 * suggest one.
 */
import type { Ajv2020 } from "ajv/dist/2020.js";
import { type Finding, report, type SpecPath } from "../diagnostics/diagnostic.ts";
import { type Backtracking, backtrackingOf } from "./regex-backtracking.ts";

/**
 * A `pattern` value or `patternProperties` key (already known to compile) that backtracks, or null. `maxLength` is
 * the schema's own (a number, or undefined when it has none) for a `pattern`, null for a key (names have none).
 */
export function slowPattern(
  source: string,
  path: SpecPath,
  at: string,
  maxLength: number | undefined | null,
): Finding | null {
  const what = `The pattern ${JSON.stringify(source)}`;
  const found = backtrackingOf(source, "u");
  const rewrite =
    found.kind === "moving"
      ? 'Start it with "^" if it is meant to match from the start of the string.'
      : "fix" in found && found.fix !== null
        ? `${JSON.stringify(found.fix)} matches the same strings without it.`
        : "Rewrite it so that no repeated part can match the same characters in more than one way.";
  return finding(found, path, what, at, rewrite + boundHint(found, maxLength));
}

/**
 * What the schema's maxLength does for it (the validator runs neither a pattern nor a format on longer strings):
 * nothing for an exponential one, which needs a rewrite (a bound long enough for real strings is still too long
 * for it), nor for a patternProperties key (null: names have no maxLength).
 */
function boundHint(found: Backtracking, maxLength: number | undefined | null): string {
  if (found.kind === "exponential" || found.kind === "linear" || found.kind === "unchecked" || maxLength === null)
    return "";
  return maxLength === undefined
    ? " Or give the string a maxLength: the validator does not run the check on longer strings."
    : ` Its maxLength of ${maxLength} bounds the strings it runs on.`;
}

/** A `format` whose Ajv check is a regular expression that backtracks (ajv-formats' "url"), or null. */
export function slowFormat(
  ajv: Ajv2020,
  format: string,
  path: SpecPath,
  at: string,
  maxLength: number | undefined,
): Finding | null {
  const definition = ajv.formats[format];
  const regex =
    definition instanceof RegExp
      ? definition
      : typeof definition === "object" && definition !== null && "validate" in definition
        ? definition.validate
        : null;
  if (!(regex instanceof RegExp)) return null;
  const found = backtrackingOf(regex.source, regex.flags);
  const uri = format === "url" ? 'The "uri" format accepts the same kind of string and is checked without it.' : "";
  const hint = (uri + boundHint(found, maxLength)).trim();
  return finding(found, path, `The ${JSON.stringify(format)} format's check`, at, hint);
}

function finding(found: Backtracking, path: SpecPath, what: string, at: string, hint: string): Finding | null {
  if (found.kind === "linear") return null;
  if (found.kind === "unchecked") return report("KV5019", path, (m) => m.unchecked({ what, at, reason: found.reason }));
  const parts = found.parts.map((part) => JSON.stringify(part)).join(" and ");
  const character = JSON.stringify(found.character);
  switch (found.kind) {
    case "exponential":
      return report("KV5019", path, (m) => m.exponential({ what, at, parts, character, hint }));
    case "polynomial":
      return report("KV5019", path, (m) => m.polynomial({ what, at, parts, character, hint }));
    case "moving":
      return report("KV5019", path, (m) => m.moving({ what, at, parts, character, hint }));
  }
}
