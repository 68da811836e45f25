/**
 * Replaces `@modelcontextprotocol/server/_shims` in the bundle.
 *
 * The SDK's Node shim exports an Ajv-backed default JSON Schema validator, which generates code at run time
 * and would crash under `--disallow-code-generation-from-strings`. A generated server validates only with the
 * validators Ajv compiled at build time, so the default is replaced by one that refuses, and Ajv is left out
 * of the bundle. This path is internal to the SDK: the SDK version is pinned exactly, and the tests run the
 * bundle under the flag, so an SDK upgrade that moves it fails loudly.
 */

export class DefaultJsonSchemaValidator {
  getValidator(): never {
    throw new Error("This server compiles no JSON Schema at run time.");
  }
}

/** The SDK takes `process` from this shim: the global one, since an `import from "node:process"` costs start-up time. */
export const process = globalThis.process;
