/**
 * Every diagnostic kervanc can report, with its stable code, default severity, an example message and the
 * templates of its messages (in the spirit of TypeScript's diagnosticMessages.json: the text of a message lives
 * here, next to its code; a check names the template and passes the values, see `report` in diagnostic.ts).
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

/**
 * A message template: fixed text, or a function that only places its named arguments into text (no logic:
 * choices and formatting happen where the values are computed), so docs/diagnostics.md can print it with each
 * argument shown as `{name}`. Arguments are data (names, paths, counts, quoted text), never English: where a
 * message has variants ("… Did you mean X?", a hint for one case), each variant is a template of its own, as tsc
 * has 2304 "Cannot find name" and 2552 "Cannot find name … Did you mean …?"; where optional sentences combine,
 * each sentence is a template and the check joins them with `sentences()` (diagnostic.ts).
 */
// The argument types are each template's own; `any` lets one table hold them all (MessagesOf keeps them).
export type MessageTemplate = string | ((args: any) => string);

export interface CodeInfo {
  readonly severity: Severity;
  /** One line: what the code means. */
  readonly summary: string;
  /** A message as kervanc prints it (without file, position and path). */
  readonly example: string;
  readonly retired?: true;
  /**
   * The code's messages by name. kervanc import renders some where it finds the problem (an ImportProblem, a
   * ConvertNote, a proposal's warning) and passes the text on whole; it still comes from here.
   */
  readonly messages?: Readonly<Record<string, MessageTemplate>>;
}

export const CODES = {
  KV1001: {
    severity: "error",
    summary: "The spec file is larger than 1 MiB.",
    example: "The spec is larger than 1048576 bytes (it has 1048600).",
    messages: {
      tooLarge: (a: { max: number; size: number }) => `The spec is larger than ${a.max} bytes (it has ${a.size}).`,
    },
  },
  KV1002: {
    severity: "error",
    summary: "The spec file is not valid UTF-8 text.",
    example: "The spec is not valid UTF-8 text; save it as UTF-8.",
    messages: {
      notUtf8: "The spec is not valid UTF-8 text; save it as UTF-8.",
    },
  },
  KV1003: {
    severity: "error",
    summary: "The spec file is empty.",
    example: "The spec file is empty: it has no YAML document.",
    messages: {
      empty: "The spec file is empty: it has no YAML document.",
    },
  },
  KV1004: {
    severity: "error",
    summary: "YAML syntax error, or a control character that YAML does not allow.",
    example: "Flow map in block collection must be sufficiently indented and end with a }",
    messages: {
      controlCharacter: (a: { code: string }) =>
        `YAML does not allow the control character U+${a.code}; is this a text file?`,
      unreadable: (a: { reason: string }) => `The YAML cannot be read: ${a.reason}`,
      parser: (a: { message: string }) => a.message,
      aliasWithoutAnchor: (a: { name: string }) => `The alias *${a.name} has no anchor &${a.name} before it.`,
    },
  },
  KV1005: {
    severity: "error",
    summary: "A key appears twice in the same mapping.",
    example: 'The key "url" appears twice in the same mapping.',
    messages: {
      duplicateKey: (a: { key: string }) => `The key ${a.key} appears twice in the same mapping.`,
    },
  },
  KV1006: {
    severity: "error",
    summary: "YAML tags other than the core ones (such as !!js/function) are not allowed.",
    example:
      "The tag !!js/function is not allowed: a spec holds plain YAML values only (tags other than !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are refused).",
    messages: {
      tag: (a: { tag: string }) =>
        `The tag ${a.tag} is not allowed: a spec holds plain YAML values only (tags other than !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are refused).`,
    },
  },
  KV1007: {
    severity: "error",
    summary: "The file holds more than one YAML document.",
    example: "The file holds more than one YAML document; a spec is one document (remove the second ---).",
    messages: {
      multipleDocuments: "The file holds more than one YAML document; a spec is one document (remove the second ---).",
    },
  },
  KV1008: {
    severity: "error",
    summary:
      "YAML aliases expand beyond the allowed limits (50 copies; 1,048,576 values and characters of text in all).",
    example: "The YAML aliases expand too much (more than 50 copies); write the values out or use fewer aliases.",
    messages: {
      aliasBudget: (a: { max: number }) =>
        `The YAML aliases expand too much (more than ${a.max} copies); write the values out or use fewer aliases.`,
      expansionBudget: (a: { max: number }) =>
        `The YAML aliases expand too much (to more than ${a.max} values and characters of text in all); write the values out or use fewer aliases.`,
    },
  },
  KV1009: {
    severity: "error",
    summary: "The YAML is nested too deeply to read.",
    example: "The YAML is nested too deeply to read.",
    messages: {
      tooDeep: "The YAML is nested too deeply to read.",
      unreadable: (a: { reason: string }) => `The YAML cannot be read: ${a.reason}`,
    },
  },
  KV1010: {
    severity: "error",
    summary: "The spec file cannot be read.",
    example: "The spec file cannot be read (EACCES).",
    messages: {
      unreadable: (a: { code: string }) => `The spec file cannot be read (${a.code}).`,
    },
  },
  KV1011: {
    severity: "error",
    summary: "YAML problem reported by the parser as a warning (treated as an error).",
    example: "Unknown directive %FOO",
    messages: {
      parserWarning: (a: { message: string }) => a.message,
    },
  },
  KV1012: {
    severity: "error",
    summary: "A YAML alias refers to a node that contains it.",
    example: "The alias *body is inside the node it refers to, which would make the spec infinitely deep.",
    messages: {
      selfAlias: (a: { name: string }) =>
        `The alias *${a.name} is inside the node it refers to, which would make the spec infinitely deep.`,
    },
  },
  KV1013: {
    severity: "error",
    summary: "The file asks for YAML 1.1 (%YAML 1.1); specs are YAML 1.2.",
    example:
      "Specs are YAML 1.2; remove the %YAML 1.1 directive (YAML 1.1 reads yes/no as booleans, dates as timestamps and applies << merge keys).",
    messages: {
      yaml11:
        "Specs are YAML 1.2; remove the %YAML 1.1 directive (YAML 1.1 reads yes/no as booleans, dates as timestamps and applies << merge keys).",
    },
  },
  KV1014: {
    severity: "error",
    summary: "A mapping key is a list or a mapping.",
    example: "A mapping key must be plain text or a number, not a list or a mapping.",
    messages: {
      keyNotScalar: "A mapping key must be plain text or a number, not a list or a mapping.",
      keyIsTemplate: (a: { template: string }) =>
        `A mapping key must be plain text or a number, not a list or a mapping. YAML read the unquoted ${a.template} as a mapping (a value that starts with "{" is a flow mapping); quote the value: "${a.template}".`,
    },
  },

  KV2001: {
    severity: "error",
    summary: "Unknown field.",
    example:
      'Unknown field "readonlyHint". Did you mean "readOnlyHint"? Allowed here: title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint.',
    messages: {
      // Sentences, joined by sentences(): the first, then where the field belongs, what is allowed, how many more.
      missingRequired: (a: { key: string; required: string }) =>
        `Unknown field ${a.key}. Did you mean "${a.required}" (a required field, missing here)?`,
      didYouMean: (a: { key: string; close: string; allowed: string }) =>
        `Unknown field ${a.key}. Did you mean "${a.close}"? Allowed here: ${a.allowed}.`,
      unknown: (a: { key: string }) => `Unknown field ${a.key}.`,
      // Where a field of another level belongs: part of the message and the fix's description.
      movedDown: (a: { field: string; path: string }) =>
        `Did you mean "${a.field}"? The field belongs one level down: ${a.path}.`,
      movedUp: (a: { field: string; path: string }) =>
        `Did you mean "${a.field}" one level up? The field belongs at ${a.path}.`,
      allowedHere: (a: { allowed: string }) => `Allowed here: ${a.allowed}.`,
      moreNotListed: (a: { count: number }) => `(${a.count} more unknown fields in this mapping are not listed.)`,
    },
  },
  KV2002: {
    severity: "error",
    summary: "A required field is missing.",
    example: 'Missing required field "url".',
    messages: {
      missing: (a: { key: string }) => `Missing required field "${a.key}".`,
    },
  },
  KV2003: {
    severity: "error",
    summary: "A value has the wrong type.",
    example: 'Expected a string, got the number 1. YAML reads 1.0 as the number 1; quote it: "1.0".',
    messages: {
      notString: (a: { got: string }) => `Expected a string, got ${a.got}.`,
      notStringQuote: (a: { got: string; text: string; as: string }) =>
        `Expected a string, got ${a.got}. YAML reads ${a.text} as ${a.as}; quote it: "${a.text}".`,
      notInteger: (a: { got: string }) => `Expected a whole number, got ${a.got}.`,
      notBoolean: (a: { got: string }) => `Expected true or false, got ${a.got}.`,
      notScalar: (a: { got: string }) => `Expected a string, number or boolean, got ${a.got}.`,
      notSchema: (a: { got: string }) => `Expected a JSON Schema (a mapping), got ${a.got}.`,
      notList: (a: { got: string }) => `Expected a list, got ${a.got}.`,
      notRecord: (a: { got: string }) => `Expected a mapping (name: value), got ${a.got}.`,
      notObject: (a: { got: string }) => `Expected a mapping (key: value pairs), got ${a.got}.`,
      notSecret: "A secret is a NAME, or a mapping with name and hosts.",
    },
  },
  KV2004: {
    severity: "error",
    summary: "A string is too short or too long.",
    example: "The value has 129 characters; at most 128 are allowed.",
    messages: {
      empty: "The value must not be empty.",
      tooShort: (a: { min: number }) => `The value must have at least ${a.min} characters.`,
      tooLong: (a: { length: number; max: number }) =>
        `The value has ${a.length} characters; at most ${a.max} are allowed.`,
    },
  },
  KV2005: {
    severity: "error",
    summary: "A string does not have the required form.",
    example: '"get item" is not valid here. A tool name is 1 to 128 letters, digits, _, . or -.',
    messages: {
      // One per pattern in the spec format (StringShape.pattern names it).
      secretName: (a: { value: string }) =>
        `${a.value} is not valid here. A secret name is upper case: a letter, then letters, digits or _ (for example API_KEY).`,
      host: (a: { value: string }) =>
        `${a.value} is not valid here. A host is a DNS name or a bracketed IPv6 address, with an optional :port.`,
      toolName: (a: { value: string }) =>
        `${a.value} is not valid here. A tool name is 1 to 128 letters, digits, _, . or -.`,
      toolsetName: (a: { value: string }) =>
        `${a.value} is not valid here. A toolset name is 1 to 64 letters, digits, _ or -, starting with a letter or digit.`,
      scope: (a: { value: string }) =>
        `${a.value} is not valid here. An OAuth scope is printable ASCII without spaces, quotes or backslashes (RFC 6749 3.3).`,
      notInEnum: (a: { value: string; allowed: string }) => `${a.value} is not one of ${a.allowed}.`,
    },
  },
  KV2006: {
    severity: "error",
    summary: "A number is not an integer in the allowed range.",
    example: "Expected a whole number from 100 to 120000, got 50.",
    messages: {
      range: (a: { min: number; max: number; got: number }) =>
        `Expected a whole number from ${a.min} to ${a.max}, got ${a.got}.`,
    },
  },
  KV2007: {
    severity: "error",
    summary: "A value must be one exact constant.",
    example: 'specVersion must be the number 1. Got the string "1".',
    messages: {
      // One per constant in the spec format (LiteralShape.rule names it).
      specVersion: (a: { got: string }) => `specVersion must be the number 1. Got ${a.got}.`,
      raw: (a: { got: string }) =>
        `raw must be true (to select fields instead, remove raw and write select). Got ${a.got}.`,
    },
  },
  KV2008: {
    severity: "error",
    summary: "A list has too few or too many items.",
    example: "The list has 201 items; at most 200 are allowed.",
    messages: {
      tooFew: (a: { min: number; items: string }) => `The list needs at least ${a.min} ${a.items}.`,
      tooMany: (a: { length: number; max: number }) => `The list has ${a.length} items; at most ${a.max} are allowed.`,
    },
  },
  KV2009: {
    severity: "error",
    summary: "The output section must use either select or raw: true.",
    example: "output needs select (a JMESPath expression) or raw: true.",
    messages: {
      both: "output has both select and raw; use one of them.",
      neither: "output needs select (a JMESPath expression) or raw: true.",
    },
  },
  KV2010: {
    severity: "error",
    summary: "Text contains an invisible or control character.",
    example:
      "The text contains an invisible or control character (U+202E): people reading the spec would not see what the model reads. Remove it.",
    messages: {
      hidden: (a: { code: string }) =>
        `The text contains an invisible or control character (U+${a.code}): people reading the spec would not see what the model reads. Remove it.`,
      hiddenLineBreak: (a: { code: string }) =>
        `The text contains an invisible or control character (U+${a.code}): people reading the spec would not see what the model reads. Remove it. Line breaks and tabs are allowed in descriptions only.`,
      hiddenInSchema: (a: { keyword: string; code: string; at: string }) =>
        `A ${a.keyword} contains an invisible or control character (U+${a.code}): people reading the spec would not see what the model reads. Remove it. (at ${a.at})`,
    },
  },
  KV2011: {
    severity: "error",
    summary: "YAML read a host:port as a key and value.",
    example:
      'YAML read a host:port as a key and value (because of the space after the colon); write "api.example.com:8443".',
    messages: {
      hostAsMapping: (a: { host: string }) =>
        `YAML read a host:port as a key and value (because of the space after the colon); write "${a.host}".`,
    },
  },
  KV2012: {
    severity: "warning",
    summary: "Structure problems stop further checks.",
    example:
      "Fix these structure problems first: more checks (URLs, template references, secrets) run once the structure is valid, and may report more problems.",
    messages: {
      structureFirst:
        "Fix these structure problems first: more checks (URLs, template references, secrets) run once the structure is valid, and may report more problems.",
    },
  },
  KV2013: {
    severity: "error",
    summary: "A YAML merge key (<<) is not applied.",
    example: "YAML merge keys (<<) are not applied in a spec (YAML 1.2); write the entries out.",
    messages: {
      mergeKeyEntries: "YAML merge keys (<<) are not applied in a spec (YAML 1.2); write the entries out.",
      mergeKeyFields: "YAML merge keys (<<) are not applied in a spec (YAML 1.2); write the fields out.",
      moreNotListed: (a: { count: number }) => `(${a.count} more unknown fields in this mapping are not listed.)`,
      mergeKeySchema: (a: { at: string }) =>
        `YAML merge keys (<<) are not applied in a spec (YAML 1.2), so nothing is merged here (at ${a.at}); write the keywords out.`,
    },
  },
  KV2014: {
    severity: "error",
    summary: "Two tools have the same name.",
    example: 'Duplicate tool name "get_item" (tools[0] has it too).',
    messages: {
      duplicateTool: (a: { name: string; first: number }) =>
        `Duplicate tool name "${a.name}" (tools[${a.first}] has it too).`,
    },
  },

  KV2015: {
    severity: "warning",
    summary: "A tool name that some clients refuse (Claude's and OpenAI's rule is ^[a-zA-Z0-9_-]{1,64}$).",
    example:
      'Some clients refuse the tool name "issues.list" (Claude and OpenAI take only letters, digits, _ and -, at most 64 characters); rename it to "issues_list".',
    messages: {
      notClientSafeCharacters: (a: { name: string; rename: string }) =>
        `Some clients refuse the tool name "${a.name}" (Claude and OpenAI take only letters, digits, _ and -, at most 64 characters); rename it to "${a.rename}".`,
      notClientSafeLength: (a: { name: string; length: number; rename: string }) =>
        `Some clients refuse the tool name "${a.name}", ${a.length} characters long (Claude and OpenAI take at most 64); rename it to "${a.rename}".`,
    },
  },

  KV3001: {
    severity: "error",
    summary: "A template is not closed with }}.",
    example:
      'Unclosed "{{" in "https://api.example.com/items/{{input.id": every "{{" needs a "}}" after it (write \\{{ for a literal "{{").',
    messages: {
      singleBrace: (a: { source: string; meant: string }) =>
        `Unclosed "{{" in ${a.source}: the template ends with a single "}"; close it with "}}". Did you mean ${a.meant}?`,
      unclosed: (a: { source: string }) =>
        `Unclosed "{{" in ${a.source}: every "{{" needs a "}}" after it (write \\{{ for a literal "{{").`,
    },
  },
  KV3002: {
    severity: "error",
    summary: "A template expression is not supported.",
    example:
      'Unsupported template {{env.HOME}}: a spec reads no environment variables in templates: declare the value in "secrets" and the server reads it from its environment at start. Did you mean {{secrets.HOME}}?',
    messages: {
      emptyBraces: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: the braces are empty; only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      tripleBraces: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: a template has exactly two braces on each side (this is not Mustache's triple-brace form); only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      tripleBracesMeant: (a: { expression: string; meant: string }) =>
        `Unsupported template {{${a.expression}}}: a template has exactly two braces on each side (this is not Mustache's triple-brace form); only {{input.<field>}} and {{secrets.<NAME>}} are allowed. Did you mean ${a.meant}?`,
      filters: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: templates have no filters, pipes or function calls (the value is inserted as it is, encoded for its place); only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      expression: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: a template holds one reference, with no spaces, operators or expressions inside (the value is inserted as it is); only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      environment: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: a spec reads no environment variables in templates: declare the value in "secrets" and the server reads it from its environment at start.`,
      environmentMeant: (a: { expression: string; meant: string }) =>
        `Unsupported template {{${a.expression}}}: a spec reads no environment variables in templates: declare the value in "secrets" and the server reads it from its environment at start. Did you mean ${a.meant}?`,
      secretsPrefix: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: the prefix is "secrets" (plural, lower case); only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      secretsPrefixMeant: (a: { expression: string; meant: string }) =>
        `Unsupported template {{${a.expression}}}: the prefix is "secrets" (plural, lower case); only {{input.<field>}} and {{secrets.<NAME>}} are allowed. Did you mean ${a.meant}?`,
      secretCase: (a: { expression: string; name: string; meant: string }) =>
        `Unsupported template {{${a.expression}}}: secret names are upper-case letters, digits and "_" (as in the "secrets" list), so ${a.name} is not one. Did you mean ${a.meant}?`,
      secretCharacter: (a: { expression: string; character: string; position: number }) =>
        `Unsupported template {{${a.expression}}}: a secret name is upper-case letters, digits and "_"; ${a.character} at character ${a.position} of the name is not allowed.`,
      inputPrefix: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: the prefix is "input" (singular, lower case); only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      inputPrefixMeant: (a: { expression: string; meant: string }) =>
        `Unsupported template {{${a.expression}}}: the prefix is "input" (singular, lower case); only {{input.<field>}} and {{secrets.<NAME>}} are allowed. Did you mean ${a.meant}?`,
      inputWithoutPath: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: name a property of the input: {{input.<field>}}.`,
      inputBracket: (a: { expression: string; character: string; position: number }) =>
        `Unsupported template {{${a.expression}}}: ${a.character} at character ${a.position} of the path is not allowed: brackets are not supported (a template names a property by a dotted path of identifiers).`,
      inputCharacter: (a: { expression: string; character: string; position: number; renamed: string }) =>
        `Unsupported template {{${a.expression}}}: ${a.character} at character ${a.position} of the path is not allowed: input paths are identifiers (letters, digits and "_") joined by "."; a property whose name has ${a.character} cannot be referenced: rename it (for example ${a.renamed}).`,
      inputPathPart: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: each part of an input path is an identifier that starts with a letter or "_", with no empty parts; only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
      withoutSource: (a: { expression: string; meant: string }) =>
        `Unsupported template {{${a.expression}}}: a template names its source: "input." for an argument or "secrets." for a secret; only {{input.<field>}} and {{secrets.<NAME>}} are allowed. Did you mean ${a.meant}?`,
      other: (a: { expression: string }) =>
        `Unsupported template {{${a.expression}}}: only {{input.<field>}} and {{secrets.<NAME>}} are allowed.`,
    },
  },
  KV3003: {
    severity: "error",
    summary: "A template names a secret that is not declared.",
    example: '{{secrets.API_KEY}} is not declared in the spec\'s "secrets" list.',
    messages: {
      undeclaredSecret: (a: { ref: string }) => `${a.ref} is not declared in the spec's "secrets" list.`,
      undeclaredSecretMeant: (a: { ref: string; meant: string }) =>
        `${a.ref} is not declared in the spec's "secrets" list. Did you mean ${a.meant}?`,
      undeclaredSecretDeclared: (a: { ref: string; declared: string }) =>
        `${a.ref} is not declared in the spec's "secrets" list. Declared: ${a.declared}.`,
    },
  },
  KV3004: {
    severity: "error",
    summary: "A template names an input property the schema does not declare.",
    example: "{{input.itemId}} does not match a property of the input schema. The input has: id.",
    messages: {
      unknownInput: (a: { ref: string }) => `${a.ref} does not match a property of the input schema.`,
      unknownInputMeant: (a: { ref: string; meant: string }) =>
        `${a.ref} does not match a property of the input schema. Did you mean ${a.meant}?`,
      unknownInputHas: (a: { ref: string; names: string }) =>
        `${a.ref} does not match a property of the input schema. The input has: ${a.names}.`,
      noInputSchema: (a: { ref: string }) =>
        `${a.ref} does not match a property of the input schema. This tool has no input schema; declare the property under input.properties.`,
    },
  },
  KV3005: {
    severity: "error",
    summary: "The URL is not a valid absolute URL.",
    example: "The URL is not a valid absolute URL.",
    messages: {
      notAbsolute: "The URL is not a valid absolute URL.",
    },
  },
  KV3006: {
    severity: "error",
    summary: "The URL scheme is not https (or http where allowed).",
    example: "Only https:// URLs are supported.",
    messages: {
      scheme: "Only https:// URLs are supported.",
    },
  },
  KV3007: {
    severity: "error",
    summary: "Plain http is not allowed for this tool.",
    example:
      "Plain http:// is not allowed by default: requests and answers would travel unencrypted. Use https://, or set allowInsecureHttp: true for an API that only speaks http.",
    messages: {
      secretsNeedHttps:
        "Plain http:// is not allowed: this tool sends secrets, which would travel unencrypted. Use https://.",
      plainHttp:
        "Plain http:// is not allowed by default: requests and answers would travel unencrypted. Use https://, or set allowInsecureHttp: true for an API that only speaks http.",
    },
  },
  KV3008: {
    severity: "error",
    summary: "The URL contains credentials.",
    example: "The URL must not contain credentials (user:pass@). Send them in a header using {{secrets.X}}.",
    messages: {
      credentials: "The URL must not contain credentials (user:pass@). Send them in a header using {{secrets.X}}.",
    },
  },
  KV3009: {
    severity: "error",
    summary: "The URL's host or port is templated.",
    example: "The URL's host and port cannot be templated.",
    messages: {
      templatedHost: "The URL's host and port cannot be templated.",
    },
  },
  KV3010: {
    severity: "error",
    summary: "A template in the URL's query string.",
    example: "Templates are not allowed in the URL's query string; use http.query.",
    messages: {
      templatedQuery: "Templates are not allowed in the URL's query string; use http.query.",
    },
  },
  KV3011: {
    severity: "error",
    summary: "The URL has a #fragment.",
    example: "The URL must not have a #fragment.",
    messages: {
      fragment: "The URL must not have a #fragment.",
    },
  },
  KV3012: {
    severity: "error",
    summary: "A query parameter name is templated.",
    example: "Query parameter names cannot be templated.",
    messages: {
      templatedName: "Query parameter names cannot be templated.",
    },
  },
  KV3013: {
    severity: "error",
    summary: "A JSON body key is templated.",
    example: "JSON body keys cannot be templated.",
    messages: {
      templatedKey: "JSON body keys cannot be templated.",
    },
  },
  KV3014: {
    severity: "error",
    summary: "A header name is not a valid token.",
    example:
      '"X Api Key" is not a valid header name. A header name is letters, digits and !#$%&\'*+.^_`|~-, with no spaces or colons.',
    messages: {
      invalidName: (a: { name: string }) =>
        `${a.name} is not a valid header name. A header name is letters, digits and !#$%&'*+.^_\`|~-, with no spaces or colons.`,
      templatedName: (a: { name: string }) => `${a.name} is not a valid header name. Header names cannot be templated.`,
    },
  },
  KV3015: {
    severity: "error",
    summary: "The header is managed by the server and cannot be set.",
    example: 'The "Host" header is managed by the server and cannot be set.',
    messages: {
      managed: (a: { name: string }) => `The "${a.name}" header is managed by the server and cannot be set.`,
    },
  },
  KV3016: {
    severity: "error",
    summary: "A GET request cannot have a body.",
    example:
      "A GET request cannot have a body. The method is GET because http.method is not set; set it to POST, PUT, PATCH or DELETE.",
    messages: {
      bodyOnGet: "A GET request cannot have a body.",
      bodyOnDefaultGet:
        "A GET request cannot have a body. The method is GET because http.method is not set; set it to POST, PUT, PATCH or DELETE.",
    },
  },
  KV3018: {
    severity: "error",
    summary:
      "Literal text looks like a template but is not one ({input.q}, ${X}): it would be sent as written. A warning where the text could be meant: {name} in single braces where name is an input property, ${NAME} where NAME is no declared secret or input property.",
    example:
      "{input.q} is sent as written: single braces are not a template; a template has two braces. Did you mean {{input.q}}?",
    messages: {
      singleBraces: (a: { written: string; meant: string }) =>
        `${a.written} is sent as written: single braces are not a template. Did you mean ${a.meant}?`,
      dollarBraces: (a: { written: string; meant: string }) =>
        `${a.written} is sent as written: "\${...}" is shell and JavaScript syntax, not a template; a template has two braces. Did you mean ${a.meant}?`,
      singleBracesTwo: (a: { written: string; meant: string }) =>
        `${a.written} is sent as written: single braces are not a template; a template has two braces. Did you mean ${a.meant}?`,
    },
  },
  KV3017: {
    severity: "error",
    summary: "A '..' segment in the URL path removes a template.",
    example: 'The URL\'s path drops {{input.id}}: a ".." segment after it removes it. Write the path without "..".',
    messages: {
      dropped: (a: { ref: string }) =>
        `The URL's path drops ${a.ref}: a ".." segment after it removes it. Write the path without "..".`,
    },
  },
  KV3019: {
    severity: "error",
    summary: "The URL contains __kervan_template_, text kervanc reserves for the templates it places in a URL.",
    example:
      "The URL contains __kervan_template_, which kervanc uses to mark where each template goes while it reads the URL. Percent-encode a character of it (%5F for _) if the upstream really has it.",
    messages: {
      reserved:
        "The URL contains __kervan_template_, which kervanc uses to mark where each template goes while it reads the URL. Percent-encode a character of it (%5F for _) if the upstream really has it.",
    },
  },
  KV3020: {
    severity: "warning",
    summary:
      "An input is sent where only a string, number or boolean (or, as a whole query value, a list of them) can go, but its schema allows other values: a valid call would be refused when it runs. A warning in a spec Kervan can run (Kervan accepts it); in a spec that declares kervanc extensions, an error when the schema's type allows an object or a list there (a warning for a schema without a type).",
    example:
      "{{input.created}} is the whole value of a query parameter, which carries a string, number or boolean (or a list of them, one parameter each), but its schema allows an object: a call with one passes validation and is then refused. Give the property a scalar type, or send its properties as parameters of their own ({{input.x.name}}).",
    messages: {
      object: (a: { ref: string }) =>
        `${a.ref} is sent as text here, which carries a string, number or boolean only, but its schema allows an object: a call with one passes validation and is then refused. Give the property a scalar type, or send it in the body.`,
      list: (a: { ref: string }) =>
        `${a.ref} is sent as text here, which carries a string, number or boolean only, but its schema allows a list: a call with one passes validation and is then refused. Give the property a scalar type, or make it the whole value of a query parameter (a list repeats the parameter).`,
      anyValue: (a: { ref: string }) =>
        `${a.ref} is sent as text here, which carries a string, number or boolean only, but its schema has no type and allows objects and lists: a call with one passes validation and is then refused. Give the property a scalar type.`,
      queryObject: (a: { ref: string }) =>
        `${a.ref} is the whole value of a query parameter, which carries a string, number or boolean (or a list of them, one parameter each), but its schema allows an object: a call with one passes validation and is then refused. Give the property a scalar type, or send its properties as parameters of their own ({{input.x.name}}).`,
      queryAnyValue: (a: { ref: string }) =>
        `${a.ref} is the whole value of a query parameter, which carries a string, number or boolean (or a list of them, one parameter each), but its schema has no type and allows objects: a call with one passes validation and is then refused. Give the property a scalar type.`,
      queryItems: (a: { ref: string }) =>
        `${a.ref} is the whole value of a query parameter, which repeats the parameter for each item of a list, but its schema allows items that are objects, lists or null: a call with one passes validation and is then refused. Give the items a scalar type.`,
    },
  },

  KV4001: {
    severity: "error",
    summary: "A secret is declared twice.",
    example: "Secret API_KEY is declared twice.",
    messages: {
      declaredTwice: (a: { name: string }) => `Secret ${a.name} is declared twice.`,
    },
  },
  KV4002: {
    severity: "warning",
    summary: "A declared secret is never used.",
    example: "Secret API_KEY is declared but never used.",
    messages: {
      unused: (a: { name: string }) => `Secret ${a.name} is declared but never used.`,
    },
  },
  KV4003: {
    severity: "error",
    summary: "A secret's host binding is not a host name.",
    example: '"api.example.com:65536" is not a host name.',
    messages: {
      notHost: (a: { host: string }) => `${a.host} is not a host name.`,
    },
  },
  KV4004: {
    severity: "error",
    summary: "A tool sends a host-bound secret to another host.",
    example: "Secret API_KEY may only be sent to api.example.com:443; this tool calls evil.example.net:443.",
    messages: {
      otherHost: (a: { name: string; hosts: string; host: string }) =>
        `Secret ${a.name} may only be sent to ${a.hosts}; this tool calls ${a.host}.`,
    },
  },
  KV4005: {
    severity: "error",
    summary: "A tool that sends secrets uses plain http.",
    example: "This tool sends secrets, so its URL must use https: secrets are never sent over plain http.",
    messages: {
      secretsOverHttp: "This tool sends secrets, so its URL must use https: secrets are never sent over plain http.",
    },
  },

  KV4006: {
    severity: "error",
    summary: "A secret is named like a variable the server reads as its own setting.",
    example:
      "Secret KERVANC_AUTH_TOKENS is named like one of the server's own settings (KERVANC_*): the server reads that variable for itself, and the secret would send its value (for example its clients' bearer tokens or the egress proxy's credentials) to the secret's hosts. Give the secret another name.",
    messages: {
      serverSetting: (a: { name: string }) =>
        `Secret ${a.name} is named like one of the server's own settings (KERVANC_*): the server reads that variable for itself, and the secret would send its value (for example its clients' bearer tokens or the egress proxy's credentials) to the secret's hosts. Give the secret another name.`,
      proxySetting: (a: { name: string }) =>
        `Secret ${a.name} is named like an egress proxy setting: the server reads that variable for itself, and the secret would send its value (for example its clients' bearer tokens or the egress proxy's credentials) to the secret's hosts. Give the secret another name.`,
      nodeSetting: (a: { name: string }) =>
        `Secret ${a.name} is named like one of Node.js's settings (NODE_*): the server reads that variable for itself, and the secret would send its value (for example its clients' bearer tokens or the egress proxy's credentials) to the secret's hosts. Give the secret another name.`,
    },
  },

  KV5001: {
    severity: "error",
    summary: "The schema is larger than 64 KiB.",
    example: "The schema is larger than 65536 bytes (it has 83756).",
    messages: {
      tooLarge: (a: { max: number; size: number }) => `The schema is larger than ${a.max} bytes (it has ${a.size}).`,
    },
  },
  KV5002: {
    severity: "error",
    summary: "The schema is not plain JSON (unreachable from YAML since cycles are refused at load, KV1012).",
    example: "The schema is not plain JSON.",
    messages: {
      notPlain: "The schema is not plain JSON.",
    },
  },
  KV5003: {
    severity: "error",
    summary: "The schema is nested deeper than 32 levels.",
    example:
      "The schema is nested deeper than 32 levels (at #/properties/deep/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties/next/properties).",
    messages: {
      tooDeep: (a: { max: number; at: string }) => `The schema is nested deeper than ${a.max} levels (at ${a.at}).`,
    },
  },
  KV5004: {
    severity: "error",
    summary: "The schema has more than 2,000 nodes.",
    example: "The schema has more than 2000 nodes.",
    messages: {
      tooManyNodes: (a: { max: number }) => `The schema has more than ${a.max} nodes.`,
    },
  },
  KV5005: {
    severity: "error",
    summary: "The schema uses more than 64 anyOf/oneOf/allOf keywords.",
    example: "The schema uses more than 64 anyOf/oneOf/allOf keywords (it uses 65).",
    messages: {
      tooManyCombinators: (a: { max: number; count: number }) =>
        `The schema uses more than ${a.max} anyOf/oneOf/allOf keywords (it uses ${a.count}).`,
    },
  },
  KV5006: {
    severity: "error",
    summary: "Only same-document $ref values (#/...) are allowed.",
    example: 'Only local $ref values ("#/...") are allowed (at #/properties/id/$ref).',
    messages: {
      remoteRef: (a: { at: string }) => `Only local $ref values ("#/...") are allowed (at ${a.at}).`,
    },
  },
  KV5007: {
    severity: "error",
    summary: "The keyword is not allowed ($id, dynamic and recursive references, $async).",
    example: '"$id" is not allowed (at #/$id).',
    messages: {
      async: (a: { at: string }) => `"$async" is not allowed (at ${a.at}): arguments are validated synchronously.`,
      refused: (a: { key: string; at: string }) => `"${a.key}" is not allowed (at ${a.at}).`,
    },
  },
  KV5008: {
    severity: "error",
    summary: "Only the JSON Schema 2020-12 dialect is supported.",
    example:
      "Only the 2020-12 dialect is supported ($schema: https://json-schema.org/draft/2020-12/schema) (at #/$schema).",
    messages: {
      dialect: (a: { dialect: string; at: string }) =>
        `Only the 2020-12 dialect is supported ($schema: ${a.dialect}) (at ${a.at}).`,
    },
  },
  KV5009: {
    severity: "error",
    summary: "A pattern is longer than 512 characters.",
    example:
      "A pattern is longer than 512 characters (at #/patternProperties/^(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)(x|y)$).",
    messages: {
      longPattern: (a: { max: number; at: string }) => `A pattern is longer than ${a.max} characters (at ${a.at}).`,
    },
  },
  KV5010: {
    severity: "error",
    summary: "The input schema must have type: object.",
    example: 'The input schema must have type: "object" (tool arguments are always an object). It has type: "array".',
    messages: {
      inputTypeNotObject: (a: { type: string }) =>
        `The input schema must have type: "object" (tool arguments are always an object). It has type: ${a.type}.`,
      inputWithoutType:
        'The input schema must have type: "object" (tool arguments are always an object). It has no type.',
    },
  },
  KV5011: {
    severity: "error",
    summary: "An unknown keyword that misspells a validation keyword (it would check nothing).",
    example:
      'Unknown keyword "minimun" (at #/properties/id/minimun): did you mean "minimum"? As written it checks nothing.',
    messages: {
      notKeyword: (a: { key: string; at: string; replaced: string }) =>
        `"${a.key}" is not a JSON Schema 2020-12 keyword, so it would check nothing (at ${a.at}). ${a.replaced}`,
      misspelled: (a: { key: string; at: string; meant: string }) =>
        `Unknown keyword "${a.key}" (at ${a.at}): did you mean "${a.meant}"? As written it checks nothing.`,
    },
  },
  KV5012: {
    severity: "warning",
    summary: "Unknown string format: it is not checked.",
    example:
      'Unknown format "datetime" is not checked: any string passes (at #/properties/when/format). Did you mean "date-time"? Known formats: binary, byte, date, date-time, double, duration, email, float, hostname, int32, int64, ipv4, ipv6, iso-date-time, iso-time, json-pointer, json-pointer-uri-fragment, password, regex, relative-json-pointer, time, uri, uri-reference, uri-template, url, uuid.',
    messages: {
      unknownFormat: (a: { format: string; at: string; known: string }) =>
        `Unknown format "${a.format}" is not checked: any string passes (at ${a.at}). Known formats: ${a.known}.`,
      unknownFormatMeant: (a: { format: string; at: string; meant: string; known: string }) =>
        `Unknown format "${a.format}" is not checked: any string passes (at ${a.at}). Did you mean "${a.meant}"? Known formats: ${a.known}.`,
    },
  },
  KV5013: {
    severity: "warning",
    summary: "A schema construct that has no effect or is likely a mistake (Ajv strict mode).",
    example: 'Required property "name" is not defined (at #).',
    messages: {
      strict: (a: { text: string; at: string }) => `${a.text} (at ${a.at}).`,
    },
  },
  KV5014: {
    severity: "error",
    summary: "The schema is not a valid JSON Schema 2020-12 document.",
    example:
      'The schema is not valid JSON Schema 2020-12: #/properties/id/type must be equal to one of the allowed values ("array", "boolean", "integer", "null", "number", "object", "string").',
    messages: {
      invalid: (a: { reason: string }) => `The schema is not valid JSON Schema 2020-12: ${a.reason}.`,
      invalidAt: (a: { at: string; reason: string; detail: string }) =>
        `The schema is not valid JSON Schema 2020-12: ${a.at} ${a.reason}${a.detail}.`,
    },
  },
  KV5015: {
    severity: "error",
    summary: "The schema cannot be compiled (an invalid regular expression, a $ref to nothing).",
    example: '"[A-Z" is not a valid regular expression (at #/properties/code/pattern): Unterminated character class.',
    messages: {
      badPattern: (a: { pattern: string; at: string; problem: string }) =>
        `${a.pattern} is not a valid regular expression (at ${a.at}): ${a.problem}.`,
      danglingRef: (a: { ref: string; at: string }) => `$ref ${a.ref} points at nothing in this schema (at ${a.at}).`,
      cannotCompile: (a: { reason: string }) => `The schema cannot be compiled: ${a.reason}`,
    },
  },
  KV5016: {
    severity: "warning",
    summary: "Unknown keyword: published as an annotation, checks nothing.",
    example:
      'Unknown keyword "example" is ignored: it is published in the schema but checks nothing (at #/properties/id/example). Did you mean "examples"?',
    messages: {
      ignored: (a: { key: string; at: string }) =>
        `Unknown keyword "${a.key}" is ignored: it is published in the schema but checks nothing (at ${a.at}).`,
      ignoredMeant: (a: { key: string; at: string; meant: string }) =>
        `Unknown keyword "${a.key}" is ignored: it is published in the schema but checks nothing (at ${a.at}). Did you mean "${a.meant}"?`,
    },
  },
  KV5017: {
    severity: "error",
    summary:
      'A schema names "__proto__" in properties or patternProperties: Ajv skips that name, so nothing checks it.',
    example:
      '"__proto__" in properties would never be checked: Ajv, which writes the validators, skips that name (at #/properties/__proto__). Rename the property.',
    messages: {
      protoProperty: (a: { at: string }) =>
        `"__proto__" in properties would never be checked: Ajv, which writes the validators, skips that name (at ${a.at}). Rename the property.`,
      protoPattern: (a: { at: string }) =>
        `"__proto__" in patternProperties would never be checked: Ajv, which writes the validators, skips that name (at ${a.at}). Rename the pattern.`,
    },
  },
  KV5018: {
    severity: "warning",
    summary: "A property name or enum value contains an invisible or control character.",
    example:
      "An enum value contains an invisible or control character (U+202E): people reading the spec would not see what the model reads. Remove it. (at #/properties/kind/enum/0)",
    messages: {
      // KV2010's problem: names and enum values are not refused, as a title is.
      propertyName: (a: { code: string; at: string }) =>
        `A property name contains an invisible or control character (U+${a.code}): people reading the spec would not see what the model reads. Remove it. (at ${a.at})`,
      enumValue: (a: { code: string; at: string }) =>
        `An enum value contains an invisible or control character (U+${a.code}): people reading the spec would not see what the model reads. Remove it. (at ${a.at})`,
      constValue: (a: { code: string; at: string }) =>
        `The const value contains an invisible or control character (U+${a.code}): people reading the spec would not see what the model reads. Remove it. (at ${a.at})`,
    },
  },
  KV5019: {
    severity: "warning",
    summary:
      "A pattern (or a format's regular expression) can take super-linear time on a crafted string, and the server runs it on every argument.",
    example:
      'The pattern "^(\\\\w+\\\\s?)*$" can take exponential time: "(\\\\w+\\\\s?)*" can match a run of "A" in exponentially many ways, so a string of a few dozen of them that the pattern then rejects keeps the server busy for minutes, and it runs on the thread that serves every call (at #/properties/words/pattern). Rewrite it so that no repeated part can match the same characters in more than one way.',
    messages: {
      // Sentences, joined by sentences(): what the pattern (or a format's check) costs, then how to fix it.
      patternExponential: (a: { pattern: string; at: string; parts: string; character: string }) =>
        `The pattern ${a.pattern} can take exponential time: ${a.parts} can match a run of ${a.character} in exponentially many ways, so a string of a few dozen of them that the pattern then rejects keeps the server busy for minutes, and it runs on the thread that serves every call (at ${a.at}).`,
      patternPolynomial: (a: { pattern: string; at: string; parts: string; character: string }) =>
        `The pattern ${a.pattern} takes time that grows with the square of a string's length or faster: ${a.parts} can share a run of ${a.character} in many ways, so a string of some thousands of them that it then rejects keeps the server busy for seconds (at ${a.at}).`,
      patternMoving: (a: { pattern: string; at: string; parts: string; character: string }) =>
        `The pattern ${a.pattern} takes time that grows with the square of a string's length: it is tried from every position of a string it does not match, and ${a.parts} runs over the rest of a run of ${a.character} each time, so a string of some thousands of them keeps the server busy for seconds (at ${a.at}).`,
      patternUnchecked: (a: { pattern: string; at: string; reason: string }) =>
        `The pattern ${a.pattern} was not checked for slow backtracking: ${a.reason} (at ${a.at}). Patterns that take this long to analyse usually also backtrack.`,
      formatExponential: (a: { format: string; at: string; parts: string; character: string }) =>
        `The ${a.format} format's check can take exponential time: ${a.parts} can match a run of ${a.character} in exponentially many ways, so a string of a few dozen of them that the pattern then rejects keeps the server busy for minutes, and it runs on the thread that serves every call (at ${a.at}).`,
      formatPolynomial: (a: { format: string; at: string; parts: string; character: string }) =>
        `The ${a.format} format's check takes time that grows with the square of a string's length or faster: ${a.parts} can share a run of ${a.character} in many ways, so a string of some thousands of them that it then rejects keeps the server busy for seconds (at ${a.at}).`,
      formatMoving: (a: { format: string; at: string; parts: string; character: string }) =>
        `The ${a.format} format's check takes time that grows with the square of a string's length: it is tried from every position of a string it does not match, and ${a.parts} runs over the rest of a run of ${a.character} each time, so a string of some thousands of them keeps the server busy for seconds (at ${a.at}).`,
      formatUnchecked: (a: { format: string; at: string; reason: string }) =>
        `The ${a.format} format's check was not checked for slow backtracking: ${a.reason} (at ${a.at}). Patterns that take this long to analyse usually also backtrack.`,
      rewriteAnchor: 'Start it with "^" if it is meant to match from the start of the string.',
      rewriteAs: (a: { fix: string }) => `${a.fix} matches the same strings without it.`,
      rewrite: "Rewrite it so that no repeated part can match the same characters in more than one way.",
      uriInstead: 'The "uri" format accepts the same kind of string and is checked without it.',
      addMaxLength: "Or give the string a maxLength: the validator does not run the check on longer strings.",
      maxLengthBounds: (a: { maxLength: number }) => `Its maxLength of ${a.maxLength} bounds the strings it runs on.`,
    },
  },

  KV6001: {
    severity: "error",
    summary: "output.select is not a valid JMESPath expression.",
    example:
      'select is not a valid JMESPath expression: Syntax error: invalid token (Rbracket): "]" (at character 16).',
    messages: {
      invalid: (a: { reason: string; character: number }) =>
        `select is not a valid JMESPath expression: ${a.reason} (at character ${a.character}).`,
    },
  },
  KV6002: {
    severity: "error",
    summary: "output.select calls an unknown function.",
    example: "select calls an unknown function lenght(). Did you mean length()?",
    messages: {
      unknownFunction: (a: { name: string }) => `select calls an unknown function ${a.name}().`,
      unknownFunctionMeant: (a: { name: string; meant: string }) =>
        `select calls an unknown function ${a.name}(). Did you mean ${a.meant}?`,
    },
  },
  KV6003: {
    severity: "error",
    summary: "output.select calls a function with the wrong number of arguments.",
    example: "join() takes 2 arguments, got 1.",
    messages: {
      arity: (a: { name: string; expected: string; arguments: string; got: number }) =>
        `${a.name}() takes ${a.expected} ${a.arguments}, got ${a.got}.`,
    },
  },
  KV6004: {
    severity: "error",
    summary: "output.select passes a value where a function needs an &expression (or the reverse).",
    example: "sort_by() needs an &expression as argument 2 (for example &name), not a value.",
    messages: {
      needsExpression: (a: { name: string; position: number }) =>
        `${a.name}() needs an &expression as argument ${a.position} (for example &name), not a value.`,
      needsValue: (a: { name: string; position: number }) =>
        `${a.name}() takes a value as argument ${a.position}, not an &expression.`,
    },
  },
  KV6005: {
    severity: "error",
    summary: "output.select names a field that is refused (__proto__, constructor, prototype).",
    example: 'select reads the field "__proto__", which is refused: it names JavaScript object internals, not data.',
    messages: {
      readsInternals: (a: { field: string }) =>
        `select reads the field "${a.field}", which is refused: it names JavaScript object internals, not data.`,
      buildsInternals: (a: { field: string }) =>
        `select builds the key "${a.field}", which is refused: it names JavaScript object internals, not data.`,
    },
  },
  KV6006: {
    severity: "error",
    summary: "output.select pads to a width that is not a literal within the bound.",
    example: "pad_left() pads to a width that must be a literal whole number from 0 to 10000 (for example `10`).",
    messages: {
      padWidth: (a: { name: string; max: number }) =>
        `${a.name}() pads to a width that must be a literal whole number from 0 to ${a.max} (for example \`10\`).`,
    },
  },
  KV6007: {
    severity: "error",
    summary:
      "output.select passes a function an argument whose type, known without the data, the function does not accept.",
    example:
      "length() takes an object, an array or string as argument 1, but it is given number; every call would fail.",
    messages: {
      argumentType: (a: { name: string; accepted: string; position: number; given: string }) =>
        `${a.name}() takes ${a.accepted} as argument ${a.position}, but it is given ${a.given}; every call would fail.`,
    },
  },
  KV6008: {
    severity: "error",
    summary:
      "output.select always returns a type that the output schema's root type refuses (an array for an object schema): every call would fail.",
    example:
      'select always returns an array, and the output schema has type "object": every call would fail with "data must be object". Wrap the result in a hash, such as {items: items[*].name}, or change the schema\'s type.',
    messages: {
      neverFits: (a: { returns: string; schemaType: string; first: string }) =>
        `select always returns ${a.returns}, and the output schema has ${a.schemaType}: every call would fail with "data must be ${a.first}". Change the expression or the schema's type.`,
      neverFitsObject: (a: { returns: string; schemaType: string; first: string }) =>
        `select always returns ${a.returns}, and the output schema has ${a.schemaType}: every call would fail with "data must be ${a.first}". Wrap the result in a hash, such as {items: items[*].name}, or change the schema's type.`,
    },
  },
  KV6009: {
    severity: "warning",
    summary: "output.select returns, for some answers, a type that the output schema's root type refuses.",
    example:
      'select returns number or null, and the output schema has type "number": calls fail whenever it returns null.',
    messages: {
      sometimesFits: (a: { returns: string; schemaType: string; others: string }) =>
        `select returns ${a.returns}, and the output schema has ${a.schemaType}: calls fail whenever it returns ${a.others}.`,
    },
  },
  KV6010: {
    severity: "error",
    summary: "output.select nests deeper than 64 levels.",
    example:
      "select nests 65 levels deep; at most 64 are allowed (each operator, `.`, bracket, function call and hash key adds one).",
    messages: {
      tooDeep: (a: { depth: number; max: number }) =>
        `select nests ${a.depth} levels deep; at most ${a.max} are allowed (each operator, \`.\`, bracket, function call and hash key adds one).`,
    },
  },

  KV9001: {
    severity: "error",
    summary: "No spec files were found.",
    example: "No spec files (*.yaml, *.yml) in specs.",
    messages: {
      noSpecs: "No spec files were given.",
      noSpecFiles: (a: { input: string }) => `No spec files (*.yaml, *.yml) in ${a.input}.`,
      noSpecTests: (a: { input: string }) => `No spec tests (*.test.yaml, *.test.yml) in ${a.input}.`,
      noTestFile: (a: { stem: string }) =>
        `This spec has no tests: write ${a.stem}.test.yaml next to it (kervanc call --record can start one).`,
    },
  },
  KV9002: {
    severity: "error",
    summary: "An input path does not exist or cannot be read.",
    example: "specs/missing.yaml does not exist.",
    messages: {
      missing: (a: { path: string }) => `${a.path} does not exist.`,
      unreadable: (a: { path: string; code: string }) => `${a.path} cannot be read (${a.code}).`,
    },
  },
  KV9003: {
    severity: "error",
    summary: "Two specs would be written to the same output folder.",
    example: "specs/a.yaml and specs/a.yml would both be written to dist/a; rename one.",
    messages: {
      sameFolder: (a: { file: string; other: string; folder: string }) =>
        `${a.file} and ${a.other} would both be written to ${a.folder}; rename one.`,
    },
  },
  KV9004: {
    severity: "error",
    summary: "The output cannot be written: the path and the system's reason are named, and nothing more is written.",
    example: "",
    messages: {
      outside: (a: { reason: string }) => `${a.reason} Nothing more was written.`,
      cannotWrite: (a: { where: string; code: string }) =>
        `Cannot write ${a.where} (${a.code}); nothing more was written.`,
    },
  },
  KV9005: {
    severity: "error",
    summary:
      "A file has more than 200 problems; the rest are counted, not shown (a warning if none of them is an error).",
    example: "59806 more problems in this file (59806 errors) are not shown; fix the ones above first.",
    messages: {
      more: (a: { count: number; errors: number }) =>
        `${a.count} more problems in this file (${a.errors} errors) are not shown; fix the ones above first.`,
    },
  },
  KV9006: {
    severity: "warning",
    summary: "A server's tools/list is larger than the budget (--tools-budget, default 8000 tokens).",
    example:
      "The tools/list of this server has 41230 characters (about 10308 tokens), more than the budget of 8000 tokens. Leave out tools, or shorten descriptions and schemas.",
    messages: {
      overBudget: (a: { characters: number; tokens: number; budget: number }) =>
        `The tools/list of this server has ${a.characters} characters (about ${a.tokens} tokens), more than the budget of ${a.budget} tokens. Leave out tools, or shorten descriptions and schemas.`,
    },
  },
  KV9007: {
    severity: "error",
    summary:
      "A spec's file name cannot name its package folder: `.`, `..`, empty, a separator, a control character, a leading dot, a trailing dot or space, a character Windows refuses, or a Windows device name (CON, NUL, COM1, ...).",
    example:
      'This spec\'s package folder would be "..", which names the folder above the output folder; rename the spec file.',
    messages: {
      badFolderName: (a: { folder: string; problem: string }) =>
        `This spec's package folder would be ${a.folder}, which ${a.problem}; rename the spec file.`,
    },
  },
  KV9008: {
    severity: "error",
    summary:
      "A package's place in the output folder holds something kervanc did not build (a file, a symbolic link, a folder without a kervanc manifest.json); nothing is written.",
    example:
      "dist/src is a folder kervanc did not build (it has no manifest.json); build replaces only packages it made. Move it away, or choose another -o.",
    messages: {
      refused: (a: { path: string; reason: string }) =>
        `${a.path} ${a.reason}; build replaces only packages it made. Move it away, or choose another -o.`,
    },
  },
  KV9009: {
    severity: "error",
    summary:
      "A spec path is not a regular file: a dangling symbolic link, a link to a folder, a named pipe, a socket or a device.",
    example: "specs/live.yaml is a named pipe (fifo), not a spec file; kervanc reads only regular files.",
    messages: {
      notRegularFile: (a: { file: string; what: string }) =>
        `${a.file} is ${a.what}, not a spec file; kervanc reads only regular files.`,
      brokenLink: (a: { file: string }) => `${a.file} is a symbolic link to a file that does not exist.`,
      unfollowableLink: (a: { file: string; code: string }) =>
        `${a.file} is a symbolic link that cannot be followed (${a.code}).`,
    },
  },
  KV9011: {
    severity: "error",
    summary:
      "A spec in a folder being built is a symbolic link to a file outside that folder: it is not read unless --follow-links-outside is given.",
    example:
      "specs/weather.yaml is a symbolic link to a file outside specs; kervanc does not read it, since a link added in a pull request can point at any file the build can read (credentials, .git/config). Move the spec into the folder, or pass --follow-links-outside.",
    messages: {
      linkOutside: (a: { file: string; folder: string }) =>
        `${a.file} is a symbolic link to a file outside ${a.folder}; kervanc does not read it, since a link added in a pull request can point at any file the build can read (credentials, .git/config). Move the spec into the folder, or pass --follow-links-outside.`,
    },
  },
  KV9010: {
    severity: "error",
    summary:
      "A spec-test file (<name>.test.yaml) has a problem beyond its structure: a case names a tool the spec does not have, its arguments are not an object, its expectation is empty or contradicts itself, or a response header could not be sent in HTTP.",
    example: 'This case calls "get_forcast", which the spec does not have. Did you mean "get_forecast"?',
    messages: {
      noSpec: (a: { candidates: string }) => `No spec next to this test file: expected ${a.candidates}.`,
      unknownTool: (a: { tool: string }) => `This case calls "${a.tool}", which the spec does not have.`,
      unknownToolMeant: (a: { tool: string; meant: string }) =>
        `This case calls "${a.tool}", which the spec does not have. Did you mean "${a.meant}"?`,
      argumentsNotObject: "A tool's arguments are an object.",
      noExpectation: "Say what the result must be: text, structured, or error.",
      errorAndSuccess: "A result is either an error or a success: give error alone, or text and/or structured.",
      queryShape: "The query is a mapping from each parameter's name to its value (text), or to a list of values.",
      headerName: (a: { name: string }) =>
        `"${a.name}" cannot be an HTTP header name: use letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only.`,
      headerValue: (a: { name: string }) =>
        `The value of header "${a.name}" cannot be sent in HTTP: no line breaks, no control characters, no characters past U+00FF.`,
      notRegularFile: (a: { file: string; what: string }) => `${a.file} is ${a.what}, not a test file.`,
      unreadable: (a: { code: string }) => `The test file cannot be read (${a.code}).`,
    },
  },

  // KV8xxx: kervanc's extensions to the spec format (docs/extensions/).
  KV8001: {
    severity: "info",
    summary:
      "The spec uses a kervanc extension: it builds with kervanc, but is no longer portable to Kervan (an error under build --strict-kervan).",
    example:
      "This spec uses the kervanc extension upstream-auth (docs/extensions/upstream-auth.md), so it is no longer portable to Kervan; kervanc build --strict-kervan refuses it.",
    messages: {
      uses: (a: { name: string }) =>
        `This spec uses the kervanc extension ${a.name} (docs/extensions/${a.name}.md), so it is no longer portable to Kervan; kervanc build --strict-kervan refuses it.`,
    },
  },
  KV8002: {
    severity: "error",
    summary: "A kervanc extension is used without being declared in kervancExtensions, or used wrongly.",
    example:
      "credentials is the kervanc extension upstream-auth; declare it with kervancExtensions: [upstream-auth] at the top of the spec (Kervan cannot run such a spec).",
    messages: {
      formUndeclared:
        "bodyEncoding: form is the kervanc extension form-body; declare it with kervancExtensions: [form-body] at the top of the spec (Kervan cannot run such a spec).",
      formWithoutBody: "bodyEncoding: form needs a body to encode.",
      errorDetailUndeclared:
        "output.error is the kervanc extension error-detail; declare it with kervancExtensions: [error-detail] at the top of the spec (Kervan cannot run such a spec).",
      retryUndeclared:
        "retry is the kervanc extension retry; declare it with kervancExtensions: [retry] at the top of the spec (Kervan cannot run such a spec).",
      tagsUndeclared:
        "tags is the kervanc extension toolsets; declare it with kervancExtensions: [toolsets] at the top of the spec (Kervan cannot run such a spec).",
      multipartUndeclared:
        "bodyEncoding: multipart is the kervanc extension multipart-body; declare it with kervancExtensions: [multipart-body] at the top of the spec (Kervan cannot run such a spec).",
      omitAbsentUndeclared:
        "omitAbsent is the kervanc extension omit-absent; declare it with kervancExtensions: [omit-absent] at the top of the spec (Kervan cannot run such a spec).",
      binaryUndeclared:
        "output.binary is the kervanc extension binary-output; declare it with kervancExtensions: [binary-output] at the top of the spec (Kervan cannot run such a spec).",
      viewUndeclared:
        "output.view is the kervanc extension views; declare it with kervancExtensions: [views] at the top of the spec (Kervan cannot run such a spec).",
      credentialsUndeclared:
        "credentials is the kervanc extension upstream-auth; declare it with kervancExtensions: [upstream-auth] at the top of the spec (Kervan cannot run such a spec).",
      credentialRefUndeclared: (a: { ref: string }) =>
        `${a.ref} is the kervanc extension upstream-auth; declare it with kervancExtensions: [upstream-auth] and the credential under credentials (Kervan cannot run such a spec).`,
    },
  },
  // KV8020 to KV8029: the binary-output extension (docs/extensions/binary-output.md).
  KV8020: {
    severity: "error",
    summary: "A tool that may answer with binary content declares an output schema.",
    example:
      "output.binary and output.schema cannot go together: a binary answer has no structured content, and clients refuse a result without the structured content its tool declares. Drop the schema, or make a separate tool for the binary answer.",
    messages: {
      withSchema:
        "output.binary and output.schema cannot go together: a binary answer has no structured content, and clients refuse a result without the structured content its tool declares. Drop the schema, or make a separate tool for the binary answer.",
    },
  },
  KV8021: {
    severity: "error",
    summary: "A multipart body is not an object of text and file fields a part header can carry.",
    example:
      'The multipart field "file" is a file or JSON: write { content: "{{input.x}}", encoding: base64 } with optional filename and contentType, or { json: "{{input.x}}" }, and nothing else.',
    messages: {
      notObject: "bodyEncoding: multipart needs a body that is an object of fields.",
      contentType:
        "A multipart body's Content-Type is written by the server (it carries the boundary); remove this header.",
      fieldName: (a: { name: string }) =>
        `${a.name} cannot be a multipart field name: printable ASCII without quotes or backslashes.`,
      nested: (a: { name: string }) => `The multipart field "${a.name}" holds a list inside a list.`,
      fileShape: (a: { name: string }) =>
        `The multipart field "${a.name}" is a file or JSON: write { content: "{{input.x}}", encoding: base64 } with optional filename and contentType, or { json: "{{input.x}}" }, and nothing else.`,
      encoding: (a: { name: string }) =>
        `The file field "${a.name}" needs encoding: base64: a model sends a file's bytes as base64 text in its arguments.`,
      uploadWithoutMultipart: "maxUploadBytes applies to bodyEncoding: multipart only.",
    },
  },
  // KV8030 to KV8039: the views extension (docs/extensions/views.md).
  KV8030: {
    severity: "error",
    summary: "A tool's view cannot be drawn from its output: it needs an output schema of the shape the view shows.",
    example:
      "view: table needs an output schema that is a list of objects with properties (type: array, items: { type: object, properties: ... }); use view: card for one object.",
    messages: {
      noSchema:
        "A view is drawn from the output schema: add output.schema (the view shows the structured result), or remove view.",
      tableNotList:
        "view: table needs an output schema that is a list of objects with properties (type: array, items: { type: object, properties: ... }); use view: card for one object.",
      cardNotObject:
        "view: card needs an output schema that is an object with properties (type: object, properties: ...); use view: table for a list of objects.",
      autoNeither:
        "view: auto found neither a list of objects (a table) nor an object with properties (a card) in the output schema; describe the result's properties, or remove view.",
    },
  },
  // KV8010 to KV8019: the upstream-auth extension (docs/extensions/upstream-auth.md).
  KV8010: {
    severity: "error",
    summary: "A credential is not written as one of its kinds, or its name is not one a template can use.",
    example: "A credential is exactly one of oauth2ClientCredentials, tokenExchange, callerHeader.",
    messages: {
      oneKind: (a: { kinds: string }) => `A credential is exactly one of ${a.kinds}.`,
      name: (a: { name: string }) =>
        `${a.name} is not a credential name: a letter or _, then letters, digits or _ (at most 64), as {{credentials.<name>}} names it.`,
      tooMany: (a: { max: number }) => `A spec declares at most ${a.max} credentials.`,
    },
  },
  KV8011: {
    severity: "error",
    summary: "A template names a credential that is not declared, or uses one where it may not go.",
    example: "{{credentials.accounts}} is not declared under credentials. Declared: crm_user.",
    messages: {
      undeclared: (a: { ref: string }) => `${a.ref} is not declared under credentials.`,
      undeclaredMeant: (a: { ref: string; meant: string }) =>
        `${a.ref} is not declared under credentials. Did you mean ${a.meant}?`,
      undeclaredDeclared: (a: { ref: string; declared: string }) =>
        `${a.ref} is not declared under credentials. Declared: ${a.declared}.`,
      inPath: (a: { ref: string }) =>
        `${a.ref} cannot be part of the URL: a token in a path is written to every access log on its way. Send it in a header (Authorization: "Bearer ${a.ref}") or, if the API asks for it, in the query.`,
    },
  },
  KV8012: {
    severity: "error",
    summary: "A token endpoint URL is not an absolute https:// URL without credentials or fragment.",
    example: "The token endpoint must be an https:// URL: it receives the client secret.",
    messages: {
      notUrl: "The token endpoint is not an absolute URL.",
      https: "The token endpoint must be an https:// URL: it receives the client secret.",
      userinfo: "The token endpoint's URL must not hold a user name or password; use clientId and clientSecret.",
      fragment: "The token endpoint's URL must not have a #fragment.",
      templated: "The token endpoint's URL is literal: it cannot hold templates.",
      resource: "resource must be an absolute URI without a #fragment (RFC 8707).",
    },
  },
  KV8013: {
    severity: "error",
    summary: "A credential's client id or secret is not literal text and declared secrets, or the secret is literal.",
    example:
      "clientSecret must be a declared secret ({{secrets.X}}): a literal secret would be committed with the spec.",
    messages: {
      literalSecret:
        "clientSecret must be a declared secret ({{secrets.X}}): a literal secret would be committed with the spec.",
      onlySecrets: (a: { ref: string }) =>
        `${a.ref} cannot be used here: a client id or secret holds literal text and {{secrets.X}} only (the server signs in as itself, whatever the arguments).`,
      undeclared: (a: { ref: string }) => `${a.ref} is not declared under secrets.`,
      undeclaredMeant: (a: { ref: string; meant: string }) =>
        `${a.ref} is not declared under secrets. Did you mean ${a.meant}?`,
      otherHost: (a: { name: string; hosts: string; host: string }) =>
        `Secret ${a.name} may only be sent to ${a.hosts}, but this token endpoint is ${a.host}.`,
    },
  },
  KV8014: {
    severity: "error",
    summary: "A callerHeader names a header that must never be forwarded, or is not a header name.",
    example:
      "callerHeader Authorization is refused: the MCP client's own credentials (Authorization, Cookie) must never reach an upstream (the MCP authorization specification forbids passing the client's token through). Choose a header of its own, such as X-Crm-Key.",
    messages: {
      clientCredentials: (a: { name: string }) =>
        `callerHeader ${a.name} is refused: the MCP client's own credentials (Authorization, Cookie) must never reach an upstream (the MCP authorization specification forbids passing the client's token through). Choose a header of its own, such as X-Crm-Key.`,
      proxyHeader: (a: { name: string }) =>
        `callerHeader ${a.name} is refused: Proxy-* headers belong to the connection to a proxy, not to the client.`,
      mcpHeader: (a: { name: string }) =>
        `callerHeader ${a.name} is refused: Mcp-* headers belong to the MCP protocol.`,
      requestHeader: (a: { name: string }) =>
        `callerHeader ${a.name} is refused: it describes the request or its connection (or its route through proxies), not a credential; the client cannot be trusted to set it for the upstream.`,
      invalid: (a: { name: string }) =>
        `${a.name} is not a header name: letters, digits and !#$%&'*+.^_\`|~-, with no spaces or colons.`,
    },
  },
  KV8015: {
    severity: "warning",
    summary: "A tool sends a credential to a host other than the one the credential is for.",
    example:
      "Credential crm is for api.example.com (its audience), but this tool sends it to other.example.com; a token for one API is not meant for another.",
    messages: {
      otherHost: (a: { name: string; meant: string; what: string; host: string }) =>
        `Credential ${a.name} is for ${a.meant} (its ${a.what}), but this tool sends it to ${a.host}; a token for one API is not meant for another.`,
    },
  },
  KV8016: {
    severity: "warning",
    summary: "A declared credential is never used.",
    example: "Credential spare is declared but no tool uses it; remove it, or send it with {{credentials.spare}}.",
    messages: {
      unused: (a: { name: string }) =>
        `Credential ${a.name} is declared but no tool uses it; remove it, or send it with {{credentials.${a.name}}}.`,
    },
  },

  // KV7xxx: kervanc import, from an OpenAPI document to a spec. Positions are in the OpenAPI document.
  KV7001: {
    severity: "error",
    summary: "The OpenAPI document cannot be read.",
    example: "The OpenAPI document is larger than 33554432 bytes (it has 40000000).",
    messages: {
      tooLarge: (a: { max: number; size: number }) =>
        `The OpenAPI document is larger than ${a.max} bytes (it has ${a.size}).`,
      notUtf8: "The OpenAPI document is not valid UTF-8 text.",
      missing: (a: { file: string }) => `${a.file} does not exist.`,
      folder: (a: { file: string }) => `${a.file} is a folder; name an OpenAPI document.`,
      notRegularFile: (a: { file: string; what: string }) =>
        `${a.file} is ${a.what}, not a file; name an OpenAPI document.`,
      unreadable: (a: { code: string }) => `The OpenAPI document cannot be read (${a.code}).`,
    },
  },
  KV7002: {
    severity: "error",
    summary: "The OpenAPI document is not valid YAML or JSON.",
    example: 'The key "get" appears twice in the same mapping.',
    messages: {
      controlCharacter: (a: { code: string }) =>
        `YAML and JSON do not allow the control character U+${a.code}; is this a text file?`,
      empty: "The OpenAPI document is empty.",
      unreadable: (a: { reason: string }) => `The document cannot be read: ${a.reason}`,
      tooDeep: "The document is nested too deeply to read.",
      multipleDocuments: "The file holds more than one YAML document; an OpenAPI document is one.",
      parser: (a: { message: string }) => a.message,
      tag: (a: { tag: string }) => `The tag ${a.tag} is not allowed: an OpenAPI document holds plain JSON values.`,
      yaml11:
        "The document asks for YAML 1.1 (%YAML 1.1), which reads yes as true, 0777 as octal and applies << merge keys; kervanc reads YAML 1.2 only: remove the directive.",
      collectionKey: "A mapping key must be plain text or a number, not a list or a mapping.",
      duplicateKey: (a: { key: string }) => `The key ${a.key} appears twice in the same mapping.`,
      aliasWithoutAnchor: (a: { name: string }) => `The alias *${a.name} has no anchor &${a.name} before it.`,
      selfAlias: (a: { name: string }) =>
        `The alias *${a.name} is inside the node it refers to, which would make the document infinitely deep.`,
      tooManyAliases: (a: { max: number }) => `The document uses more than ${a.max} YAML aliases.`,
      aliasesExpandTooMuch: (a: { max: number }) =>
        `The document's YAML aliases expand to more than ${a.max} values and characters of text in all; an OpenAPI document shares schemas with $ref, not aliases.`,
    },
  },
  KV7003: {
    severity: "error",
    summary: "The document is not OpenAPI 3.0 or 3.1, or a part of it has the wrong shape.",
    example:
      "This is a Swagger 2.0 document; kervanc import reads OpenAPI 3.0 and 3.1 (convert it first, for example with swagger2openapi).",
    messages: {
      undeclaredScheme: (a: { name: string }) =>
        `The security scheme "${a.name}" is not declared in components.securitySchemes.`,
      pathItemNotMapping: "A path item must be a mapping of operations.",
      pathWithoutSlash: (a: { route: string }) => `The path ${a.route} does not start with "/".`,
      operationNotMapping: "An operation must be a mapping.",
      swagger2:
        "This is a Swagger 2.0 document; kervanc import reads OpenAPI 3.0 and 3.1 (convert it first, for example with swagger2openapi).",
      topLevelNotMapping: "The document is not an OpenAPI document: its top level is not a mapping.",
      noVersion: 'The document has no "openapi" version string (such as "3.1.0"); is it an OpenAPI document?',
      unsupportedVersion: (a: { version: string }) =>
        `OpenAPI ${a.version} is not supported; kervanc import reads OpenAPI 3.0 and 3.1.`,
      pathsNotMapping: "paths must be a mapping from paths to path items.",
      serverWithoutUrl: "A server needs a url string.",
      refNotString: "A $ref must be a string.",
      securityNotList: "security must be a list of security requirements.",
      schemaNotMapping: "A schema must be a mapping (or true or false in OpenAPI 3.1).",
      parametersNotList: "parameters must be a list.",
      parameterShape: 'A parameter needs a name and an "in" of path, query, header or cookie.',
    },
  },
  KV7004: {
    severity: "error",
    summary: "A $ref points outside the document (import reads no other file or URL).",
    example:
      'The $ref "common.yaml#/components/schemas/Error" points outside this document; kervanc import reads no other file or URL. Bundle the document into one file first.',
    messages: {
      external: (a: { ref: string }) =>
        `The $ref ${a.ref} points outside this document; kervanc import reads no other file or URL. Bundle the document into one file first.`,
    },
  },
  KV7005: {
    severity: "error",
    summary: "A $ref points to nothing in the document.",
    example: 'The $ref "#/components/schemas/Pets" points to nothing in this document.',
    messages: {
      notPointer: (a: { ref: string }) =>
        `The $ref ${a.ref} is not a JSON pointer ("#/..."); kervanc import resolves only those.`,
      badEscape: (a: { ref: string }) => `The $ref ${a.ref} is not a valid JSON pointer (bad %-escape).`,
      dangling: (a: { ref: string }) => `The $ref ${a.ref} points to nothing in this document.`,
      endlessChain: "This $ref is part of a chain of references that never reaches a value.",
      dynamic: (a: { key: string }) => `"${a.key}" is not supported: a tool's input schema must be self-contained.`,
    },
  },
  KV7006: {
    severity: "error",
    summary: "A tool's input would need a recursive schema.",
    example:
      "The schema is recursive: #/components/schemas/Node refers to itself. A tool's input schema is inlined and cannot be recursive; leave the operation out (--exclude createNode) or cut the cycle in the document.",
    messages: {
      /** The problem as thrown while converting; `recursive` completes it once the operation is known. */
      cycle: (a: { key: string; through: string }) =>
        `The schema is recursive: ${a.key} refers to itself${a.through}. A tool's input schema is inlined and cannot be recursive`,
      recursive: (a: { problem: string; leaveOut: string }) =>
        `${a.problem}; ${a.leaveOut} or cut the cycle in the document.`,
    },
  },
  KV7007: {
    severity: "error",
    summary: "An input schema, with its $refs inlined, breaks the spec's schema limits.",
    example:
      "The input schema of createReport, with its $refs inlined, has more than 2000 nodes (the spec's limit). Leave the operation out (--exclude createReport) or simplify its schemas.",
    messages: {
      // The problems, as thrown while converting; `overLimit` completes them once the operation is known.
      tooManyNodes: (a: { max: number }) => `has more than ${a.max} nodes`,
      valuesTooLarge: (a: { max: number }) => `has const, default and enum values of more than ${a.max} bytes of JSON`,
      tooDeep: (a: { max: number }) => `is nested deeper than ${a.max} levels`,
      schemaLimit: (a: { problem: string }) => `breaks the spec's schema limits: ${a.problem}`,
      overLimit: (a: { tool: string; problem: string; leaveOut: string }) =>
        `The input schema of ${a.tool}, with its $refs inlined, ${a.problem} (the spec's limit). ${a.leaveOut} or simplify its schemas.`,
    },
  },
  KV7008: {
    severity: "error",
    summary: "There is no usable server URL (none, relative, not http(s), or http for an API that needs secrets).",
    example: 'The server URL "/api/v3" is relative; give the API\'s absolute URL with --server-url.',
    messages: {
      noServer: 'The document names no server (no "servers" list); give the API\'s URL with --server-url.',
      variableWithoutDefault: (a: { where: string; url: string; name: string }) =>
        `${a.where} ${a.url} uses the variable {${a.name}}, which has no default value.`,
      relative: (a: { where: string; url: string; withOption: string }) =>
        `${a.where} ${a.url} is relative; give the API's absolute URL${a.withOption}.`,
      notHttp: (a: { where: string; url: string }) => `${a.where} ${a.url} is not an http or https URL.`,
      credentials: (a: { where: string; url: string }) =>
        `${a.where} ${a.url} contains credentials; declare a security scheme instead.`,
      variableInHost: (a: { where: string; url: string; name: string; value: string }) =>
        `${a.where} ${a.url} puts the variable {${a.name}} in its host, with the default ${a.value}; a variable there may hold only letters, digits, "." and "-", so that it cannot change which host the URL names.`,
      unclearHost: (a: { where: string; url: string; host: string }) =>
        `${a.where} ${a.url} is read as the host ${a.host}, which it does not say plainly (a backslash, a percent-escape, a control character or an unusual address form); write the URL as it is sent.`,
      queryOrFragment: (a: { where: string; url: string }) =>
        `${a.where} ${a.url} has a query or a #fragment; give the base URL only.`,
      secretsOverHttp: (a: { url: string; name: string; withOption: string }) =>
        `The server URL ${a.url} uses plain http, and ${a.name} sends secrets, which never travel over plain http. Give an https URL${a.withOption}, or leave the operation out.`,
    },
  },
  KV7009: {
    severity: "warning",
    summary:
      "A security scheme kervanc cannot express (http digest and other http schemes, mutualTLS): the operation is imported without it.",
    example:
      'The security scheme "signed" (http digest) is not supported; updatePet is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.',
    messages: {
      unsupportedScheme: (a: { name: string; what: string; tool: string }) =>
        `The security scheme "${a.name}" (${a.what}) is not supported; ${a.tool} is imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.`,
      unsupportedSchemeMany: (a: { name: string; what: string; count: number; tools: string }) =>
        `The security scheme "${a.name}" (${a.what}) is not supported; ${a.count} operations (${a.tools}) are imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.`,
      unsupportedSchemeMore: (a: { name: string; what: string; count: number; tools: string; more: number }) =>
        `The security scheme "${a.name}" (${a.what}) is not supported; ${a.count} operations (${a.tools} and ${a.more} more) are imported without authentication. Add a header with {{secrets.NAME}} by hand if it needs one.`,
    },
  },
  KV7010: {
    severity: "warning",
    summary:
      "Part of an operation (a parameter, the body, the whole operation) cannot be expressed in a spec and is left out.",
    example: 'The cookie parameter "session" is left out: a spec sends no cookies from arguments.',
    messages: {
      bodyOnGet: "A GET request cannot have a body in a spec; the body is left out.",
      requiredBodyOnGet: (a: { operation: string }) =>
        `A GET request cannot have a body in a spec; the operation ${a.operation} is left out.`,
      cookie: (a: { name: string }) =>
        `The cookie parameter "${a.name}" is left out: a spec sends no cookies from arguments.`,
      bodyNotJson: (a: { types: string }) =>
        `The request body is ${a.types}; a spec sends JSON bodies only, so the body is left out.`,
      requiredBodyNotJson: (a: { types: string; operation: string }) =>
        `The request body is ${a.types}; a spec sends JSON bodies only, so the operation ${a.operation} is left out.`,
      bodyUndescribed: "The request body is not described; a spec sends JSON bodies only, so the body is left out.",
      requiredBodyUndescribed: (a: { operation: string }) =>
        `The request body is not described; a spec sends JSON bodies only, so the operation ${a.operation} is left out.`,
      method: (a: { method: string }) =>
        `${a.method} operations cannot be tools (a spec's methods are GET, POST, PUT, PATCH and DELETE); the operation is left out.`,
      inapplicableKeywords: (a: { keywords: string; list: string }) =>
        `${a.keywords} that do not apply to their schema's type (${a.list}) were left out of the input schemas: they check nothing.`,
      pathParameterNotScalar: (a: { name: string }) =>
        `The path parameter "${a.name}" is not a string, number or boolean, which a spec cannot put in a path; the operation is left out.`,
      redirectOnly: (a: { codes: string }) =>
        `The operation documents only redirects (${a.codes}), which a tool does not follow by default and cannot return; the operation is left out.`,
      pathQuery: (a: { route: string }) =>
        `The path ${a.route} carries a query that is not plain text (only letters, digits and - . _ ~ = & % + are kept as written); the operation is left out.`,
      dotSegment: (a: { route: string }) =>
        `The path ${a.route} has a "." or ".." segment, which a URL resolves away (the tool would call another path, perhaps outside the server's base path); the operation is left out.`,
      pathParameterNotInPath: (a: { name: string; route: string }) =>
        `The path parameter "${a.name}" does not appear in the path ${a.route}; it is left out.`,
      queryNameTemplate: (a: { name: string }) =>
        `The query parameter "${a.name}" is left out: a query name cannot contain "{{".`,
      queryObject: (a: { name: string }) =>
        `The query parameter "${a.name}" is an object or a list of objects, which a spec cannot serialize into a query; it is left out.`,
      deepObject: (a: { name: string }) =>
        `The query parameter "${a.name}" (style: deepObject) is not an object of plain named values, which a spec can only send as ${a.name}[name]=value; it is left out.`,
      credentialHeader: (a: { name: string }) =>
        `The header parameter "${a.name}" carries credentials, which must not come from the model; it is left out. Declare a security scheme, or add the header with {{secrets.NAME}} by hand.`,
      reservedHeader: (a: { name: string }) =>
        `The header parameter "${a.name}" is left out: a spec cannot set that header.`,
      headerNotScalar: (a: { name: string }) =>
        `The header parameter "${a.name}" is not a string, number or boolean; it is left out.`,
      narrowedQuery: (a: { name: string; operation: string }) =>
        `The query parameter "${a.name}" of ${a.operation} also takes an object or a list that a query value cannot carry as the document sends it; only its other forms are imported.`,
      narrowedHeader: (a: { name: string; operation: string }) =>
        `The header parameter "${a.name}" of ${a.operation} also takes an object or a list that a header cannot carry; only its other forms are imported.`,
      narrowedPath: (a: { name: string; operation: string }) =>
        `The path parameter "${a.name}" of ${a.operation} also takes an object or a list that a path segment cannot carry; only its other forms are imported.`,
      notEncodable: (a: { ref: string; operation: string }) =>
        `The operation ${a.operation} is left out: ${a.ref} takes values (an object or a list) that its place in the request cannot carry, and none of its forms can be sent alone.`,
      patternLeftOut: (a: { problem: string }) => `The pattern is left out: ${a.problem}.`,
      patternPropertyLeftOut: (a: { problem: string }) => `The pattern property is left out: ${a.problem}.`,
      keywordProperty: (a: { name: string }) =>
        `The property "${a.name}" is left out: a spec reads a property of that name as a schema keyword (as Kervan does), so it cannot be declared.`,
      multipartNoFields: (a: { operation: string }) =>
        `The operation ${a.operation} is left out: its multipart body documents no fields.`,
      multipartFieldName: (a: { operation: string; name: string }) =>
        `The operation ${a.operation} is left out: the field name ${a.name} cannot be written in a part header.`,
      multipartFileList: (a: { operation: string; name: string }) =>
        `The operation ${a.operation} is left out: the field ${a.name} is a list of files, which a spec cannot send.`,
      multipartObject: (a: { operation: string; name: string }) =>
        `The operation ${a.operation} is left out: the field ${a.name} is an object or has no type, which a part cannot carry.`,
      answerType: (a: { types: string }) =>
        `The operation answers ${a.types}, which a Kervan tool cannot return (it returns JSON or text); the operation is left out (kervanc import --binary-output returns it as image, audio or file content).`,
    },
  },
  KV7011: {
    severity: "error",
    summary: "The selection (--include, --exclude, --read-only) matches nothing, or more than 200 operations.",
    example: '--include "pet" matches no tag, operationId or route ("GET /path") of an operation.',
    messages: {
      noMatch: (a: { option: string; selector: string }) =>
        `${a.option} ${a.selector} matches no tag, operationId or route ("GET /path") of an operation.`,
      noOperations: "The document has no operations to import.",
      noneLeft: "No operation is left to import after --include, --exclude and --read-only.",
      noneImportable: "None of the selected operations can be imported (see the warnings above).",
      tooMany: (a: { count: number; max: number; by: string; groups: string; example: string; reads: number }) =>
        `${a.count} operations are selected, but a spec holds at most ${a.max} tools. Operations by ${a.by}: ${a.groups}. Choose with --include <tag|/path prefix|operationId|"METHOD /path">${a.example}, --exclude, or --read-only (${a.reads} GET operations); import one document several times to cover more.`,
      specTooLarge: (a: { count: number; bytes: number; max: number }) =>
        `The spec for these ${a.count} operations would be ${a.bytes} bytes, more than the ${a.max} a spec may have; choose fewer with --include, --exclude or --read-only (or --skip-invalid keeps the first ones that fit).`,
      specTooLargeSkipping: (a: { count: number; bytes: number; max: number }) =>
        `The spec for these ${a.count} operations would be ${a.bytes} bytes, more than the ${a.max} a spec may have; choose fewer with --include, --exclude or --read-only.`,
      skippedTooLarge: (a: {
        skipped: number;
        count: number;
        bytes: number;
        max: number;
        kept: number;
        first: string;
      }) =>
        `Skipped ${a.skipped} operations (--skip-invalid): the spec for all ${a.count} would be ${a.bytes} bytes, more than the ${a.max} a spec may have; the first ${a.kept} are kept. The first skipped is ${a.first}.`,
    },
  },
  KV7012: {
    severity: "error",
    summary: "The spec the import would write is refused by kervanc build; nothing is written.",
    example:
      'kervanc build would refuse the tool made from this operation: KV3017 tools[0].http.url: The URL\'s path drops {{input.name}}: a ".." segment after it removes it. Write the path without "..".',
    messages: {
      // The build's own diagnostic, quoted: its code, its spec path and its message.
      toolRefused: (a: { code: string; path: string; message: string }) =>
        `kervanc build would refuse the tool made from this operation: ${a.code} ${a.path}: ${a.message}`,
      specRefused: (a: { code: string; path: string; message: string }) =>
        `kervanc build would refuse the imported spec: ${a.code} ${a.path}: ${a.message}`,
      specRefusedWhole: (a: { code: string; message: string }) =>
        `kervanc build would refuse the imported spec: ${a.code} ${a.message}`,
      skipped: (a: { operation: string; code: string; path: string; message: string }) =>
        `Skipped ${a.operation} (--skip-invalid): kervanc build would refuse the tool made from this operation: ${a.code} ${a.path}: ${a.message}`,
    },
  },
  KV7013: {
    severity: "warning",
    summary: "The server URL uses plain http: the spec sets allowInsecureHttp.",
    example:
      'The server URL "http://api.example.com" uses plain http; the spec sets allowInsecureHttp: true, so requests and answers travel unencrypted.',
    messages: {
      plainHttp: (a: { where: string; url: string }) =>
        `${a.where} ${a.url} uses plain http; the spec sets allowInsecureHttp: true, so requests and answers travel unencrypted.`,
    },
  },
  KV7014: {
    severity: "warning",
    summary: "Invisible or control characters were removed from a text the model would read.",
    example:
      "The description has 2 invisible or control characters (U+202E first), which the spec format refuses; they were removed.",
    messages: {
      removedOne: (a: { what: string; first: string }) =>
        `The ${a.what} has 1 invisible or control character (U+${a.first}), which the spec format refuses; it was removed.`,
      removed: (a: { what: string; count: number; first: string }) =>
        `The ${a.what} has ${a.count} invisible or control characters (U+${a.first} first), which the spec format refuses; they were removed.`,
    },
  },
  KV7015: {
    severity: "warning",
    summary:
      "A parameter carries a credential (by its name or description): it is sent from a secret, not asked of the model.",
    example:
      'The query parameter "token" carries a credential; it is sent from the secret TOKEN instead of being an input the model fills in.',
    messages: {
      alreadySent: (a: { where: string }) =>
        `${a.where} carries a credential, and the operation's security scheme already sends one; it is left out.`,
      fromSecret: (a: { where: string; secret: string }) =>
        `${a.where} carries a credential; it is sent from the secret ${a.secret} instead of being an input the model fills in.`,
    },
  },
  KV7016: {
    severity: "warning",
    summary: "The document declares no security scheme: the tools are imported without authentication.",
    example:
      "The document declares no security scheme, so the tools send no credentials. If the API needs them, add a header with {{secrets.NAME}} and a secrets entry by hand.",
    messages: {
      noSchemes:
        "The document declares no security scheme, so the tools send no credentials. If the API needs them, add a header with {{secrets.NAME}} and a secrets entry by hand.",
    },
  },
  KV7017: {
    severity: "warning",
    summary: "The first https server was chosen over a plain-http one listed before it.",
    example:
      'The server "https://ec2.amazonaws.com" is used: it is the first https one listed ("http://ec2.amazonaws.com" comes first but uses plain http). Give --server-url to choose another.',
    messages: {
      passedOver: (a: { server: string; passedOver: string }) =>
        `The server ${a.server} is used: it is the first https one listed (${a.passedOver} comes first but uses plain http). Give --server-url to choose another.`,
    },
  },
  KV7018: {
    severity: "warning",
    summary:
      "A secret is sent to more than one host, because operations name servers of their own: each host gets the credential.",
    example:
      "The secret API_KEY is sent to 2 hosts: api.example.com:443 (listPets) and uploads.example.net:443 (upload), because operations name servers of their own. Check that each host is the API's, or give --server-url to send every tool to one server.",
    messages: {
      manyHosts: (a: { secret: string; count: number; hosts: string }) =>
        `The secret ${a.secret} is sent to ${a.count} hosts: ${a.hosts}, because operations name servers of their own. Check that each host is the API's, or give --server-url to send every tool to one server.`,
    },
  },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof CODES;
