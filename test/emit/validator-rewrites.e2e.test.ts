/**
 * The rewrites of Ajv's standalone code on their own: what is rewritten, what is left as Ajv wrote it (and
 * counted), and that a schema's `$id` cannot end the comment Ajv writes it into.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAndCompileSchema } from "../../packages/compiler/src/analyze/rules/schemas.ts";
import { ajvRuntimeModule } from "../../packages/compiler/src/emit/bundle/prebuilt.ts";
import { layoutGeneratedJs } from "../../packages/compiler/src/emit/code/code-style.ts";
import { dropUnusedBookkeeping } from "../../packages/compiler/src/emit/validators/validator-bookkeeping.ts";
import { shareErrorBlocks } from "../../packages/compiler/src/emit/validators/validator-errors.ts";
import { validatorModule } from "../../packages/compiler/src/emit/validators/validators.ts";
import { removeDir, tempDir } from "../helpers/kervanc.ts";

const tail = (name: string): string =>
  `;\nif(vErrors === null){\nvErrors = [${name}];\n}\nelse {\nvErrors.push(${name});\n}\nerrors++;\n`;
const block = (object: string, name = "err0"): string => `const ${name} = ${object}${tail(name)}`;

describe("shareErrorBlocks", () => {
  it("turns Ajv's block into one addError call with the instance path and message exactly as written", () => {
    const code = block(
      '{instancePath:instancePath+"/" + key0.replace(/~/g, "~0").replace(/\\//g, "~1"),schemaPath:"#/p",' +
        'keyword:"pattern",params:{pattern: "a\\"},{\'"},message:"must match pattern \\""+"a\\"},{\'"+"\\""}',
    );
    const result = shareErrorBlocks(code, "h");
    expect(result).toEqual({
      code:
        'vErrors = h.addError(vErrors, instancePath+"/" + key0.replace(/~/g, "~0").replace(/\\//g, "~1"), ' +
        '"must match pattern \\""+"a\\"},{\'"+"\\"");\nerrors++;\n',
      rewritten: 1,
      kept: 0,
    });
  });

  it.each([
    [
      "a property the server might read (Ajv's verbose mode)",
      '{instancePath,schemaPath:"#",keyword:"k",params:{},message:"m",data:data}',
    ],
    ["a dropped value with a call in it", '{instancePath,schemaPath:"#",keyword:"k",params:{n: f()},message:"m"}'],
    [
      "a dropped value with an assignment in it",
      '{instancePath,schemaPath:"#",keyword:"k",params:{n: x = 1},message:"m"}',
    ],
    ["no message", '{instancePath,schemaPath:"#",keyword:"k",params:{}}'],
    ["a template literal", '{instancePath,schemaPath:"#",keyword:"k",params:{},message:`m`}'],
    ["a comment", '{instancePath,schemaPath:"#",keyword:"k",params:{} /* x */,message:"m"}'],
    ["a string that does not close", '{instancePath,schemaPath:"#,keyword:"k",params:{},message:"m"}'],
    ["unbalanced brackets", '{instancePath,schemaPath:"#",keyword:"k",params:{a:[1},message:"m"}'],
    ["a property given twice", '{instancePath,message:"m",message:"n"}'],
    ["Ajv's placeholder for discarded errors", "{}"],
  ])("leaves a block with %s as it is, and counts it", (_why, object) => {
    const code = block(object);
    expect(shareErrorBlocks(code, "h")).toEqual({ code, rewritten: 0, kept: 1 });
  });

  it("leaves a block whose push and count lines differ from Ajv's", () => {
    const code = `const err0 = {instancePath,message:"m"};\nif(vErrors === null){\nvErrors = [err0];\n}\nelse {\nvErrors.push(err1);\n}\nerrors++;\n`;
    expect(shareErrorBlocks(code, "h")).toEqual({ code, rewritten: 0, kept: 1 });
  });

  it("leaves the whole module when its code reads error objects back (Ajv's custom keywords)", () => {
    const code = `${block('{instancePath,message:"m"}')}const err1 = vErrors[i0];\nerr1.schemaPath = "#";\n`;
    expect(shareErrorBlocks(code, "h")).toEqual({ code, rewritten: 0, kept: 1 });
  });

  it("does not mistake text inside strings for a read of an error object", () => {
    const code = `const schema0 = {"description":"see vErrors[0] and err1.message"};\n${block('{instancePath,message:"m"}')}`;
    expect(shareErrorBlocks(code, "h").rewritten).toBe(1);
  });
});

describe("dropUnusedBookkeeping", () => {
  const fn = (params: string, body: string): string =>
    `function validate0(data, {${params}}={}){\nconst evaluated0 = validate0.evaluated;\nif(evaluated0.dynamicProps){\nevaluated0.props = undefined;\n}\nif(evaluated0.dynamicItems){\nevaluated0.items = undefined;\n}\n${body}validate0.errors = vErrors;\nreturn errors === 0;\n}\nvalidate0.evaluated = {"props":true,"dynamicProps":false,"dynamicItems":false};\n`;
  const all = 'instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}';

  it("leaves out parameters and evaluated records nothing uses", () => {
    expect(dropUnusedBookkeeping(fn(all, "errors++;\n"))).toBe(
      'function validate0(data, {instancePath=""}={}){\nerrors++;\nvalidate0.errors = vErrors;\nreturn errors === 0;\n}\n',
    );
  });

  it("keeps a parameter the module uses and the records when anything else reads them", () => {
    const body = "if(!validate0(x, {instancePath, rootData})){}\nif(validate0.evaluated.props){}\n";
    const code = fn(all, body);
    const out = dropUnusedBookkeeping(code);
    expect(out).toContain("rootData=data");
    expect(out).not.toContain("parentData");
    expect(out).toContain("const evaluated0 = validate0.evaluated;");
    expect(out).toContain('validate0.evaluated = {"props"');
  });

  it("keeps a function's record when its body fills it in", () => {
    const out = dropUnusedBookkeeping(fn(all, "evaluated0.props = props0;\n"));
    expect(out).toContain("const evaluated0 = validate0.evaluated;");
    expect(out).toContain("validate0.evaluated = {");
  });

  it("counts names outside literals only: a name inside a string does not keep a parameter", () => {
    const out = dropUnusedBookkeeping(fn(all, 'const schema1 = {"rootData":"parentData"};\n'));
    expect(out).toContain('function validate0(data, {instancePath=""}={}){');
  });
});

describe("a schema's $id in the generated validator", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("validator-id");
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    const helpers = { ucs2length: true, equal: true, formats: true, addError: true };
    await writeFile(join(dir, "ajv-runtime.js"), await ajvRuntimeModule(helpers));
  });
  afterAll(async () => {
    if (dir) await removeDir(dir);
  });

  it("cannot end Ajv's source URL comment and become code of the server", async () => {
    const flag = "__kervancInjected";
    const id = `https://example.com/a*/;globalThis.${flag}=1;/*`;
    const compiled = checkAndCompileSchema(
      {
        $id: id,
        type: "object",
        $defs: { d: { $id: `${id}/d`, type: "string" } },
        properties: { d: { $ref: `${id}/d` } },
      },
      [],
    ).compiled!;
    const module = validatorModule(compiled);
    expect(module.code).not.toContain("sourceURL");
    await writeFile(join(dir, "v.js"), layoutGeneratedJs(module.code));
    const validate = ((await import(pathToFileURL(join(dir, "v.js")).href)) as { default: (d: unknown) => boolean })
      .default;
    expect(validate({ d: 1 })).toBe(false);
    expect(validate({ d: "x" })).toBe(true);
    expect((globalThis as Record<string, unknown>)[flag]).toBeUndefined();
  });
});

describe("Ajv output this does not rewrite", () => {
  it("is left whole: errors with Ajv's verbose fields are kept as Ajv wrote them, and counted", () => {
    const ajv = new Ajv2020({ allErrors: true, verbose: true, code: { source: true, esm: true, lines: true } });
    const verbose = validatorModule({ ajv, validate: ajv.compile({ type: "object", required: ["a"] }) });
    expect(verbose.errorBlocks).toEqual({ rewritten: 0, kept: 2 });
    expect(verbose.helpers.addError).toBe(false);
    expect(verbose.code).toContain("schemaPath:");
  });
});
