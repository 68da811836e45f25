/**
 * The meta-schema check (KV5014) runs, in installed kervanc, a validator compiled at pack time
 * (analyze/rules/meta-schema.ts); in the repository, one compiled on first use. This loads the packed form, made by
 * the same function prepack calls, and holds it to the one the repository compiles: the same verdict and the same
 * errors for valid schemas and for schemas wrong in each of the ways KV5014 reports.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  metaSchemaValidator,
  metaSchemaValidatorCode,
  type MetaSchemaValidator,
} from "../../packages/compiler/src/analyze/rules/meta-schema.ts";
import { checkAndCompileSchema } from "../../packages/compiler/src/analyze/rules/schemas.ts";
import { REPO } from "../helpers/kervanc.ts";

const SCHEMAS: Record<string, unknown>[] = [
  { type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"] },
  { $schema: "https://json-schema.org/draft/2020-12/schema", type: "array", prefixItems: [{ type: "integer" }] },
  { type: "strin" },
  { type: ["string", 3] },
  { minimum: "1" },
  { required: "city" },
  { required: ["a", "a"] },
  { properties: { a: { type: "object", properties: { b: { maxLength: -1 } } } } },
  { items: [{ type: "string" }] },
  { anyOf: [] },
  { enum: "x" },
  { $defs: { a: { type: 7 } }, $ref: "#/$defs/a" },
  { dependentRequired: { a: [1] } },
  { pattern: 5, format: 3, multipleOf: 0 },
  { additionalProperties: { not: { type: "nothing" } }, propertyNames: { minLength: 1.5 } },
];

let dir: string;
let packed: MetaSchemaValidator;

beforeAll(async () => {
  // Inside the repository's node_modules: the file requires Ajv's runtime helpers, resolved from where it is, as the
  // installed file resolves them from kervanc's dependencies.
  const cache = join(REPO, "node_modules", ".cache", "kervanc");
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, "meta-test-"));
  const file = join(dir, "meta-schema-validator.cjs");
  writeFileSync(file, await metaSchemaValidatorCode());
  packed = createRequire(import.meta.url)(file) as MetaSchemaValidator;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the meta-schema validator compiled at pack time", () => {
  it.each(SCHEMAS.map((s) => [JSON.stringify(s), s] as const))("agrees with the compiled one on %s", (_, schema) => {
    const compiled = metaSchemaValidator();
    const verdict = compiled(schema);
    const errors = structuredClone(compiled.errors ?? null);
    expect(packed(schema)).toBe(verdict);
    expect(packed.errors ?? null).toEqual(errors);
  });

  it("tells the valid from the invalid (the comparison above is not between two validators that accept all)", () => {
    expect(packed(SCHEMAS[0])).toBe(true);
    expect(packed({ type: "strin" })).toBe(false);
    expect(packed.errors?.length).toBeGreaterThan(0);
  });

  it("is what KV5014 reports from", () => {
    const found = checkAndCompileSchema({ type: "strin" }, ["tools", 0, "input"]).findings;
    expect(found.map((f) => f.code)).toContain("KV5014");
  });
});
