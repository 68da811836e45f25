/**
 * Every diagnostic kervanc can report, with its stable code and default severity.
 *
 * Codes never change meaning once released; a retired code is kept with `retired: true`. The table in
 * docs/diagnostics.md is generated from this one (`npm run docs:diagnostics`), and a test fails when it drifts.
 * Ranges: KV1xxx reading and parsing a file, KV2xxx the structure of a spec, KV3xxx URLs, templates and the
 * request, KV4xxx secrets, KV5xxx JSON Schemas, KV6xxx `select` expressions, KV9xxx the command line and output.
 */
export type Severity = "error" | "warning";

export interface CodeInfo {
  readonly severity: Severity;
  /** One line: what the code means. */
  readonly summary: string;
}

export const CODES = {
  KV1001: { severity: "error", summary: "The spec file is larger than 1 MiB." },
  KV1002: { severity: "error", summary: "The spec file is not valid UTF-8 text." },
  KV1003: { severity: "error", summary: "The spec file is empty." },
  KV1004: { severity: "error", summary: "YAML syntax error." },
  KV1005: { severity: "error", summary: "A key appears twice in the same mapping." },
  KV1006: { severity: "error", summary: "YAML tags (such as !!js/function) are not allowed." },
  KV1007: { severity: "error", summary: "The file holds more than one YAML document." },
  KV1008: { severity: "error", summary: "YAML aliases expand beyond the allowed limit." },
  KV1009: { severity: "error", summary: "The YAML is nested too deeply." },
  KV1010: { severity: "error", summary: "The spec file cannot be read." },
  KV1011: { severity: "error", summary: "YAML problem reported by the parser as a warning (treated as an error)." },

  KV2001: { severity: "error", summary: "Unknown field." },
  KV2002: { severity: "error", summary: "A required field is missing." },
  KV2003: { severity: "error", summary: "A value has the wrong type." },
  KV2004: { severity: "error", summary: "A string is too short or too long." },
  KV2005: { severity: "error", summary: "A string does not have the required form." },
  KV2006: { severity: "error", summary: "A number is not an integer in the allowed range." },
  KV2007: { severity: "error", summary: "A value must be one exact constant." },
  KV2008: { severity: "error", summary: "A list has too few or too many items." },
  KV2009: { severity: "error", summary: "The output section must use either select or raw: true." },
  KV2010: { severity: "error", summary: "Text contains an invisible or control character." },
  KV2011: { severity: "error", summary: "YAML read a host:port as a key and value." },
  KV2012: { severity: "warning", summary: "Structure problems stop further checks." },
  KV2013: { severity: "error", summary: "A YAML merge key (<<) is not applied." },
  KV2014: { severity: "error", summary: "Two tools have the same name." },

  KV3001: { severity: "error", summary: "A template is not closed with }}." },
  KV3002: { severity: "error", summary: "A template expression is not supported." },
  KV3003: { severity: "error", summary: "A template names a secret that is not declared." },
  KV3004: { severity: "error", summary: "A template names an input property the schema does not declare." },
  KV3005: { severity: "error", summary: "The URL is not a valid absolute URL." },
  KV3006: { severity: "error", summary: "The URL scheme is not https (or http where allowed)." },
  KV3007: { severity: "error", summary: "Plain http is not allowed for this tool." },
  KV3008: { severity: "error", summary: "The URL contains credentials." },
  KV3009: { severity: "error", summary: "The URL's host or port is templated." },
  KV3010: { severity: "error", summary: "A template in the URL's query string." },
  KV3011: { severity: "error", summary: "The URL has a #fragment." },
  KV3012: { severity: "error", summary: "A query parameter name is templated." },
  KV3013: { severity: "error", summary: "A JSON body key is templated." },
  KV3014: { severity: "error", summary: "A header name is not a valid token." },
  KV3015: { severity: "error", summary: "The header is managed by the server and cannot be set." },
  KV3016: { severity: "error", summary: "A GET request cannot have a body." },

  KV4001: { severity: "error", summary: "A secret is declared twice." },
  KV4002: { severity: "warning", summary: "A declared secret is never used." },
  KV4003: { severity: "error", summary: "A secret's host binding is not a host name." },
  KV4004: { severity: "error", summary: "A tool sends a host-bound secret to another host." },
  KV4005: { severity: "error", summary: "A tool that sends secrets uses plain http." },

  KV5001: { severity: "error", summary: "The schema is larger than 64 KiB." },
  KV5002: { severity: "error", summary: "The schema is not plain JSON." },
  KV5003: { severity: "error", summary: "The schema is nested deeper than 32 levels." },
  KV5004: { severity: "error", summary: "The schema has more than 2,000 nodes." },
  KV5005: { severity: "error", summary: "The schema uses more than 64 anyOf/oneOf/allOf keywords." },
  KV5006: { severity: "error", summary: "Only same-document $ref values (#/...) are allowed." },
  KV5007: { severity: "error", summary: "The keyword is not allowed ($id and dynamic references)." },
  KV5008: { severity: "error", summary: "Only the JSON Schema 2020-12 dialect is supported." },
  KV5009: { severity: "error", summary: "A pattern is longer than 512 characters." },
  KV5010: { severity: "error", summary: "The input schema must have type: object." },
  KV5011: { severity: "error", summary: "Unknown JSON Schema keyword." },
  KV5012: { severity: "error", summary: "Unknown string format." },
  KV5013: { severity: "warning", summary: "A schema construct that has no effect or is likely a mistake (Ajv strict mode)." },
  KV5014: { severity: "error", summary: "The schema is not a valid JSON Schema 2020-12 document." },
  KV5015: { severity: "error", summary: "The schema cannot be compiled (for example an invalid regular expression)." },

  KV6001: { severity: "error", summary: "output.select is not a valid JMESPath expression." },
  KV6002: { severity: "error", summary: "output.select calls an unknown function." },
  KV6003: { severity: "error", summary: "output.select calls a function with the wrong number of arguments." },
  KV6004: { severity: "error", summary: "output.select passes a value where a function needs an &expression (or the reverse)." },
  KV6005: { severity: "error", summary: "output.select names a field that is refused (__proto__, constructor, prototype)." },
  KV6006: { severity: "error", summary: "output.select pads to a width that is not a literal within the bound." },

  KV9001: { severity: "error", summary: "No spec files were found." },
  KV9002: { severity: "error", summary: "An input path does not exist or cannot be read." },
  KV9003: { severity: "error", summary: "Two specs would be written to the same output folder." },
  KV9004: { severity: "error", summary: "The output cannot be written." },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof CODES;
