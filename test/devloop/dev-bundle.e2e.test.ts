/**
 * `call`, `test` and `dev` run a server.mjs made without the rest of its package (emitServerBundle, issue 37).
 * The inner loop's promise is that this is the generated server's code path: the bundle must be, byte for
 * byte, the server.mjs `build` writes for the same spec. Every spec of fixtures/specs and fixtures/valid: views,
 * Ajv helpers, formats and patterns among them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitPackage, emitServerBundle } from "../../packages/compiler/src/build.ts";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { REPO } from "../helpers/kervanc.ts";

const SPECS = ["specs", "valid"].flatMap((folder) =>
  readdirSync(join(REPO, "fixtures", folder))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => join(REPO, "fixtures", folder, f)),
);

describe("the inner loop's server.mjs", () => {
  it.each(SPECS)("is the bytes build writes: %s", async (file) => {
    const compiled = compileSpec(file, readFileSync(file));
    expect(compiled.planned).not.toBeNull();
    const built = (await emitPackage(compiled)).get("server.mjs");
    expect(built).toBeDefined();
    const alone = await emitServerBundle(compiled);
    expect(alone.length).toBe(built!.length);
    expect(alone === built).toBe(true);
  });
});
