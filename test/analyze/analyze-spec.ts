/** For the rule tests: a spec's text through load and analyze, as the build sees it (no file system). */
import { compileSpec } from "../../packages/compiler/src/compile.ts";

export interface Found {
  readonly code: string;
  readonly severity: string;
  readonly path: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

export function analyze(yaml: string): Found[] {
  return compileSpec("spec.yaml", new TextEncoder().encode(yaml)).diagnostics.map(
    ({ code, severity, path, message, line, column }) => ({ code, severity, path, message, line, column }),
  );
}

/** The findings of one code (KV8001, the note that a spec uses an extension, is left out unless asked for). */
export function findings(yaml: string, code: string): Found[] {
  return analyze(yaml).filter((d) => d.code === code);
}

/** A spec with one tool; `tool` is the tool's YAML after `- name: t`, indented by 4. */
export function oneTool(tool: string, top = ""): string {
  return `specVersion: 1\nname: s\nversion: "1"\n${top}tools:\n  - name: t\n    description: A tool.\n${tool}`;
}
