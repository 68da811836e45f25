/**
 * Writing a file tree: folders first, then the files a few at a time. A package has hundreds of small files, and
 * writing them one after another spends most of the time waiting on the file system.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

const CONCURRENT_WRITES = 32;

export async function writeFiles(root: string, files: ReadonlyMap<string, string>, mode: (path: string) => number | undefined = () => undefined): Promise<void> {
  const folders = new Set<string>();
  for (const path of files.keys()) folders.add(dirname(join(root, path)));
  for (const folder of [...folders].sort()) await mkdir(folder, { recursive: true });
  const entries = [...files.entries()];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const [path, text] = entries[next++]!;
      const m = mode(path);
      await writeFile(join(root, path), text, m === undefined ? {} : { mode: m });
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_WRITES, entries.length) }, worker));
}
