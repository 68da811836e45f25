/**
 * Names the importer makes: tool names, input property names, secret names and the server name.
 *
 * Every rule here exists because of a rule of the spec format: tool names are `[A-Za-z0-9_.-]`, template
 * references (`{{input.a}}`) only take identifier segments, secret names are upper case. Names that already
 * follow a rule are kept as they are, so an API's own vocabulary survives wherever it can.
 */

import { clientToolName, MAX_CLIENT_TOOL_NAME } from "../analyze/rules/client-names.ts";
import { reservedSecretName } from "../analyze/rules/secrets.ts";

/** Tool names are cut to this length: long names cost tokens in every listing and some clients cap them at 64. */
export const MAX_TOOL_NAME = MAX_CLIENT_TOOL_NAME;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Hands out names unique case-insensitively (clients and file systems may fold case), with `_2`, `_3` suffixes. */
export class NameSet {
  readonly #taken = new Set<string>();
  readonly maxLength: number;

  constructor(maxLength: number = Number.MAX_SAFE_INTEGER) {
    this.maxLength = maxLength;
  }

  has(name: string): boolean {
    return this.#taken.has(name.toLowerCase());
  }

  /** Takes `name` if it is free, or the first free `name_2`, `name_3`, ... cut to fit the length. */
  take(name: string): string {
    let candidate = name.slice(0, this.maxLength);
    for (let n = 2; this.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = name.slice(0, this.maxLength - suffix.length) + suffix;
    }
    this.#taken.add(candidate.toLowerCase());
    return candidate;
  }
}

/**
 * `text` without leading and trailing runs of `char`. A loop, not /^_+|_+$/: that backtracks over every run that
 * does not end the text, quadratic in its length (an operationId of a million underscores took hours).
 */
function trimRuns(text: string, char: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === char) start++;
  while (end > start && text[end - 1] === char) end--;
  return text.slice(start, end);
}

/**
 * An operationId made a tool name every client accepts (analyze/rules/client-names.ts): other characters, dots included,
 * become `_`; a name over 64 characters is cut and ends in a short hash of the whole, so two long operationIds
 * that share a start do not both become the same cut.
 */
export function toolNameFrom(operationId: string): string {
  const name = trimRuns(operationId.replace(/[^A-Za-z0-9_-]+/g, "_"), "_");
  return name === "" ? "operation" : clientToolName(name);
}

/** A tool name for an operation without operationId: `get_pets_petId` for GET /pets/{petId}. */
export function toolNameFromRoute(method: string, path: string): string {
  const words = path
    .split("/")
    .map((segment) => segment.replace(/[{}]/g, ""))
    .filter((segment) => segment !== "");
  return toolNameFrom([method.toLowerCase(), ...words].join("_"));
}

/**
 * A parameter name made an identifier that templates can reference: kept when it already is one, otherwise
 * snake case (`X-Request-Id` → `x_request_id`, `page[size]` → `page_size`), with a leading `_` before a digit.
 */
export function identifierFrom(name: string): string {
  if (IDENTIFIER.test(name)) return name;
  let id = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toLowerCase();
  id = trimRuns(id, "_");
  if (id === "") id = "param";
  if (/^[0-9]/.test(id)) id = `_${id}`;
  return id;
}

/** A secret name from a security scheme's name: `bearerAuth` → `BEARER_AUTH`, `api_key` → `API_KEY`. */
export function secretNameFrom(scheme: string): string {
  let name = trimRuns(
    scheme
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .toUpperCase(),
    "_",
  );
  if (name === "") name = "SECRET";
  if (!/^[A-Z]/.test(name)) name = `KEY_${name}`;
  // Names the server reads as its own settings are refused for secrets (KV4006): such a scheme gets a prefix.
  if (reservedSecretName(name) !== null) name = `API_${name}`;
  return name.slice(0, 64);
}

/** The server name (MCP serverInfo.name) from the API's title: `Swagger Petstore` → `swagger-petstore`. */
export function serverNameFrom(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return slug === "" ? "api" : slug;
}
