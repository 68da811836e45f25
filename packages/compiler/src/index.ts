/** The kervanc compiler's programmatic API. */
export { build, type BuildOptions, type BuildReport } from "./build.ts";
export { compileSpec, findSpecs, type CompiledSpec } from "./compile.ts";
export { run } from "./cli.ts";
export { CODES, type DiagnosticCode } from "./diagnostics/codes.ts";
export { formatDiagnostic, type Diagnostic } from "./diagnostics/diagnostic.ts";
export { SPEC_LIMITS, HTTP_DEFAULTS, specShape } from "./analyze/spec-format.ts";
