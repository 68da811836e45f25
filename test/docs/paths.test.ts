/**
 * The documents name files that exist (issue 35): every repository path in a backticked span or a relative link of
 * README.md, CONTRIBUTING.md, BENCHMARKS.md and docs/**.md is found, as written from the repository's root, from
 * the document's folder, or (the recipes' short form) under packages/compiler/src or packages/runtime/src; and no
 * document cites a path outside the repository. Paths inside a generated package (`src/runtime/...`, `deploy/`),
 * placeholders (`<name>`) and globs are not repository paths.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/kervanc.ts";

function documents(): string[] {
  const docs: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(REPO, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) docs.push(path);
    }
  };
  walk("docs");
  return ["README.md", "CONTRIBUTING.md", "BENCHMARKS.md", ...docs];
}

const TOP = /^(packages|test|fixtures|docs|scripts|schema)\//;
const SHORT = /^(analyze|load|plan|emit|import|cli|review|devloop|spectest|diagnostics|mcpb|net|select)\/[\w./-]+\.ts$/;

/** The path-like references of a document: backticked spans (code) and link targets (link). */
function references(text: string): { ref: string; link: boolean }[] {
  const out: { ref: string; link: boolean }[] = [];
  for (const m of text.matchAll(/`([^`\s]+)`/g)) out.push({ ref: m[1]!, link: false });
  for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) out.push({ ref: m[1]!, link: true });
  return out;
}

function resolves(doc: string, ref: string): boolean {
  const path = ref.replace(/[:)]\d*$/, "").replace(/[.,;:]$/, "");
  const candidates = [
    join(REPO, path),
    join(REPO, dirname(doc), path),
    join(REPO, "packages/compiler/src", path),
    join(REPO, "packages/runtime/src", path),
  ];
  return candidates.some((c) => existsSync(c));
}

describe("the documents' paths", () => {
  for (const doc of documents()) {
    it(`${doc} names files that exist`, () => {
      const text = readFileSync(join(REPO, doc), "utf8");
      const missing = references(text)
        .filter(({ ref, link }) => {
          if (/[*<>{}$]|^https?:|^mailto:/.test(ref)) return false;
          const path = ref.replace(/^\.\//, "");
          if (!(TOP.test(path) || SHORT.test(path) || link)) return false;
          return !resolves(doc, path);
        })
        .map(({ ref }) => ref);
      expect(missing).toEqual([]);
    });

    it(`${doc} cites nothing outside the repository`, () => {
      const text = readFileSync(join(REPO, doc), "utf8");
      const outside = references(text)
        .map(({ ref }) => ref)
        .filter((ref) => {
          if (/^\/(work|home|root|tmp)\//.test(ref) || /(^|\/)shared\/(reference|seeds|data)\//.test(ref)) return true;
          if (!ref.startsWith("../")) return false;
          return relative(REPO, join(REPO, dirname(doc), ref)).startsWith("..");
        });
      expect(outside).toEqual([]);
    });
  }
});
