/**
 * Writing a file tree: folders first, then the files a few at a time. A package has hundreds of small files, and
 * writing them one after another spends most of the time waiting on the file system.
 *
 * Every path goes through `inside`: a file path that would leave `root` (an absolute path, a `..` segment) is
 * refused before anything is written.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { inside } from "./inside.ts";

const CONCURRENT_WRITES = 32;

export async function writeFiles(
  root: string,
  files: ReadonlyMap<string, string>,
  mode: (path: string) => number | undefined = () => undefined,
): Promise<void> {
  const targets = new Map([...files.keys()].map((path) => [path, inside(root, path)]));
  const folders = new Set<string>();
  for (const target of targets.values()) folders.add(dirname(target));
  for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true });
  const entries = [...files.entries()];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const [path, text] = entries[next++]!;
      const m = mode(path);
      await writeFile(targets.get(path)!, text, m === undefined ? {} : { mode: m });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_WRITES, entries.length) }, worker));
}
