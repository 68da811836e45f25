/**
 * The shortened standalone validators (emit/validators/validator-errors.ts, emit/validators/validator-bookkeeping.ts) against Ajv itself.
 *
 * Every schema of the fixture specs, the imported OpenAPI examples and real API documents, the benchmark's tool shapes and the hard cases
 * in hard-schemas.ts is compiled once by the build's own Ajv pass; its validator module is emitted exactly as a
 * package gets it (rewritten, formatted, next to a bundled ajv-runtime.js) and loaded as a real module file. Then,
 * for many inputs per schema (built to fit, broken in one place, arbitrary), both must give the same result and
 * the same ordered list of (instancePath, message): that list is the text a client sees.
 */
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { checkAndCompileSchema, type CompiledSchema } from "../../packages/compiler/src/analyze/rules/schemas.ts";
import { ajvRuntimeModule } from "../../packages/compiler/src/emit/bundle/prebuilt.ts";
import { layoutGeneratedJs } from "../../packages/compiler/src/emit/code/code-style.ts";
import { mergeHelpers, NO_HELPERS, validatorModule } from "../../packages/compiler/src/emit/validators/validators.ts";
import { importOpenApi } from "../../packages/compiler/src/import/openapi.ts";
import { formatValidationErrors } from "../../packages/runtime/src/call/validation.ts";
import { generateSpec } from "../../scripts/bench/gen-specs.ts";
import { REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { Rng, SampleMaker, type Schema } from "../helpers/schema-samples.ts";
import { HARD_SCHEMAS } from "./hard-schemas.ts";

interface Case {
  readonly name: string;
  readonly schema: unknown;
  readonly compiled: CompiledSchema;
}

interface Issue {
  readonly instancePath: string;
  readonly message?: string;
  readonly keyword?: string;
  readonly schemaPath?: string;
}
type Validator = ((data: unknown) => boolean) & { errors?: readonly Issue[] | null };

const SPEC_DIRS = ["fixtures/valid", "fixtures/specs", "fixtures/openapi/expected", "test/emit/specs"];
const REAL_OPENAPI = "fixtures/openapi/real";
const INPUTS_PER_SCHEMA = 240;

function specCases(file: string, bytes: Uint8Array): Case[] {
  const planned = compileSpec(file, bytes).planned;
  if (planned === null) throw new Error(`${file} does not compile`);
  return planned.tools.flatMap((tool) => [
    { name: `${file} ${tool.moduleName} input`, schema: tool.plan.listing.inputSchema, compiled: tool.input },
    ...(tool.output
      ? [{ name: `${file} ${tool.moduleName} output`, schema: tool.plan.listing.outputSchema, compiled: tool.output }]
      : []),
  ]);
}

function corpus(): Case[] {
  const cases: Case[] = [];
  for (const dir of SPEC_DIRS)
    for (const name of readdirSync(join(REPO, dir))
      .filter((f) => f.endsWith(".yaml"))
      .sort())
      cases.push(...specCases(`${dir}/${name}`, readFileSync(join(REPO, dir, name))));
  // Real APIs' schemas, as `kervanc import` turns them into a spec.
  for (const name of readdirSync(join(REPO, REAL_OPENAPI)).sort()) {
    // --skip-invalid: some documents keep operations the import leaves out (the import differential counts them);
    // a server URL of their own: some documents give a relative one.
    const imported = importOpenApi(name, readFileSync(join(REPO, REAL_OPENAPI, name)), "spec.yaml", {
      skipInvalid: true,
      serverUrl: "https://api.example.com",
    });
    if (!imported.ok || imported.text === null) throw new Error(`${name} does not import`);
    cases.push(...specCases(`${REAL_OPENAPI}/${name}`, new TextEncoder().encode(imported.text)));
  }
  cases.push(...specCases("bench-8.yaml", new TextEncoder().encode(generateSpec(8, "http://127.0.0.1:8080"))));
  for (const [name, schema] of Object.entries(HARD_SCHEMAS)) {
    const result = checkAndCompileSchema(schema, []);
    if (result.compiled === null)
      throw new Error(`hard schema ${name} does not compile: ${JSON.stringify(result.findings)}`);
    cases.push({ name: `hard ${name}`, schema, compiled: result.compiled });
  }
  return cases;
}

/**
 * The same inputs every time for a schema, seeded by its name: not by its place in the corpus, which moves when a
 * fixture is added (that once took the only inputs breaking maxProperties away from the hard schemas).
 */
function inputsFor(index: number): unknown[] {
  const name = cases[index]!.name;
  let seed = 0x5eed;
  for (let i = 0; i < name.length; i++) seed = (Math.imul(seed, 31) + name.charCodeAt(i)) >>> 0;
  return new SampleMaker(cases[index]!.schema as Schema, new Rng(seed)).samples(INPUTS_PER_SCHEMA);
}

const pairs = (errors: readonly Issue[] | null | undefined): [string, string | undefined][] | null =>
  errors === null || errors === undefined ? null : errors.map((e) => [e.instancePath, e.message]);

const cases = corpus();

/**
 * Ajv's errors without those the validators leave out on purpose: a pattern's or a format's, on a string over the
 * maxLength of the same schema (emit/validators/validator-pattern-guard.ts does not run those checks there; the string fails
 * either way).
 */
function asEmitted(errors: readonly Issue[] | null | undefined): readonly Issue[] | null | undefined {
  if (errors === null || errors === undefined) return errors;
  const overLong = new Set(
    errors.filter((e) => e.keyword === "maxLength").map((e) => `${e.instancePath}\n${e.schemaPath}`),
  );
  return errors.filter(
    (e) =>
      !(
        (e.keyword === "pattern" || e.keyword === "format") &&
        overLong.has(`${e.instancePath}\n${e.schemaPath?.replace(/(pattern|format)$/, "maxLength")}`)
      ),
  );
}

describe("shortened standalone validators agree with Ajv", () => {
  let dir: string;
  const loaded: Validator[] = [];
  const counts = { rewritten: 0, kept: 0 };

  beforeAll(async () => {
    dir = await tempDir("validators");
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    let helpers = NO_HELPERS;
    const files: [Case, string][] = [];
    for (const [index, c] of cases.entries()) {
      const module = validatorModule(c.compiled);
      helpers = mergeHelpers(helpers, module.helpers);
      counts.rewritten += module.errorBlocks.rewritten;
      counts.kept += module.errorBlocks.kept;
      const file = `v${index}.js`;
      await writeFile(join(dir, file), layoutGeneratedJs(module.code));
      files.push([c, file]);
    }
    await writeFile(join(dir, "ajv-runtime.js"), await ajvRuntimeModule(helpers));
    for (const [, file] of files) {
      const module = (await import(pathToFileURL(join(dir, file)).href)) as { default: Validator };
      loaded.push(module.default);
    }
  });

  afterAll(async () => {
    if (dir) await removeDir(dir);
  });

  it("covers the fixtures, the benchmark shapes and the hard cases", () => {
    expect(cases.length).toBeGreaterThan(60);
    expect(cases.filter((c) => c.name.startsWith("hard ")).length).toBe(Object.keys(HARD_SCHEMAS).length);
    expect(cases.some((c) => c.name.startsWith("bench-8.yaml"))).toBe(true);
  });

  it("rewrites every error block that carries a message; only Ajv's placeholder errors of `if` stay", async () => {
    expect(counts.rewritten).toBeGreaterThan(500);
    for (const c of cases) {
      const code = validatorModule(c.compiled).code;
      // Ajv's `if` counts failures with empty objects it discards right away: those are the only blocks kept.
      expect(code, c.name).not.toMatch(/^const err\d+ = \{(?!\};)/m);
      expect(code, c.name).not.toContain("schemaPath");
    }
    const placeholders = cases
      .map((c) => validatorModule(c.compiled).code.match(/^const err\d+ = \{\};/gm)?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(counts.kept).toBe(placeholders);
  });

  it.each(cases.map((c, i) => [c.name, i] as const))("%s", (_name, index) => {
    const c = cases[index]!;
    const ajv = c.compiled.validate as unknown as Validator;
    const standalone = loaded[index]!;
    let invalid = 0;
    for (const input of inputsFor(index)) {
      const expected = ajv(input);
      const expectedErrors = pairs(asEmitted(ajv.errors));
      const actual = standalone(input);
      const context = `${c.name}: ${JSON.stringify(input)}`;
      expect(actual, context).toBe(expected);
      expect(pairs(standalone.errors), context).toEqual(expectedErrors);
      expect(formatValidationErrors(standalone.errors), context).toBe(formatValidationErrors(asEmitted(ajv.errors)));
      if (!expected) invalid++;
    }
    expect(invalid, `${c.name}: no input failed`).toBeGreaterThan(0);
  });

  it("feeds inputs that reach the checks: valid ones for most schemas, failures of every kind of keyword", () => {
    const seenKeywords = new Set<string>();
    let schemasWithValidInputs = 0;
    for (const [index, c] of cases.entries()) {
      const ajv = c.compiled.validate as unknown as Validator;
      let valid = 0;
      for (const input of inputsFor(index)) {
        if (ajv(input)) valid++;
        else for (const e of ajv.errors ?? []) seenKeywords.add(e.keyword ?? "");
      }
      if (valid > 0) schemasWithValidInputs++;
    }
    expect(schemasWithValidInputs).toBeGreaterThan(cases.length * 0.6);
    for (const keyword of [
      "type",
      "required",
      "additionalProperties",
      "unevaluatedProperties",
      "unevaluatedItems",
      "pattern",
      "format",
      "enum",
      "const",
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "multipleOf",
      "minLength",
      "maxLength",
      "minItems",
      "maxItems",
      "uniqueItems",
      "contains",
      "minProperties",
      "maxProperties",
      "propertyNames",
      "dependentRequired",
      "oneOf",
      "anyOf",
      "not",
      "if",
      "false schema",
    ])
      expect(seenKeywords, keyword).toContain(keyword);
  });
});
