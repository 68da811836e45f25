/**
 * A generated validator does not run a `pattern` (or a `format`) on a string already over the maxLength of the same schema
 * (emit/validators/validator-pattern-guard.ts): with every error reported, Ajv would, and a pattern whose time grows with the
 * square of the length (KV5019) then keeps the server busy for minutes on one long argument. The validator is
 * emitted as a package gets it and loaded as a module file; the regular expressions it runs are watched.
 * validators-differential.test.ts checks every other input against Ajv.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAndCompileSchema } from "../../packages/compiler/src/analyze/rules/schemas.ts";
import { ajvRuntimeModule } from "../../packages/compiler/src/emit/bundle/prebuilt.ts";
import { layoutGeneratedJs } from "../../packages/compiler/src/emit/code/code-style.ts";
import { validatorModule } from "../../packages/compiler/src/emit/validators/validators.ts";
import { removeDir, tempDir } from "../helpers/kervanc.ts";
import { regexpRuns } from "../helpers/regexp-runs.ts";
import { HARD_SCHEMAS } from "./hard-schemas.ts";

type Validator = ((data: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] | null };

const SCHEMA = HARD_SCHEMAS.patternsAndLengths!;

let dir: string;
let validate: Validator;
let ajv: Validator;

beforeAll(async () => {
  const compiled = checkAndCompileSchema(SCHEMA, []).compiled!;
  ajv = compiled.validate as unknown as Validator;
  const module = validatorModule(compiled);
  dir = await tempDir("pattern-guard");
  await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
  await writeFile(join(dir, "v.js"), layoutGeneratedJs(module.code));
  await writeFile(join(dir, "ajv-runtime.js"), await ajvRuntimeModule(module.helpers));
  validate = ((await import(pathToFileURL(join(dir, "v.js")).href)) as { default: Validator }).default;
});

afterAll(async () => {
  if (dir) await removeDir(dir);
});

/** The strings a regular expression ran on while `run` ran. */
const testedStrings = (run: () => void): string[] => regexpRuns(run).map((r) => r.input);

const errorsOf = (v: Validator, data: unknown): string[] =>
  v(data) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

describe("a pattern beside maxLength", () => {
  it("is not run on a string over the maxLength, which fails with the maxLength error alone", () => {
    const long = `${"a".repeat(40)}@`;
    expect(testedStrings(() => validate({ email: long }))).toEqual([]);
    expect(errorsOf(validate, { email: long })).toEqual(["/email must NOT have more than 12 characters"]);
    // Ajv reports the pattern's error too; validity is the same.
    expect(errorsOf(ajv, { email: long })).toEqual([
      "/email must NOT have more than 12 characters",
      '/email must match pattern "^\\S+@\\S+$"',
    ]);
    // Without a declared type as well.
    expect(testedStrings(() => validate({ code: "abcdefgh" }))).toEqual([]);
    expect(errorsOf(validate, { code: "abcdefgh" })).toEqual(["/code must NOT have more than 4 characters"]);
  });

  it("and a format beside it are not run on a string over it either", () => {
    const site = `ftp://${":".repeat(60)}`;
    expect(testedStrings(() => validate({ site }))).toEqual([]);
    expect(errorsOf(validate, { site })).toEqual(["/site must NOT have more than 40 characters"]);
    expect(errorsOf(ajv, { site })).toEqual([
      "/site must NOT have more than 40 characters",
      '/site must match pattern "^h"',
      '/site must match format "url"',
    ]);
    const when = `2026-12-02T17:00:00${"0".repeat(40)}Z`;
    expect(errorsOf(validate, { when })).toEqual(["/when must NOT have more than 30 characters"]);
    expect(errorsOf(ajv, { when })).toHaveLength(2);
    // Within the limit both run, and fail as Ajv's do.
    for (const data of [{ site: "http://a" }, { site: "h" }, { when: "2026-12-02" }, { when: "2026-12-02T17:00:00Z" }])
      expect(errorsOf(validate, data), JSON.stringify(data)).toEqual(errorsOf(ajv, data));
  });

  it("is run on strings within it, with the same errors as Ajv's", () => {
    for (const data of [{ email: "a@b" }, { email: "no-at-sign" }, { email: "x" }, { code: "AB" }, { code: "ab" }]) {
      expect(testedStrings(() => validate(data)).length, JSON.stringify(data)).toBe(1);
      expect(errorsOf(validate, data), JSON.stringify(data)).toEqual(errorsOf(ajv, data));
    }
  });

  it("in another subschema is not guarded: it runs, and the errors are Ajv's", () => {
    // allOf: [{maxLength: 4}, {pattern}] is two schemas; each keeps its own error.
    expect(testedStrings(() => validate({ split: "ABCDEFG" }))).toEqual(["ABCDEFG"]);
    expect(errorsOf(validate, { split: "ABCDEFG" })).toEqual(errorsOf(ajv, { split: "ABCDEFG" }));
    // anyOf: a long string of x passes through the second branch, whose pattern runs within its own maxLength.
    for (const either of ["xxxxxx", "yyyyyy", "x".repeat(20)]) {
      expect(validate({ either }), either).toBe(ajv({ either }));
    }
  });
});
