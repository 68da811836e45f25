/**
 * What is at a package's place in the output folder, and whether build may replace it.
 *
 * Build replaces only its own work: a folder whose manifest.json says kervanc made it. A file, a symbolic link
 * (even to a kervanc package: replacing it would replace the link, and the user made it for a reason), or a
 * folder without a kervanc manifest (`-o .` with a spec named `src.yaml` once deleted the project's `src/`) is
 * refused. An empty folder holds nothing to lose and is taken over (`mkdir dist/api` before the first build is
 * common).
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { errorCode, fileKind, readRegularFile } from "../../load/regular-file.ts";
import { jsonObject } from "../files/manifest.ts";

export type TargetState =
  | { readonly kind: "absent" }
  | { readonly kind: "empty" }
  | { readonly kind: "package" }
  /** `reason` completes "<path> ...": "is a file", "is a folder kervanc did not build (it has no manifest.json)". */
  | { readonly kind: "refused"; readonly reason: string };

/** A manifest.json larger than this is not one kervanc wrote (they are a few kilobytes). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export async function targetState(path: string): Promise<TargetState> {
  let info;
  try {
    info = await lstat(path);
  } catch (error) {
    // ENOTDIR: the output folder itself is a file; creating it reports that, with its path.
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return { kind: "absent" };
    throw error;
  }
  if (info.isSymbolicLink())
    return { kind: "refused", reason: "is a symbolic link, not a package folder kervanc built" };
  if (!info.isDirectory())
    return { kind: "refused", reason: `is ${fileKind(info)}, not a package folder kervanc built` };
  const manifest = join(path, "manifest.json");
  const manifestInfo = await lstat(manifest).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return null;
    throw error;
  });
  if (manifestInfo === null) {
    if ((await readdir(path)).length === 0) return { kind: "empty" };
    return { kind: "refused", reason: "is a folder kervanc did not build (it has no manifest.json)" };
  }
  const notOurs = {
    kind: "refused",
    reason: "is a folder kervanc did not build (its manifest.json is not one kervanc writes)",
  } as const;
  if (!manifestInfo.isFile() || manifestInfo.size > MAX_MANIFEST_BYTES) return notOurs;
  const read = await readRegularFile(manifest);
  if (!read.ok) {
    if (read.code !== undefined)
      throw Object.assign(new Error(`Cannot read ${manifest} (${read.code}).`), {
        code: read.code,
        syscall: "open",
        path: manifest,
      });
    return notOurs;
  }
  return madeByKervanc(new TextDecoder().decode(read.bytes)) ? { kind: "package" } : notOurs;
}

/**
 * Whether a manifest.json was written by kervanc, of any version. Looser than readStamp, which accepts only the
 * current manifest format: a package from an older kervanc is still kervanc's to replace.
 */
export function madeByKervanc(text: string): boolean {
  const m = jsonObject(text);
  if (m === null) return false;
  const spec = m["spec"];
  return (
    typeof m["manifestFormat"] === "number" &&
    typeof m["kervancVersion"] === "string" &&
    spec !== null &&
    typeof spec === "object" &&
    typeof (spec as Record<string, unknown>)["sha256"] === "string"
  );
}
