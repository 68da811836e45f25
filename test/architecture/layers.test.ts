/**
 * The compiler's module graph, read from the sources: no import cycles, no arrow from a stage back up to the CLI
 * or from the front half down into emit, and what does not write packages (kervanc import, and compile.ts that
 * every command shares) loads nothing of emit: not the bundler, not the formatter, not the package writers.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../packages/compiler/src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

interface Edge {
  readonly to: string;
  /** `import type`: erased, so it loads nothing, but it still ties the two modules together. */
  readonly typeOnly: boolean;
  /** `await import(...)`: loaded only when that code runs. */
  readonly lazy: boolean;
}

const STATIC = /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gm;
const DYNAMIC = /import\(\s*"([^"]+)"\s*\)/g;

const graph = new Map<string, Edge[]>();
for (const file of sources(SRC)) {
  const text = readFileSync(file, "utf8");
  const from = relative(SRC, file);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean, lazy: boolean): void => {
    const to = spec.startsWith(".") ? relative(SRC, normalize(join(dirname(file), spec))) : spec;
    edges.push({ to, typeOnly, lazy });
  };
  for (const m of text.matchAll(STATIC)) add(m[3]!, m[2] !== undefined, false);
  for (const m of text.matchAll(DYNAMIC)) add(m[1]!, false, true);
  graph.set(from, edges);
}

/** Everything `start` loads when it is imported: static, non-type imports, transitively. */
function loadedBy(start: string): Set<string> {
  const seen = new Set<string>([start]);
  const todo = [start];
  while (todo.length > 0) {
    for (const edge of graph.get(todo.pop()!) ?? []) {
      if (edge.typeOnly || edge.lazy || seen.has(edge.to)) continue;
      seen.add(edge.to);
      todo.push(edge.to);
    }
  }
  return seen;
}

describe("the compiler's module graph", () => {
  it("is read from the sources (the check below cannot pass on an empty graph)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("build.ts")?.some((e) => e.to === "compile-inputs.ts")).toBe(true);
  });

  it("has no import cycles, type imports included", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (node: string, path: string[]): void => {
      state.set(node, "open");
      for (const { to } of graph.get(node) ?? []) {
        if (!graph.has(to)) continue;
        if (state.get(to) === "open") cycles.push([...path.slice(path.indexOf(to)), to].join(" -> "));
        else if (!state.has(to)) visit(to, [...path, to]);
      }
      state.set(node, "done");
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node, [node]);
    expect(cycles).toEqual([]);
  });

  it("has no arrow from a stage up to the CLI", () => {
    const wrong = [...graph].flatMap(([from, edges]) =>
      !from.startsWith("cli") && from !== "index.ts"
        ? edges.filter((e) => e.to.startsWith("cli/") || e.to === "cli.ts").map((e) => `${from} -> ${e.to}`)
        : [],
    );
    expect(wrong).toEqual([]);
  });

  it("has no arrow from load, analyze, plan or diagnostics into emit", () => {
    const front = ["load/", "analyze/", "plan/", "diagnostics/", "compile.ts"];
    const wrong = [...graph].flatMap(([from, edges]) =>
      front.some((f) => from.startsWith(f))
        ? edges.filter((e) => e.to.startsWith("emit/")).map((e) => `${from} -> ${e.to}`)
        : [],
    );
    expect(wrong).toEqual([]);
  });

  it("loads nothing of emit, the bundler or the formatter for compile.ts and kervanc import", () => {
    for (const start of ["compile.ts", "import/command.ts"]) {
      const loaded = [...loadedBy(start)];
      expect(loaded.length, start).toBeGreaterThan(10);
      expect(
        loaded.filter((m) => /^(esbuild|prettier)/.test(m) || m.startsWith("emit/")),
        start,
      ).toEqual([]);
    }
  });

  it("loads the analysis stage for build and check only once a spec has loaded (a lazy import)", () => {
    for (const start of ["build.ts", "review/check.ts", "compile-inputs.ts"]) {
      const loaded = [...loadedBy(start)];
      expect(loaded, start).toContain("load/load.ts");
      expect(
        loaded.filter(
          (m) =>
            m === "compile.ts" ||
            m === "analyze/analyze.ts" ||
            m.startsWith("analyze/rules/") ||
            m.startsWith("ajv") ||
            m.startsWith("@jmespath"),
        ),
        start,
      ).toEqual([]);
    }
    expect(graph.get("compile-inputs.ts")?.some((e) => e.to === "compile.ts" && e.lazy)).toBe(true);
  });
});
