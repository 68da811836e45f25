/**
 * Secrets in a test run: each declared secret gets a made-up placeholder value for this run (random, so no
 * real value and no value a case could hard-code), and the canary check looks for every form of each value
 * (raw, encoded, escaped: the runtime's own list) in what a call returns.
 */
import { randomBytes } from "node:crypto";
import type { JsonValue } from "../analyze/shape.ts";
import { SecretVault } from "@kervanc/runtime/secrets";
import type { Secrets } from "./compare.ts";

export interface Placeholders extends Secrets {
  readonly values: ReadonlyMap<string, string>;
  /** The secrets any of whose forms occur in `text`. */
  leaked(text: string): string[];
}

/** `{{secrets.NAME}}`, or `{{credentials.name}}` (kervanc extension upstream-auth), in a case's text. */
const PLACEHOLDER = /\{\{\s*((?:secrets\.[A-Z][A-Z0-9_]*)|(?:credentials\.[A-Za-z_][A-Za-z0-9_]*))\s*\}\}/g;

/**
 * Placeholder values for the declared secrets (by name) and, for a spec with upstream-auth credentials, for each
 * credential (keyed `credentials.<name>`): the token the stand-in issues, or the caller's header value.
 */
export function placeholders(names: readonly string[], credentials: readonly string[] = []): Placeholders {
  const values = new Map([
    ...names.map((n) => [n, `kervanc-test-${n.toLowerCase()}-${randomBytes(12).toString("hex")}`] as const),
    ...credentials.map(
      (n) =>
        [`credentials.${n}`, `kervanc-test-credential-${n.toLowerCase()}-${randomBytes(12).toString("hex")}`] as const,
    ),
  ]);
  const vaults = new Map(
    [...values].map(([name, value]) => {
      const vault = new SecretVault();
      vault.add(name, value);
      return [name, vault];
    }),
  );
  const all = new SecretVault();
  for (const [name, value] of values) all.add(name, value);
  const key = (reference: string): string => reference.replace(/^secrets\./, "");
  const fill = (text: string): string =>
    text.replace(PLACEHOLDER, (whole, reference: string) => values.get(key(reference)) ?? whole);
  const fillJson = (value: JsonValue): JsonValue =>
    typeof value === "string"
      ? fill(value)
      : Array.isArray(value)
        ? value.map(fillJson)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillJson(v)]))
          : value;
  return {
    values,
    fill,
    fillJson,
    mask(text) {
      let out = text;
      for (const [name, value] of values)
        out = out.split(value).join(name.startsWith("credentials.") ? `{{${name}}}` : `{{secrets.${name}}}`);
      return all.size > 0 ? all.redactText(out) : out;
    },
    leaked(text) {
      return [...vaults].filter(([, vault]) => vault.containsSecret(text)).map(([name]) => name);
    },
  };
}
