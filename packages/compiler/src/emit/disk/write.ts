/**
 * Writing a file tree: folders first, then the files.
 *
 * The writes are synchronous. A package has hundreds of small files (a 200-tool one about a thousand); written
 * through the thread pool, 32 at a time, a 200-tool package's 989 files took 35-470 ms on this project's shared
 * two-core machines, against 25-70 ms one after another on the main thread (the two ways timed in turn in one
 * script). Nothing else runs while a command writes a package, so blocking costs nothing.
 *
 * Every path goes through `inside`: a file path that would leave `root` (an absolute path, a `..` segment) is
 * refused before anything is written.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { inside } from "./inside.ts";

export async function writeFiles(
  root: string,
  files: ReadonlyMap<string, string>,
  mode: (path: string) => number | undefined = () => undefined,
): Promise<void> {
  const targets = new Map([...files.keys()].map((path) => [path, inside(root, path)]));
  const folders = new Set<string>();
  for (const target of targets.values()) folders.add(dirname(target));
  for (const folder of [...folders].sort()) mkdirSync(folder, { recursive: true });
  for (const [path, text] of files) {
    const m = mode(path);
    writeFileSync(targets.get(path)!, text, m === undefined ? {} : { mode: m });
  }
}
