/**
 * A file tree as data, for asserting that a command changed nothing it must not touch: every entry under a
 * folder (links not followed) with its kind and contents.
 */
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";

export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name);
      const key = rel === "" ? name : `${rel}/${name}`;
      const info = await lstat(path);
      if (info.isSymbolicLink()) out[key] = `link -> ${await readlink(path)}`;
      else if (info.isDirectory()) {
        out[key] = "folder";
        await walk(path, key);
      } else if (info.isFile()) out[key] = `file ${await readFile(path, "utf8")}`;
      else out[key] = "other";
    }
  };
  await walk(root, "");
  return out;
}

/** A manifest.json as kervanc writes it (the fields build looks for), for a package "built" without building. */
export const KERVANC_MANIFEST = `${JSON.stringify({ manifestFormat: 1, kervancVersion: "0.0.1", spec: { file: "x.yaml", sha256: "0".repeat(64) } }, null, 2)}\n`;
