/**
 * Schemas that stress how Ajv writes errors into a standalone validator: quotes and backslashes in patterns,
 * property names and values (they end up inside string literals in the generated code), errors whose message is
 * computed at run time (`if`), errors raised inside applicators that are later discarded (`oneOf`, `anyOf`,
 * `not`, `if`), the 2020-12 keywords that keep per-function bookkeeping (`unevaluated*`, `$dynamicRef`), and
 * references between functions (`$ref`, recursion).
 */
export const HARD_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> = {
  quotes: {
    type: "object",
    properties: {
      'q"uote': { type: "string", pattern: '^[^"\\\\]*"?$' },
      "back\\slash": { type: "string", pattern: '^a\\\\b"c\\/\\.$' },
      "it's": { type: "string", pattern: "^it's \\d+$", maxLength: 12 },
      "a/b~c": { type: "integer", minimum: 0 },
      "line\nbreak\u2028": { const: "x\"y'z\\" },
      "</script>": { enum: ["<!--", "\\u0000", "${x}", "`t`"] },
      constructor: { type: "boolean" },
    },
    required: ['q"uote', "it's", "a/b~c"],
    additionalProperties: { type: "string", pattern: "\\+\\)\\(\\{\\}\\[" },
  },
  // A pattern and a format beside maxLength (not run on longer strings), and in a sibling subschema (run).
  patternsAndLengths: {
    type: "object",
    properties: {
      email: { type: "string", maxLength: 12, minLength: 3, pattern: "^\\S+@\\S+$" },
      code: { maxLength: 4, pattern: "^[A-Z]+$" },
      site: { type: "string", maxLength: 40, minLength: 1, pattern: "^h", format: "url" },
      when: { type: "string", maxLength: 30, format: "date-time" },
      split: { type: "string", allOf: [{ maxLength: 4 }, { pattern: "^[a-z]+$" }] },
      either: {
        anyOf: [
          { type: "string", maxLength: 3 },
          { type: "string", maxLength: 9, pattern: "^x+$" },
        ],
      },
    },
  },
  enumsAndConsts: {
    type: "object",
    properties: {
      obj: { const: { a: [1, { b: "c" }], d: null } },
      arr: { const: [1, "2", [3]] },
      mixed: { enum: [null, 1, "one", { x: 1 }, [1, 2], true] },
      many: { enum: Array.from({ length: 40 }, (_, i) => `v${i}`) },
      unique: { type: "array", uniqueItems: true, items: { type: ["object", "integer"] } },
    },
  },
  applicators: {
    type: "object",
    properties: {
      one: { oneOf: [{ type: "string", minLength: 3 }, { type: "string", maxLength: 5 }, { type: "integer" }] },
      any: {
        anyOf: [
          { type: "string", format: "email" },
          { type: "integer", minimum: 10 },
        ],
      },
      none: { not: { type: "string" } },
      noneObject: { not: { required: ["a"] } },
      cond: {
        type: "object",
        if: { properties: { kind: { const: "a" } }, required: ["kind"] },
        then: { required: ["a"], properties: { a: { type: "integer", multipleOf: 0.5 } } },
        else: { required: ["b"], properties: { b: { type: "string", format: "date" } } },
      },
      all: { allOf: [{ type: "number", exclusiveMinimum: 0 }, { exclusiveMaximum: 100 }, { multipleOf: 3 }] },
    },
  },
  unevaluated: {
    type: "object",
    properties: { kind: { type: "string" } },
    allOf: [{ properties: { a: { type: "integer" } } }],
    oneOf: [
      { properties: { kind: { const: "x" }, x: { type: "string" } }, required: ["x"] },
      { properties: { kind: { const: "y" }, y: { type: "array" } }, required: ["y"] },
    ],
    if: { properties: { kind: { const: "x" } } },
    then: { properties: { xx: { type: "boolean" } } },
    patternProperties: { "^meta-": { type: "string" } },
    unevaluatedProperties: false,
  },
  unevaluatedDynamic: {
    type: "object",
    anyOf: [{ properties: { a: { type: "string" } } }, { properties: { b: { type: "number" } } }],
    unevaluatedProperties: { type: "integer" },
  },
  arrays: {
    type: "object",
    properties: {
      tuple: {
        type: "array",
        prefixItems: [{ type: "string" }, { type: "integer" }, { enum: ["a", "b"] }],
        minItems: 1,
        items: false,
      },
      openTuple: { type: "array", prefixItems: [{ type: "boolean" }], minItems: 1, items: { type: "string" } },
      rest: { type: "array", prefixItems: [{ type: "integer" }], minItems: 1, unevaluatedItems: { type: "null" } },
      closed: { type: "array", prefixItems: [{ type: "integer" }], minItems: 1, unevaluatedItems: false },
      nested: {
        type: "array",
        maxItems: 2,
        items: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: { id: { type: "integer" }, tags: { type: "array", items: { type: "string", minLength: 1 } } },
            required: ["id"],
            additionalProperties: false,
          },
        },
      },
      has: { type: "array", contains: { type: "integer", minimum: 5 }, minContains: 2, maxContains: 3 },
    },
  },
  objects: {
    type: "object",
    minProperties: 1,
    maxProperties: 3,
    propertyNames: { pattern: "^[a-z][a-z0-9-]*$", maxLength: 12 },
    dependentRequired: { card: ["cvc", "expiry"], "x-a": ["x-b"] },
    dependentSchemas: { shipping: { required: ["address"], properties: { address: { type: "string" } } } },
    properties: { card: { type: "string" }, cvc: { type: "string" }, expiry: { type: "string" } },
  },
  formats: {
    type: "object",
    properties: {
      when: { type: "string", format: "date-time" },
      day: { type: "string", format: "date" },
      time: { type: "string", format: "time" },
      mail: { type: "string", format: "email" },
      url: { type: "string", format: "uri" },
      ip: { type: "string", format: "ipv4" },
      ip6: { type: "string", format: "ipv6" },
      id: { type: "string", format: "uuid" },
      host: { type: "string", format: "hostname" },
      span: { type: "string", format: "duration" },
      re: { type: "string", format: "regex" },
      pointer: { type: "string", format: "json-pointer" },
    },
  },
  refs: {
    type: "object",
    $defs: {
      node: {
        type: "object",
        properties: { value: { type: "integer" }, next: { $ref: "#/$defs/node" } },
        required: ["value"],
        unevaluatedProperties: false,
      },
      name: { $anchor: "name", type: "string", minLength: 2 },
      "odd/name~": { type: "number", maximum: 9 },
    },
    properties: {
      list: { $ref: "#/$defs/node" },
      name: { $ref: "#name" },
      odd: { $ref: "#/$defs/odd~1name~0" },
      self: { $ref: "#" },
      items: { type: "array", items: { $ref: "#/$defs/node" } },
    },
    additionalProperties: false,
  },
  dynamic: {
    $id: "https://example.com/tree",
    $dynamicAnchor: "node",
    type: "object",
    properties: {
      data: true,
      children: { type: "array", items: { $dynamicRef: "#node" } },
    },
  },
  scalars: {
    type: ["string", "number", "null"],
    minLength: 2,
    maxLength: 4,
    minimum: -5,
    maximum: 5.5,
    pattern: "^[^']*$",
  },
  booleans: {
    type: "object",
    properties: { never: false, always: true, nothing: { not: {} } },
    required: ["always"],
  },
};
