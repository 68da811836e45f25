/**
 * The gemini schema profile (compiler plan/schema-profiles.ts), in process:
 * - what it advertises stays inside Gemini's documented Schema subset (one type, nullable, string enums, the
 *   formats that subset names; no $ref, oneOf, allOf, const or additionalProperties);
 * - it only loosens: over many sampled values of many schemas, every value the spec's schema accepts, the
 *   advertised one accepts (read as OpenAPI 3.0 reads it: `nullable` adds null to the type);
 * - a schema that already fits is not rewritten, and what was dropped is said in the description.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { profileListing } from "../../packages/compiler/src/plan/schema-profiles.ts";
import type { JsonObject, ToolListing } from "../../packages/runtime/src/plan.ts";
import { REPO } from "../helpers/kervanc.ts";
import { Rng, SampleMaker } from "../helpers/schema-samples.ts";

const ALLOWED = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "default",
  "anyOf",
]);
const FORMATS: Record<string, string[]> = {
  string: ["enum", "date-time"],
  number: ["float", "double"],
  integer: ["int32", "int64"],
};

/** The places a schema breaks Gemini's subset; empty when it fits. */
function outsideSubset(schema: unknown, at = "#"): string[] {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return [`${at}: not a schema object`];
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(node)) if (!ALLOWED.has(key)) problems.push(`${at}: ${key}`);
  if ("type" in node && typeof node["type"] !== "string") problems.push(`${at}: type ${JSON.stringify(node["type"])}`);
  if (Array.isArray(node["enum"]) && !node["enum"].every((v) => typeof v === "string")) problems.push(`${at}: enum`);
  if (typeof node["format"] === "string" && !(FORMATS[node["type"] as string] ?? []).includes(node["format"]))
    problems.push(`${at}: format ${node["format"]}`);
  for (const [name, sub] of Object.entries((node["properties"] as Record<string, unknown>) ?? {}))
    problems.push(...outsideSubset(sub, `${at}/properties/${name}`));
  if (node["items"] !== undefined) problems.push(...outsideSubset(node["items"], `${at}/items`));
  for (const [i, sub] of ((node["anyOf"] as unknown[]) ?? []).entries())
    problems.push(...outsideSubset(sub, `${at}/anyOf/${i}`));
  return problems;
}

/** OpenAPI 3.0's reading of `nullable`, for Ajv: the type, or null. */
function asJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asJsonSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "nullable") continue;
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, asJsonSchema(v)]))
        : asJsonSchema(value);
  }
  const node = schema as Record<string, unknown>;
  if (node["nullable"] === true && typeof node["type"] === "string") out["type"] = [node["type"], "null"];
  if (node["nullable"] === true && Array.isArray(out["enum"])) out["enum"] = [...(out["enum"] as unknown[]), null];
  return out;
}

const listing = (inputSchema: JsonObject): ToolListing => ({
  name: "t",
  description: "d",
  inputSchema,
  annotations: {},
});

/** Every tool input schema of the repository's specs (fixtures, examples, the importer's golden specs). */
function repositorySchemas(): JsonObject[] {
  const files = ["fixtures/valid", "fixtures/specs", "fixtures/openapi/expected"].flatMap((dir) =>
    readdirSync(join(REPO, dir))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => join(REPO, dir, f)),
  );
  return files.flatMap((file) => {
    const planned = compileSpec(file, readFileSync(file)).planned;
    return planned === null ? [] : planned.tools.map((t) => t.plan.listing.inputSchema);
  });
}

const HAND_MADE: JsonObject[] = [
  { type: "object", properties: { a: { type: ["string", "null"] }, b: { type: ["integer", "string"] } } },
  {
    type: "object",
    properties: {
      shape: {
        oneOf: [
          {
            type: "object",
            properties: { kind: { const: "circle" }, r: { type: "number", exclusiveMinimum: 0 } },
            required: ["kind", "r"],
            additionalProperties: false,
          },
          {
            type: "object",
            properties: { kind: { const: "square" }, side: { type: "number" } },
            required: ["kind", "side"],
          },
        ],
      },
      when: { type: "string", format: "date" },
      uri: { type: "string", format: "uri", maxLength: 50 },
      n: { anyOf: [{ type: "integer", multipleOf: 5 }, { type: "null" }] },
      mixed: { anyOf: [{ type: "string" }, { type: "array", items: { type: "integer" } }] },
      both: {
        allOf: [
          { type: "object", properties: { x: { type: "integer" } }, required: ["x"] },
          { properties: { y: { type: "boolean" } } },
        ],
      },
      tags: { type: "array", items: { enum: [1, "two", null] }, uniqueItems: true },
      ref: { $ref: "#/$defs/pos" },
      loop: { $ref: "#" },
      fixed: { const: 3 },
    },
    required: ["shape"],
    $defs: { pos: { type: "integer", minimum: 1 } },
  },
];

describe("the gemini profile", () => {
  const schemas = [...repositorySchemas(), ...HAND_MADE];

  it("has schemas to work on", () => {
    expect(schemas.length).toBeGreaterThan(15);
  });

  it("advertises only Gemini's documented Schema subset", () => {
    for (const schema of schemas) {
      const advertised = profileListing(listing(schema), "gemini")?.listing.inputSchema ?? schema;
      expect(outsideSubset(advertised), JSON.stringify(schema)).toEqual([]);
    }
  });

  it("only loosens: every value the spec's schema accepts, the advertised one accepts", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    let accepted = 0;
    schemas.forEach((schema, i) => {
      const advertised = profileListing(listing(schema), "gemini")?.listing.inputSchema ?? schema;
      const original = ajv.compile(schema);
      const loose = ajv.compile(asJsonSchema(advertised) as object);
      for (const value of new SampleMaker(schema, new Rng(1000 + i)).samples(300)) {
        if (!original(value)) continue;
        accepted++;
        expect(loose(value), `${JSON.stringify(value)} under ${JSON.stringify(advertised)}`).toBe(true);
      }
    });
    // The property is about accepted values: make sure there were plenty.
    expect(accepted).toBeGreaterThan(500);
  });

  it("leaves a schema that fits as it is, and says what it dropped", () => {
    expect(
      profileListing(listing({ type: "object", properties: { q: { type: "string", maxLength: 9 } } }), "gemini"),
    ).toBeNull();
    const rewritten = profileListing(listing(HAND_MADE[1]!), "gemini")!;
    const props = rewritten.listing.inputSchema["properties"] as Record<string, JsonObject>;
    expect(props["uri"]).toEqual({ type: "string", maxLength: 50, description: '(format: "uri")' });
    expect(props["n"]).toMatchObject({ type: "integer", nullable: true });
    expect(props["shape"]).toMatchObject({ type: "object", required: ["kind"] });
    expect(props["fixed"]).toEqual({ description: "(const: 3)" });
    expect(rewritten.changes).toContain("inputSchema.properties.shape: oneOf");
  });
});
