/**
 * Every diagnostic kervanc can report, with its stable code, default severity and an example message.
 *
 * Codes never change meaning once released; a retired code is kept with `retired: true`. The table in
 * docs/diagnostics.md is generated from this one (`npm run docs`), and a test fails when it drifts. Another test
 * checks that each example is a message kervanc really prints for some fixture in fixtures/invalid/.
 * Ranges: KV1xxx reading and parsing a file, KV2xxx the structure of a spec, KV3xxx URLs, templates and the
 * request, KV4xxx secrets, KV5xxx JSON Schemas, KV6xxx `select` expressions, KV7xxx kervanc import, KV8xxx
 * kervanc's extensions to the format, KV9xxx the command line and output.
 */
/** `info` is news that is not a problem (KV8001: the spec uses a kervanc extension); it never fails a command. */
export type Severity = "error" | "warning" | "info";

export interface CodeInfo {
  readonly severity: Severity;
  /** One line: what the code means. */
  readonly summary: string;
  /** A message as kervanc prints it (without file, position and path). */
  readonly example: string;
  readonly retired?: true;
}

export const CODES = {
  KV1001: { severity: "error", summary: "The spec file is larger than 1 MiB.", example: "The spec is larger than 1048576 bytes (it has 1048600)." },
  KV1002: { severity: "error", summary: "The spec file is not valid UTF-8 text.", example: "The spec is not valid UTF-8 text; save it as UTF-8." },
  KV1003: { severity: "error", summary: "The spec file is empty.", example: "The spec file is empty: it has no YAML document." },
  KV1004: {
    severity: "error",
    summary: "YAML syntax error, or a control character that YAML does not allow.",
    example: "Flow map in block collection must be sufficiently indented and end with a }",
  },
  KV1005: { severity: "error", summary: "A key appears twice in the same mapping.", example: 'The key "url" appears twice in the same mapping.' },
  KV1006: {
    severity: "error",
    summary: "YAML tags other than the core ones (such as !!js/function) are not allowed.",
    example:
      "The tag !!js/function is not allowed: a spec holds plain YAML values only (tags other than !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are refused).",
  },
  KV1007: {
    severity: "error",
    summary: "The file holds more than one YAML document.",
    example: "The file holds more than one YAML document; a spec is one document (remove the second ---).",
  },
  KV1008: {
    severity: "error",
    summary: "YAML aliases expand beyond the allowed limit (50 copies).",
    example: "The YAML aliases expand too much (more than 50 copies); write the values out or use fewer aliases.",
  },
  KV1009: { severity: "error", summary: "The YAML is nested too deeply to read.", example: "The YAML is nested too deeply to read." },
  KV1010: { severity: "error", summary: "The spec file cannot be read.", example: "The spec file cannot be read (EACCES)." },
  KV1011: { severity: "error", summary: "YAML problem reported by the parser as a warning (treated as an error).", example: "Unknown directive %FOO" },
  KV1012: {
    severity: "error",
    summary: "A YAML alias refers to a node that contains it.",
    example: "The alias *body is inside the node it refers to, which would make the spec infinitely deep.",
  },
  KV1013: {
    severity: "error",
    summary: "The file asks for YAML 1.1 (%YAML 1.1); specs are YAML 1.2.",
    example: "Specs are YAML 1.2; remove the %YAML 1.1 directive (YAML 1.1 reads yes/no as booleans, dates as timestamps and applies << merge keys).",
  },
  KV1014: {
    severity: "error",
    summary: "A mapping key is a list or a mapping.",
    example: "A mapping key must be plain text or a number, not a list or a mapping.",
  },

  KV2001: {
    severity: "error",
    summary: "Unknown field.",
    example: 'Unknown field "readonlyHint". Did you mean "readOnlyHint"? Allowed here: title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint.',
  },
  KV2002: { severity: "error", summary: "A required field is missing.", example: 'Missing required field "url".' },
  KV2003: {
    severity: "error",
    summary: "A value has the wrong type.",
    example: 'Expected a string, got the number 1. YAML reads 1.0 as the number 1; quote it: "1.0".',
  },
  KV2004: { severity: "error", summary: "A string is too short or too long.", example: "The value has 129 characters; at most 128 are allowed." },
  KV2005: {
    severity: "error",
    summary: "A string does not have the required form.",
    example: '"get item" is not valid here. A tool name is 1 to 128 letters, digits, _, . or -.',
  },
  KV2006: { severity: "error", summary: "A number is not an integer in the allowed range.", example: "Expected a whole number from 100 to 120000, got 50." },
  KV2007: { severity: "error", summary: "A value must be one exact constant.", example: 'specVersion must be the number 1. Got the string "1".' },
  KV2008: { severity: "error", summary: "A list has too few or too many items.", example: "The list has 201 items; at most 200 are allowed." },
  KV2009: {
    severity: "error",
    summary: "The output section must use either select or raw: true.",
    example: "output needs select (a JMESPath expression) or raw: true.",
  },
  KV2010: {
    severity: "error",
    summary: "Text contains an invisible or control character.",
    example: "The text contains an invisible or control character (U+202E): people reading the spec would not see what the model reads. Remove it.",
  },
  KV2011: {
    severity: "error",
    summary: "YAML read a host:port as a key and value.",
    example: 'YAML read a host:port as a key and value (because of the space after the colon); write "api.example.com:8443".',
  },
  KV2012: {
    severity: "warning",
    summary: "Structure problems stop further checks.",
    example:
      "Fix these structure problems first: more checks (URLs, template references, secrets) run once the structure is valid, and may report more problems.",
  },
  KV2013: {
    severity: "error",
    summary: "A YAML merge key (<<) is not applied.",
    example: "YAML merge keys (<<) are not applied in a spec (YAML 1.2); write the entries out.",
  },
  KV2014: { severity: "error", summary: "Two tools have the same name.", example: 'Duplicate tool name "get_item" (tools[0] has it too).' },

  KV3001: { severity: "error", summary: "A template is not closed with }}.", example: 'Unclosed "{{" in "https://api.example.com/items/{{input.id": every "{{" needs a "}}" after it (write \\{{ for a literal "{{").' },
  KV3002: {
    severity: "error",
    summary: "A template expression is not supported.",
    example:
      'Unsupported template {{env.HOME}}: a spec reads no environment variables in templates: declare the value in "secrets" and the server reads it from its environment at start. Did you mean {{secrets.HOME}}?',
  },
  KV3003: {
    severity: "error",
    summary: "A template names a secret that is not declared.",
    example: '{{secrets.API_KEY}} is not declared in the spec\'s "secrets" list.',
  },
  KV3004: {
    severity: "error",
    summary: "A template names an input property the schema does not declare.",
    example: "{{input.itemId}} does not match a property of the input schema. The input has: id.",
  },
  KV3005: { severity: "error", summary: "The URL is not a valid absolute URL.", example: "The URL is not a valid absolute URL." },
  KV3006: { severity: "error", summary: "The URL scheme is not https (or http where allowed).", example: "Only https:// URLs are supported." },
  KV3007: {
    severity: "error",
    summary: "Plain http is not allowed for this tool.",
    example:
      "Plain http:// is not allowed by default: requests and answers would travel unencrypted. Use https://, or set allowInsecureHttp: true for an API that only speaks http.",
  },
  KV3008: {
    severity: "error",
    summary: "The URL contains credentials.",
    example: "The URL must not contain credentials (user:pass@). Send them in a header using {{secrets.X}}.",
  },
  KV3009: { severity: "error", summary: "The URL's host or port is templated.", example: "The URL's host and port cannot be templated." },
  KV3010: {
    severity: "error",
    summary: "A template in the URL's query string.",
    example: "Templates are not allowed in the URL's query string; use http.query.",
  },
  KV3011: { severity: "error", summary: "The URL has a #fragment.", example: "The URL must not have a #fragment." },
  KV3012: { severity: "error", summary: "A query parameter name is templated.", example: "Query parameter names cannot be templated." },
  KV3013: { severity: "error", summary: "A JSON body key is templated.", example: "JSON body keys cannot be templated." },
  KV3014: {
    severity: "error",
    summary: "A header name is not a valid token.",
    example: '"X Api Key" is not a valid header name. A header name is letters, digits and !#$%&\'*+.^_`|~-, with no spaces or colons.',
  },
  KV3015: {
    severity: "error",
    summary: "The header is managed by the server and cannot be set.",
    example: 'The "Host" header is managed by the server and cannot be set.',
  },
  KV3016: {
    severity: "error",
    summary: "A GET request cannot have a body.",
    example: "A GET request cannot have a body. The method is GET because http.method is not set; set it to POST, PUT, PATCH or DELETE.",
  },
  KV3018: {
    severity: "error",
    summary:
      "Literal text looks like a template but is not one ({input.q}, ${X}): it would be sent as written. A warning where the text could be meant: {name} in single braces where name is an input property, ${NAME} where NAME is no declared secret or input property.",
    example: "{input.q} is sent as written: single braces are not a template; a template has two braces. Did you mean {{input.q}}?",
  },
  KV3017: {
    severity: "error",
    summary: "A '..' segment in the URL path removes a template.",
    example: 'The URL\'s path drops {{input.id}}: a ".." segment after it removes it. Write the path without "..".',
  },

  KV4001: { severity: "error", summary: "A secret is declared twice.", example: "Secret API_KEY is declared twice." },
  KV4002: { severity: "warning", summary: "A declared secret is never used.", example: "Secret API_KEY is declared but never used." },
  KV4003: { severity: "error", summary: "A secret's host binding is not a host name.", example: '"api.example.com:65536" is not a host name.' },
  KV4004: {
    severity: "error",
    summary: "A tool sends a host-bound secret to another host.",
    example: "Secret API_KEY may only be sent to api.example.com:443; this tool calls evil.example.net:443.",
  },
  KV4005: {
    severity: "error",
    summary: "A tool that sends secrets uses plain http.",
    example: "This tool sends secrets, so its URL must use https: secrets are never sent over plain http.",
  },

  KV5001: { severity: "error", summary: "The schema is larger than 64 KiB.", example: "The schema is larger than 65536 bytes (it has 83756)." },
  KV5002: {
    severity: "error",
    summary: "The schema is not plain JSON (unreachable from YAML since cycles are refused at load, KV1012).",
    example: "The schema is not plain JSON.",
  },
  KV5003: {
    severity: "error",
    summary: "The schema is nested deeper than 32 levels.",
    example:
      "The schema is nested deeper than 32 levels (at #/properties/deep/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties).",
  },
  KV5004: { severity: "error", summary: "The schema has more than 2,000 nodes.", example: "The schema has more than 2000 nodes." },
  KV5005: {
    severity: "error",
    summary: "The schema uses more than 64 anyOf/oneOf/allOf keywords.",
    example: "The schema uses more than 64 anyOf/oneOf/allOf keywords (it uses 65).",
  },
  KV5006: {
    severity: "error",
    summary: "Only same-document $ref values (#/...) are allowed.",
    example: 'Only local $ref values ("#/...") are allowed (at #/properties/id/$ref).',
  },
  KV5007: {
    severity: "error",
    summary: "The keyword is not allowed ($id, dynamic and recursive references, $async).",
    example: '"$id" is not allowed (at #/$id).',
  },
  KV5008: {
    severity: "error",
    summary: "Only the JSON Schema 2020-12 dialect is supported.",
    example: "Only the 2020-12 dialect is supported ($schema: https://json-schema.org/draft/2020-12/schema) (at #/$schema).",
  },
  KV5009: {
    severity: "error",
    summary: "A pattern is longer than 512 characters.",
    example:
      "A pattern is longer than 512 characters (at #/patternProperties/^(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)$).",
  },
  KV5010: {
    severity: "error",
    summary: "The input schema must have type: object.",
    example: 'The input schema must have type: "object" (tool arguments are always an object). It has type: "array".',
  },
  KV5011: {
    severity: "error",
    summary: "An unknown keyword that misspells a validation keyword (it would check nothing).",
    example: 'Unknown keyword "minimun" (at #/properties/id/minimun): did you mean "minimum"? As written it checks nothing.',
  },
  KV5012: {
    severity: "warning",
    summary: "Unknown string format: it is not checked.",
    example:
      'Unknown format "datetime" is not checked: any string passes (at #/properties/when/format). Did you mean "date-time"? Known formats: binary, byte, date, date-time, double, duration, email, float, hostname, int32, int64, ipv4, ipv6, iso-date-time, iso-time, json-pointer, json-pointer-uri-fragment, password, regex, relative-json-pointer, time, uri, uri-reference, uri-template, url, uuid.',
  },
  KV5013: {
    severity: "warning",
    summary: "A schema construct that has no effect or is likely a mistake (Ajv strict mode).",
    example: 'Required property "name" is not defined (at #).',
  },
  KV5014: {
    severity: "error",
    summary: "The schema is not a valid JSON Schema 2020-12 document.",
    example:
      'The schema is not valid JSON Schema 2020-12: #/properties/id/type must be equal to one of the allowed values ("array", "boolean", "integer", "null", "number", "object", "string").',
  },
  KV5015: {
    severity: "error",
    summary: "The schema cannot be compiled (an invalid regular expression, a $ref to nothing).",
    example: '"[A-Z" is not a valid regular expression (at #/properties/code/pattern): Unterminated character class.',
  },
  KV5016: {
    severity: "warning",
    summary: "Unknown keyword: published as an annotation, checks nothing.",
    example: 'Unknown keyword "example" is ignored: it is published in the schema but checks nothing (at #/properties/id/example). Did you mean "examples"?',
  },

  KV6001: {
    severity: "error",
    summary: "output.select is not a valid JMESPath expression.",
    example: 'select is not a valid JMESPath expression: Syntax error: invalid token (Rbracket): "]" (at character 16).',
  },
  KV6002: {
    severity: "error",
    summary: "output.select calls an unknown function.",
    example: "select calls an unknown function lenght(). Did you mean length()?",
  },
  KV6003: { severity: "error", summary: "output.select calls a function with the wrong number of arguments.", example: "join() takes 2 arguments, got 1." },
  KV6004: {
    severity: "error",
    summary: "output.select passes a value where a function needs an &expression (or the reverse).",
    example: "sort_by() needs an &expression as argument 2 (for example &name), not a value.",
  },
  KV6005: {
    severity: "error",
    summary: "output.select names a field that is refused (__proto__, constructor, prototype).",
    example: 'select reads the field "__proto__", which is refused: it names JavaScript object internals, not data.',
  },
  KV6006: {
    severity: "error",
    summary: "output.select pads to a width that is not a literal within the bound.",
    example: "pad_left() pads to a width that must be a literal whole number from 0 to 10000 (for example `10`).",
  },
  KV6007: {
    severity: "error",
    summary: "output.select passes a function an argument whose type, known without the data, the function does not accept.",
    example: "length() takes an object, an array or string as argument 1, but it is given number; every call would fail.",
  },
  KV6008: {
    severity: "error",
    summary: "output.select always returns a type that the output schema's root type refuses (an array for an object schema): every call would fail.",
    example: 'select always returns an array, and the output schema has type "object": every call would fail with "data must be object". Wrap the result in a hash, such as {items: items[*].name}, or change the schema\'s type.',
  },
  KV6009: {
    severity: "warning",
    summary: "output.select returns, for some answers, a type that the output schema's root type refuses.",
    example: 'select returns number or null, and the output schema has type "number": calls fail whenever it returns null.',
  },

  KV9001: { severity: "error", summary: "No spec files were found.", example: "No spec files (*.yaml, *.yml) in specs." },
  KV9002: { severity: "error", summary: "An input path does not exist or cannot be read.", example: "specs/missing.yaml does not exist." },
  KV9003: {
    severity: "error",
    summary: "Two specs would be written to the same output folder.",
    example: "specs/a.yaml and specs/a.yml would both be written to dist/a; rename one.",
  },
  KV9004: { severity: "error", summary: "The output cannot be written: the path and the system's reason are named, and nothing more is written.", example: "" },
  KV9005: {
    severity: "error",
    summary: "A file has more than 200 problems; the rest are counted, not shown (a warning if none of them is an error).",
    example: "59806 more problems in this file (59806 errors) are not shown; fix the ones above first.",
  },
  KV9006: {
    severity: "warning",
    summary: "A server's tools/list is larger than the budget (--tools-budget, default 8000 tokens).",
    example: "The tools/list of this server has 41230 characters (about 10308 tokens), more than the budget of 8000 tokens. Leave out tools, or shorten descriptions and schemas.",
  },
  KV9007: {
    severity: "error",
    summary:
      "A spec's file name cannot name its package folder: `.`, `..`, empty, a separator, a control character, a leading dot, a trailing dot or space, a character Windows refuses, or a Windows device name (CON, NUL, COM1, ...).",
    example: 'This spec\'s package folder would be "..", which names the folder above the output folder; rename the spec file.',
  },
  KV9008: {
    severity: "error",
    summary: "A package's place in the output folder holds something kervanc did not build (a file, a symbolic link, a folder without a kervanc manifest.json); nothing is written.",
    example: "dist/src is a folder kervanc did not build (it has no manifest.json); build replaces only packages it made. Move it away, or choose another -o.",
  },
  KV9009: {
    severity: "error",
    summary: "A spec path is not a regular file: a dangling symbolic link, a link to a folder, a named pipe, a socket or a device.",
    example: "specs/live.yaml is a named pipe (fifo), not a spec file; kervanc reads only regular files.",
  },
  KV9010: {
    severity: "error",
    summary: "A spec-test file (<name>.test.yaml) has a problem beyond its structure: a case names a tool the spec does not have, its arguments are not an object, or its expectation is empty or contradicts itself.",
    example: 'This case calls "get_forcast", which the spec does not have. Did you mean "get_forecast"?',
  },

  // KV8xxx: kervanc's extensions to the spec format (docs/extensions/).
  KV8001: {
    severity: "info",
    summary: "The spec uses a kervanc extension: it builds with kervanc, but is no longer portable to Kervan (an error under build --strict-kervan).",
    example: "This spec uses the kervanc extension form-body (docs/extensions/form-body.md), so it is no longer portable to Kervan; kervanc build --strict-kervan refuses it.",
  },
  KV8002: {
    severity: "error",
    summary: "A kervanc extension is used without being declared in kervancExtensions, or used wrongly.",
    example: "bodyEncoding: form is the kervanc extension form-body; declare it with kervancExtensions: [form-body] at the top of the spec (Kervan cannot run such a spec).",
  },

  // KV7xxx: kervanc import, from an OpenAPI document to a spec. Positions are in the OpenAPI document.
  KV7001: { severity: "error", summary: "The OpenAPI document cannot be read.", example: "The OpenAPI document is larger than 33554432 bytes (it has 40000000)." },
  KV7002: { severity: "error", summary: "The OpenAPI document is not valid YAML or JSON.", example: 'The key "get" appears twice in the same mapping.' },
  KV7003: {
    severity: "error",
    summary: "The document is not OpenAPI 3.0 or 3.1, or a part of it has the wrong shape.",
    example: "This is a Swagger 2.0 document; kervanc import reads OpenAPI 3.0 and 3.1 (convert it first, for example with swagger2openapi).",
  },
  KV7004: {
    severity: "error",
    summary: "A $ref points outside the document (import reads no other file or URL).",
    example: 'The $ref "common.yaml#/components/schemas/Error" points outside this document; kervanc import reads no other file or URL. Bundle the document into one file first.',
  },
  KV7005: { severity: "error", summary: "A $ref points to nothing in the document.", example: 'The $ref "#/components/schemas/Pets" points to nothing in this document.' },
  KV7006: {
    severity: "error",
    summary: "A tool's input would need a recursive schema.",
    example:
      "The schema is recursive: #/components/schemas/Node refers to itself. A tool's input schema is inlined and cannot be recursive; leave the operation out (--exclude createNode) or cut the cycle in the document.",
  },
  KV7007: {
    severity: "error",
    summary: "An input schema, with its $refs inlined, breaks the spec's schema limits.",
    example: "The input schema of createReport, with its $refs inlined, has more than 2000 nodes (the spec's limit). Leave the operation out (--exclude createReport) or simplify its schemas.",
  },
  KV7008: {
    severity: "error",
    summary: "There is no usable server URL (none, relative, not http(s), or http for an API that needs secrets).",
    example: 'The server URL "/api/v3" is relative; give the API\'s absolute URL with --server-url.',
  },
  KV7009: {
    severity: "warning",
    summary: "A security scheme kervanc cannot express (http digest and other http schemes, mutualTLS): the operation is imported without it.",
    example: 'The security scheme "signed" (http digest) is not supported; updatePet is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.',
  },
  KV7010: {
    severity: "warning",
    summary: "Part of an operation (a parameter, the body, the whole operation) cannot be expressed in a spec and is left out.",
    example: 'The cookie parameter "session" is left out: a spec sends no cookies from arguments.',
  },
  KV7011: {
    severity: "error",
    summary: "The selection (--include, --exclude, --read-only) matches nothing, or more than 200 operations.",
    example: '--include "pet" matches no tag, operationId or route ("GET /path") of an operation.',
  },
  KV7012: {
    severity: "error",
    summary: "The spec the import would write is refused by kervanc build; nothing is written.",
    example:
      'kervanc build would refuse the tool made from this operation: KV3017 tools[0].http.url: The URL\'s path drops {{input.name}}: a ".." segment after it removes it. Write the path without "..".',
  },
  KV7013: {
    severity: "warning",
    summary: "The server URL uses plain http: the spec sets allowInsecureHttp.",
    example: 'The server URL "http://api.example.com" uses plain http; the spec sets allowInsecureHttp: true, so requests and answers travel unencrypted.',
  },
  KV7014: {
    severity: "warning",
    summary: "Invisible or control characters were removed from a text the model would read.",
    example: "The description has 2 invisible or control characters (U+202E first), which the spec format refuses; they were removed.",
  },
  KV7015: {
    severity: "warning",
    summary: "A parameter carries a credential (by its name or description): it is sent from a secret, not asked of the model.",
    example: 'The query parameter "token" carries a credential; it is sent from the secret TOKEN instead of being an input the model fills in.',
  },
  KV7016: {
    severity: "warning",
    summary: "The document declares no security scheme: the tools are imported without authentication.",
    example: "The document declares no security scheme, so the tools send no credentials. If the API needs them, add a header with {{secrets.NAME}} and a secrets entry by hand.",
  },
  KV7017: {
    severity: "warning",
    summary: "The first https server was chosen over a plain-http one listed before it.",
    example: 'The server "https://ec2.amazonaws.com" is used: it is the first https one listed ("http://ec2.amazonaws.com" comes first but uses plain http). Give --server-url to choose another.',
  },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof CODES;
