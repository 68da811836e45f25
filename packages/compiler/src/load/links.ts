/**
 * Where a link found in a folder leads. The files kervanc finds by itself in a folder (specs, spec tests, their
 * companions) are the folder's to choose, and so a pull request's: a link among them may point at any file the
 * build can read (`~/.aws/credentials`, the checkout's `.git/config` with its token, `/proc/self/environ`), and
 * what kervanc reads it may print into a build log. Such a file is read only when it lies inside the folder, with
 * every component of both paths resolved; a file the user names on the command line is read wherever it is.
 */
import { realpath } from "node:fs/promises";
import { sep } from "node:path";

export async function leadsInside(folder: string, path: string): Promise<boolean> {
  try {
    const [root, target] = await Promise.all([realpath(folder), realpath(path)]);
    return target.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
  } catch {
    return false;
  }
}
