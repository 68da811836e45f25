/**
 * Which test files `kervanc test` runs: a folder gives its `*.test.yaml` files (not recursive), a test file
 * itself, a spec its companion. Each test file is paired with the spec next to it (`<name>.yaml` or `.yml`).
 */
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type Diagnostic, type Finding, report, toDiagnostic, WHOLE_FILE } from "../diagnostics/diagnostic.ts";
import { leadsInside } from "../load/links.ts";
import { TEST_FILE } from "./test-file-shape.ts";

export interface TestPair {
  readonly testFile: string;
  readonly specFile: string;
}

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

async function firstFile(paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) if (await isFile(p)) return p;
  return undefined;
}

export async function findTests(
  inputs: readonly string[],
  options: { readonly followLinksOutside?: boolean } = {},
): Promise<{ pairs: TestPair[]; diagnostics: Diagnostic[] }> {
  const pairs: TestPair[] = [];
  const diagnostics: Diagnostic[] = [];
  const problem = (file: string, finding: Finding): void => {
    diagnostics.push(toDiagnostic(file, WHOLE_FILE, finding));
  };
  /**
   * A file found here rather than named (a folder's test files, a test's spec, a spec's test): read only when it
   * lies inside its folder (load/links.ts), or with --follow-links-outside.
   */
  const found = async (file: string): Promise<boolean> => {
    if (options.followLinksOutside === true || (await leadsInside(dirname(file), file))) return true;
    problem(
      file,
      report("KV9011", [], (m) => m.linkOutside({ file, folder: dirname(file) })),
    );
    return false;
  };
  const pairTest = async (testFile: string, named: boolean): Promise<void> => {
    if (!named && !(await found(testFile))) return;
    const stem = basename(testFile).replace(TEST_FILE, "");
    const candidates = [".yaml", ".yml"].map((ext) => join(dirname(testFile), `${stem}${ext}`));
    const specFile = await firstFile(candidates);
    if (specFile === undefined)
      problem(
        testFile,
        report("KV9010", [], (m) => m.noSpec({ candidates: candidates.map((c) => basename(c)).join(" or ") })),
      );
    else if (await found(specFile)) pairs.push({ testFile, specFile });
  };
  for (const input of inputs) {
    const info = await stat(input).catch(() => null);
    if (info === null) {
      problem(
        input,
        report("KV9002", [], (m) => m.missing({ path: input })),
      );
    } else if (info.isDirectory()) {
      const names = (await readdir(input)).filter((n) => TEST_FILE.test(n)).sort();
      if (names.length === 0)
        problem(
          input,
          report("KV9001", [], (m) => m.noSpecTests({ input })),
        );
      for (const name of names) await pairTest(join(input, name), false);
    } else if (TEST_FILE.test(input)) {
      await pairTest(input, true);
    } else {
      const stem = basename(input).replace(/\.ya?ml$/i, "");
      const testFile = await firstFile([".test.yaml", ".test.yml"].map((ext) => join(dirname(input), `${stem}${ext}`)));
      if (testFile === undefined)
        problem(
          input,
          report("KV9001", [], (m) => m.noTestFile({ stem })),
        );
      else if (await found(testFile)) pairs.push({ testFile, specFile: input });
    }
  }
  return { pairs, diagnostics };
}
