/**
 * Generated tools carry their plans as JSON text, parsed on first use (runtime/define.ts): a server starts
 * without reading any tool's plan, serves tools/list from the listing texts alone, and a plan, once read, is
 * deep-frozen like every plan.
 */
import { describe, expect, it } from "vitest";
import { compileInProcess } from "../helpers/inprocess.ts";
import { defineServer, defineTool } from "../../packages/runtime/src/define.ts";
import { listingSource, toolsList } from "../../packages/runtime/src/serve/mcp.ts";
import { ToolRunner } from "../../packages/runtime/src/call/runner.ts";
import { envSecrets, SecretVault } from "../../packages/runtime/src/secrets/secrets.ts";
import type { CompiledTool, CompiledValidator, ToolPlan } from "../../packages/runtime/src/plan.ts";

const SPEC = `specVersion: 1
name: lazy
version: "1.0.0"
secrets: [API_TOKEN]
tools:
  - name: get_item
    description: "Backquotes \` and \${x} and a backslash \\\\ stay data."
    input:
      type: object
      properties: { id: { type: integer } }
      required: [id]
    http:
      method: GET
      url: "https://api.example.com/items/{{ input.id }}"
      headers: { authorization: "Bearer {{ secrets.API_TOKEN }}" }
    output:
      select: "{id: id}"
`;

/** The generated form of a planned tool, as modules.ts writes it (JSON texts), with a plan text we choose. */
function generated(plan: ToolPlan, planText: string): CompiledTool {
  const { listing, ...rest } = plan;
  const ok = (() => true) as unknown as CompiledValidator;
  return defineTool({
    head: {
      name: listing.name,
      protocol: rest.request.protocol,
      hostPort: rest.request.hostPort,
      secrets: rest.secrets,
    },
    listing: JSON.stringify(listing, null, 2),
    plan: planText,
    validateInput: ok,
    validateOutput: null,
  });
}

function runner(tools: CompiledTool[], vault = new SecretVault()): ToolRunner {
  const server = defineServer({ name: "lazy", version: "1.0.0", secrets: [{ name: "API_TOKEN" }] }, tools);
  return new ToolRunner(server, {
    transport: { send: () => Promise.reject(new Error("no network in this test")), decoders: new Map() },
    secretSource: envSecrets({ API_TOKEN: "a-long-enough-token" }),
    vault,
    allowSecretsOverHttp: false,
    log: () => {},
  });
}

describe("plans parsed on first use", () => {
  const planned = compileInProcess(SPEC).tools[0]!.plan;
  const { listing: _listing, ...rest } = planned;

  it("starts, asks for secrets and lists tools without reading any plan", () => {
    // A plan text that cannot be parsed: any read of the plan before the first call would throw.
    const tool = generated(planned, "not JSON");
    const vault = new SecretVault();
    const r = runner([tool], vault);
    expect(r.prepareSecrets()).toEqual({ warnings: [], errors: [] });
    expect(vault.containsSecret("x a-long-enough-token x")).toBe(true);
    expect(r.has("get_item")).toBe(true);
    expect(JSON.stringify(toolsList([tool]))).toBe(JSON.stringify({ tools: [planned.listing] }));
    expect(() => tool.plan).toThrow(SyntaxError);
  });

  it("parses the plan once, to the planned value, deep-frozen", () => {
    const tool = generated(planned, JSON.stringify(rest, null, 2));
    const plan = tool.plan;
    expect(tool.plan).toBe(plan);
    expect(JSON.stringify(plan)).toBe(JSON.stringify(planned));
    expect(Object.isFrozen(plan)).toBe(true);
    expect(Object.isFrozen(plan.request.path.parts)).toBe(true);
    expect(Object.isFrozen(plan.listing.inputSchema)).toBe(true);
    expect(Object.isFrozen(toolsList([tool]).tools[0]!.inputSchema)).toBe(true);
  });

  it("answers the first tools/list with a result of its own, and later ones with one kept, frozen result", () => {
    const tool = generated(planned, "not JSON");
    const list = listingSource([tool]);
    const first = list();
    const second = list();
    const wire = JSON.stringify({ tools: [planned.listing] });
    expect(JSON.stringify(first)).toBe(wire);
    // The first result is used once: unfrozen, and not what later answers are made of.
    expect(Object.isFrozen(first.tools[0]!.inputSchema)).toBe(false);
    (first.tools[0]!.inputSchema as Record<string, unknown>)["type"] = "changed by the first answer";
    expect(JSON.stringify(second)).toBe(wire);
    expect(Object.isFrozen(second)).toBe(true);
    expect(Object.isFrozen(second.tools[0]!.inputSchema)).toBe(true);
    expect(list()).toBe(second);
    // Listing never read a plan.
    expect(() => tool.plan).toThrow(SyntaxError);
  });

  it("refuses a plan whose head says otherwise (a build fault), instead of calling another host", () => {
    const elsewhere = { ...rest, request: { ...rest.request, hostPort: "evil.example:443" } };
    const tool = generated(planned, JSON.stringify(elsewhere));
    expect(() => tool.plan).toThrow(/does not match its head/);
  });
});
