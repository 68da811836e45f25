/**
 * The runtime of kervanc-generated servers. This package is copied into every generated server; the
 * compiler imports only its types (the plan) from here.
 */
export type * from "./plan.ts";
export type { SelectNode } from "./select/ast.ts";
export { createServerFactory } from "./serve/mcp.ts";
export { ToolRunner, type RunnerOptions, MAX_ARGUMENT_ELEMENTS, TOOL_TIMEOUT_SLACK_MS } from "./call/runner.ts";
export { SecretVault, envSecrets, REDACTED, MIN_SECRET_LENGTH, type SecretSource } from "./secrets/secrets.ts";
export { ToolError } from "./call/errors.ts";
