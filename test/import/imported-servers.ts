/**
 * The set-up the import suites that run real servers share (servers.e2e, real.e2e): documents imported by the CLI
 * and pointed at local upstreams, built by the CLI, and tool calls checked against what the upstream received.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { TestClient, ToolResult } from "../helpers/clients.ts";
import { type CliResult, kervanc, REPO } from "../helpers/kervanc.ts";
import type { RecordedRequest, Upstream } from "../helpers/upstream.ts";

/** A document to import: its path in the repository, the spec it becomes (`<name>.yaml`) and its upstream. */
export interface ImportedDocument {
  readonly name: string;
  readonly document: string;
  readonly serverUrl: string;
  /** More options for kervanc import (`--binary-output`). */
  readonly args?: readonly string[];
}

/**
 * Imports every document at once into `<root>/specs`, each with --server-url, then builds that folder into
 * `<root>/out`. The results are returned, not asserted: each suite has a test that says what they must be.
 */
export async function importAndBuild(
  root: string,
  documents: readonly ImportedDocument[],
): Promise<{ imports: Record<string, CliResult>; built: CliResult }> {
  await mkdir(join(root, "specs"));
  const imports: Record<string, CliResult> = {};
  await Promise.all(
    documents.map(async ({ name, document, serverUrl, args = [] }) => {
      imports[name] = await kervanc([
        "import",
        join(REPO, document),
        "-o",
        join(root, "specs", `${name}.yaml`),
        "--server-url",
        serverUrl,
        ...args,
      ]);
    }),
  );
  const built = await kervanc(["build", join(root, "specs"), "-o", join(root, "out")]);
  return { imports, built };
}

/** Calls a tool and returns the one request the upstream saw for it. */
export async function call(
  c: TestClient,
  upstream: Upstream,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ result: ToolResult; request: RecordedRequest }> {
  const before = upstream.requests.length;
  const result = await c.callTool(tool, args);
  expect(upstream.requests.length, JSON.stringify(result)).toBe(before + 1);
  return { result, request: upstream.requests[before]! };
}
