/**
 * Turns off zod's code generation before the SDK builds its schemas (this module is the entries' first import).
 *
 * zod 4 (the SDK's validator) decides per object schema, when the schema is built, whether to compile a fast
 * parser with `new Function`, and probes once whether it may. A generated server runs with
 * `--disallow-code-generation-from-strings` (or on Workers, where it may not), so the probe fails and the fast
 * path is never used; jitless skips the probe and keeps the server off code generation with or without the
 * flag. `globalThis.__zod_globalConfig` is the object `z.config()` writes to, shared by every copy of zod 4 by
 * design: setting it here needs no import of zod.
 */
const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
holder.__zod_globalConfig ??= {};
holder.__zod_globalConfig.jitless = true;

export {};
