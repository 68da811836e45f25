/**
 * `kervanc diff <old-out> <new-out>`: the review of two output folders, such as a branch's committed servers
 * against main's. Every folder holding a kervanc package (a manifest.json) in either is compared: its surface
 * from the two manifests, its files byte for byte.
 */
import { lstat, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { comparePackage } from "../emit/disk/drift.ts";
import type { FileTree } from "../emit/file-tree.ts";
import { compareStrings } from "../emit/code/hash.ts";
import { parseManifest } from "../emit/files/manifest.ts";
import { MAX_MANIFEST_BYTES } from "../emit/disk/package-folder.ts";
import { readRegularFile } from "../load/regular-file.ts";
import { fromDrift, type PackageReview } from "./render.ts";
import { compareManifests } from "./surface.ts";

/**
 * The folders of `out` that hold a package (a manifest.json), by name. The manifest is looked at, not read: a
 * named pipe there would block a read forever, a link to a device would never end. One that is not a regular
 * file still marks a package, whose surface is then unknown and whose manifest.json shows as what it is.
 */
async function packages(out: string): Promise<Set<string>> {
  const entries = await readdir(out, { withFileTypes: true });
  const found = new Set<string>();
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    const manifest = await lstat(join(out, e.name, "manifest.json")).catch(() => null);
    if (manifest !== null) found.add(e.name);
  }
  return found;
}

/**
 * Files larger than this are not read (a generated package's largest file, a bundle, is a few MiB): a folder
 * under review may hold a file of any size, and reading one of gigabytes would exhaust memory.
 */
const MAX_REVIEWED_BYTES = 64 * 1024 * 1024;

/**
 * Every file of a package folder. Nothing is followed or waited on: a symbolic link, a fifo or a device in a
 * folder under review is shown as what it is, never read (a link could print a file from the reviewer's machine,
 * a fifo would hang).
 */
async function readTree(dir: string): Promise<FileTree> {
  const tree: FileTree = new Map();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (e.isDirectory()) continue;
    const path = join(e.parentPath, e.name);
    const read = await readRegularFile(path, { noFollow: true, maxBytes: MAX_REVIEWED_BYTES });
    const text = read.ok
      ? new TextDecoder().decode(read.bytes)
      : read.size !== undefined
        ? `(a file of ${read.size} bytes, too large to compare)\n`
        : `(not a regular file: ${read.what ?? read.code})\n`;
    tree.set(relative(dir, path).split(sep).join("/"), text);
  }
  return tree;
}

async function manifestOf(dir: string): Promise<ReturnType<typeof parseManifest>> {
  const read = await readRegularFile(join(dir, "manifest.json"), { noFollow: true, maxBytes: MAX_MANIFEST_BYTES });
  return read.ok ? parseManifest(new TextDecoder().decode(read.bytes)) : null;
}

/** The packages that differ between `before` and `after`, in name order. */
export async function diffOutputs(before: string, after: string): Promise<PackageReview[]> {
  const [oldPackages, newPackages] = await Promise.all([packages(before), packages(after)]);
  const names = [...new Set([...oldPackages, ...newPackages])].sort(compareStrings);
  const reviews: PackageReview[] = [];
  for (const name of names) {
    const oldDir = join(before, name);
    const newDir = join(after, name);
    const inOld = oldPackages.has(name);
    const inNew = newPackages.has(name);
    const tree = inNew ? await readTree(newDir) : new Map<string, string>();
    const drift = await comparePackage(tree, oldDir);
    if (drift.length === 0) continue;
    const oldManifest = inOld ? await manifestOf(oldDir) : null;
    const newManifest = inNew ? await manifestOf(newDir) : null;
    const readable = (!inOld || oldManifest !== null) && (!inNew || newManifest !== null);
    reviews.push({
      where: name,
      status: !inOld ? "added" : !inNew ? "removed" : "changed",
      surface: readable ? compareManifests(oldManifest, newManifest) : null,
      files: fromDrift(drift),
    });
  }
  return reviews;
}
