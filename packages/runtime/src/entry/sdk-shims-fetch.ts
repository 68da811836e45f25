/**
 * Replaces `@modelcontextprotocol/server/_shims` in worker.mjs, the fetch-handler bundle.
 *
 * The SDK's Node shim imports `node:process` and an Ajv-backed default validator; its workerd and browser shims
 * bring the cfworker validator (and workerd's preloads its schemas). A generated server validates only with the
 * validators Ajv compiled at build time, and worker.mjs must load where no Node built-in exists (workerd
 * without `nodejs_compat`), so this shim has neither: the default validator refuses, and `process` is a stub
 * whose stdio getters throw (stdio is never served from the fetch handler). Like sdk-shims.ts, this path is
 * internal to the SDK, which is pinned exactly; the runtime suites load the bundle on every platform.
 */
export class DefaultJsonSchemaValidator {
  getValidator(): never {
    throw new Error("This server compiles no JSON Schema at run time.");
  }
}

function notSupported(): never {
  throw new Error("stdio is not served by the fetch handler; run server.mjs for stdio.");
}

export const process = {
  get stdin(): never {
    return notSupported();
  },
  get stdout(): never {
    return notSupported();
  },
};
