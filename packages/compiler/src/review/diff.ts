/**
 * `kervanc diff <old-out> <new-out>`: the review of two output folders, such as a branch's committed servers
 * against main's. Every folder holding a kervanc package (a manifest.json) in either is compared: its surface
 * from the two manifests, its files byte for byte.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { comparePackage } from "../emit/drift.ts";
import type { FileTree } from "../emit/emit.ts";
import { compareStrings } from "../emit/hash.ts";
import { parseManifest } from "../emit/manifest.ts";
import { fromDrift, type PackageReview } from "./render.ts";
import { compareManifests } from "./surface.ts";

/** The folders of `out` that hold a package (a manifest.json), by name. */
async function packages(out: string): Promise<Set<string>> {
  const entries = await readdir(out, { withFileTypes: true });
  const found = new Set<string>();
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    const manifest = await readFile(join(out, e.name, "manifest.json"), "utf8").catch(() => null);
    if (manifest !== null) found.add(e.name);
  }
  return found;
}

async function readTree(dir: string): Promise<FileTree> {
  const tree: FileTree = new Map();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    tree.set(relative(dir, path).split(sep).join("/"), await readFile(path, "utf8"));
  }
  return tree;
}

async function manifestOf(dir: string): Promise<ReturnType<typeof parseManifest>> {
  return readFile(join(dir, "manifest.json"), "utf8").then(parseManifest, () => null);
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
