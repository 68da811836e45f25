/**
 * The runtime in-process: a spec compiled by the real compiler stages (load, check, plan) and run by the real
 * ToolRunner over the real Node transport, against a real upstream on 127.0.0.1. Fast enough for thousands of
 * calls in property tests; the process-level tests cover the bundle itself.
 */
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import type { CompiledServer, CompiledValidator } from "../../packages/runtime/src/plan.ts";
import {
  allowPrivateNetwork,
  createNetworkPolicy,
  type NetworkPolicyOptions,
} from "../../packages/runtime/src/net/address.ts";
import { LookupGate } from "../../packages/runtime/src/net/lookup-gate.ts";
import { createNodeTransport } from "../../packages/runtime/src/net/node-transport.ts";
import { ToolRunner } from "../../packages/runtime/src/call/runner.ts";
import { envSecrets, SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
import { defineServer } from "../../packages/runtime/src/define.ts";

export function compileInProcess(yamlText: string, file = "spec.yaml"): CompiledServer {
  const compiled = compileSpec(file, new TextEncoder().encode(yamlText));
  if (!compiled.planned) {
    throw new Error(
      `The spec does not compile:\n${compiled.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`).join("\n")}`,
    );
  }
  return defineServer(
    compiled.planned.plan,
    compiled.planned.tools.map((t) => ({
      plan: t.plan,
      ...(Object.keys(t.profiles).length > 0
        ? {
            profiles: Object.fromEntries(
              Object.entries(t.profiles).map(([name, rewrite]) => [name, JSON.stringify(rewrite!.listing)]),
            ),
          }
        : {}),
      validateInput: t.input.validate as unknown as CompiledValidator,
      validateOutput: (t.output?.validate ?? null) as unknown as CompiledValidator | null,
    })),
  );
}

export interface InProcess {
  readonly runner: ToolRunner;
  readonly vault: SecretVault;
  readonly logs: string[];
  call(
    name: string,
    args: unknown,
  ): Promise<{ content?: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean }>;
}

export function inProcess(
  yamlText: string,
  options: { env?: Record<string, string>; policy?: NetworkPolicyOptions; allowSecretsOverHttp?: boolean } = {},
): InProcess {
  const server = compileInProcess(yamlText);
  const vault = new SecretVault();
  const logs: string[] = [];
  const runner = new ToolRunner(server, {
    transport: createNodeTransport({
      policy: createNetworkPolicy(options.policy ?? allowPrivateNetwork()),
      gate: new LookupGate(2),
    }),
    secretSource: envSecrets(options.env ?? {}),
    vault,
    allowSecretsOverHttp: options.allowSecretsOverHttp ?? false,
    log: (line) => logs.push(line),
  });
  const prepared = runner.prepareSecrets();
  if (prepared.errors.length > 0) throw new Error(prepared.errors.join("\n"));
  logs.push(...prepared.warnings);
  return {
    runner,
    vault,
    logs,
    call: (name, args) => runner.call(name, args, new AbortController().signal) as never,
  };
}
