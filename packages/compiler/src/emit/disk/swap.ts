/**
 * Swapping a package into place. The package is written next to its place first, then renamed in, so readers
 * never see half a package; the old one is renamed aside before and deleted after, so a failure never leaves
 * none (a failed rename between deleting the old package and moving the new one in used to).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rename, rm } from "node:fs/promises";
import type { FileTree } from "../file-tree.ts";
import { childOf, inside } from "./inside.ts";
import { targetState } from "./package-folder.ts";
import { TARGETS } from "../targets.ts";
import { writeFiles } from "./write.ts";
import { errorCode } from "../../load/regular-file.ts";

/** The file system calls that swap a package in; tests replace them to make a step fail. */
export interface SwapFs {
  readonly rename: (from: string, to: string) => Promise<void>;
}

/**
 * Writes a package next to its final place, then swaps it in, so readers never see half a package and a failure
 * never leaves none: the old package is renamed aside first, the new one renamed in, and only then is the old
 * one deleted. If moving the new one in fails, the old one is renamed back.
 */
export async function writeTree(outDir: string, name: string, files: FileTree, fs: SwapFs = { rename }): Promise<void> {
  const target = childOf(outDir, name);
  const temp = await mkdtemp(inside(outDir, `.${name}.new-`));
  // mkdtemp makes the folder private (0700); a package is meant to be read like any other source folder.
  await chmod(temp, 0o755);
  let aside: string | null = null;
  try {
    await writeFiles(temp, files, (path) => (TARGETS.some((t) => t.executable && t.file === path) ? 0o755 : undefined));
    // Checked again right before the swap: the place may have changed since the build began.
    const state = await targetState(target);
    if (state.kind === "refused") throw new TargetRefusedError(target, state.reason);
    if (state.kind !== "absent") {
      const place = childOf(outDir, `.${name}.old-${randomBytes(6).toString("hex")}`);
      await fs.rename(target, place);
      aside = place;
    }
    await fs.rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if (aside === null) throw error;
    try {
      await fs.rename(aside, target);
    } catch (restore) {
      // The previous package is intact, only under another name: say where.
      throw Object.assign(new Error(`Cannot put the previous package back from ${aside}`), {
        code: errorCode(restore),
        syscall: "rename",
        path: aside,
      });
    }
    throw error;
  }
  if (aside !== null) await rm(aside, { recursive: true, force: true });
}

/** The place of a package holds something build must not replace (found at the moment of writing). */
export class TargetRefusedError extends Error {
  readonly target: string;
  readonly reason: string;
  constructor(target: string, reason: string) {
    super(`${target} ${reason}`);
    this.name = "TargetRefusedError";
    this.target = target;
    this.reason = reason;
  }
}
