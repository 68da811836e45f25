/**
 * The schema profiles a server can advertise with `--schema-profile NAME` (`KERVANC_SCHEMA_PROFILE`): each tool's
 * input schema rewritten at build time for a family of clients that refuses parts of JSON Schema (the compiler's
 * plan/schema-profiles.ts says how). Nothing is rewritten at run time: a generated tool carries the rewritten
 * listing as JSON text beside its own, where the rewrite changed it. Validation always uses the spec's schema.
 */
export const SCHEMA_PROFILES = ["gemini"] as const;
export type SchemaProfile = (typeof SCHEMA_PROFILES)[number];

/** A profile name as given on the command line or in a binding, or the error that names the known ones. */
export function schemaProfile(setting: string, value: string): SchemaProfile {
  if ((SCHEMA_PROFILES as readonly string[]).includes(value)) return value as SchemaProfile;
  throw new Error(`${setting} must be one of ${SCHEMA_PROFILES.join(", ")}, not ${JSON.stringify(value)}.`);
}
