/**
 * The last line of defence for every path build writes, renames or removes: it must lie strictly inside the
 * folder it belongs to. Package names are validated long before (package-name.ts); this check does not trust
 * that, so a mistake there, or a file path an emitter gets wrong, fails loudly instead of touching the user's
 * files.
 */
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

export class OutsideOutputError extends Error {
  readonly root: string;
  readonly target: string;
  constructor(root: string, target: string) {
    super(`Refusing to touch ${target}: it is not inside ${root}.`);
    this.name = "OutsideOutputError";
    this.root = root;
    this.target = target;
  }
}

/**
 * `root` joined with `path` (relative, any depth), resolved; throws unless the result is strictly inside `root`
 * (not `root` itself, not above it, not on another drive).
 */
export function inside(root: string, path: string): string {
  const base = resolve(root);
  const target = resolve(base, path);
  const rel = relative(base, target);
  if (rel === "" || isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(path))
    throw new OutsideOutputError(base, target);
  return target;
}

/** Like `inside`, for one folder entry: `name` must be a direct child of `root` (no separator, not `.`/`..`). */
export function childOf(root: string, name: string): string {
  const target = inside(root, name);
  if (dirname(target) !== resolve(root) || basename(target) !== name)
    throw new OutsideOutputError(resolve(root), target);
  return target;
}
