/**
 * Which files a build reads: the inputs expanded, each checked to be a regular file (or a link to one) before
 * anything reads it.
 */
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { type Diagnostic, type Finding, report, toDiagnostic, WHOLE_FILE } from "../diagnostics/diagnostic.ts";
import { leadsInside } from "./links.ts";
import { errorCode, fileKind } from "./regular-file.ts";

const SPEC_EXTENSIONS = new Set([".yaml", ".yml"]);
/** Spec-test files (`kervanc test`) sit next to their specs; they are not specs. */
const TEST_FILE = /\.test\.ya?ml$/i;

/**
 * Expands the inputs: files as given, folders to their `*.yaml`/`*.yml` files (not recursive, and not the
 * `*.test.yaml` files of `kervanc test`), sorted. A symbolic
 * link to a regular file is a spec like the file itself (in a folder as on the command line); anything else with
 * a spec's name (a dangling link, a link to a folder, a fifo, a socket, a device) is reported, never skipped
 * without a word and never read (reading a fifo blocks). Subfolders are not searched, whatever their name.
 * A link found in a folder must lead to a file inside that folder (KV9011), unless `followLinksOutside`; a file
 * named on the command line is read wherever a link leads, since the user named it.
 */
export async function findSpecs(
  inputs: readonly string[],
  options: { readonly followLinksOutside?: boolean } = {},
): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  // Errors about the file as a whole, placed at its start.
  const whole = (file: string, finding: Finding): Diagnostic => toDiagnostic(file, WHOLE_FILE, finding);
  /** Follows a symbolic link: the target's kind, or why it cannot be followed. */
  const follow = async (path: string): Promise<Stats | string> => {
    try {
      return await stat(path);
    } catch (error) {
      return errorCode(error);
    }
  };
  const brokenLink = (path: string, code: string): Diagnostic =>
    whole(
      path,
      report("KV9009", [], (m) =>
        code === "ENOENT" ? m.brokenLink({ file: path }) : m.unfollowableLink({ file: path, code }),
      ),
    );
  const notAFile = (path: string, info: Stats, link: boolean): Diagnostic =>
    whole(
      path,
      report("KV9009", [], (m) =>
        m.notRegularFile({ file: path, what: link ? `a symbolic link to ${fileKind(info)}` : fileKind(info) }),
      ),
    );
  // A file named on the command line is the user's choice: found again in a folder, its link is read too.
  const namedFiles = new Set(inputs.map((input) => join(input)));
  for (const input of inputs) {
    const info = await follow(input);
    if (typeof info === "string") {
      const link = await lstat(input).then(
        (l) => l.isSymbolicLink(),
        () => false,
      );
      diagnostics.push(
        link
          ? brokenLink(input, info)
          : whole(
              input,
              report("KV9002", [], (m) =>
                info === "ENOENT" ? m.missing({ path: input }) : m.unreadable({ path: input, code: info }),
              ),
            ),
      );
      continue;
    }
    if (info.isFile()) {
      files.add(input);
      continue;
    }
    if (!info.isDirectory()) {
      diagnostics.push(
        notAFile(
          input,
          info,
          await lstat(input).then(
            (l) => l.isSymbolicLink(),
            () => false,
          ),
        ),
      );
      continue;
    }
    let entries: Dirent[];
    try {
      entries = await readdir(input, { withFileTypes: true });
    } catch (error) {
      diagnostics.push(
        whole(
          input,
          report("KV9002", [], (m) => m.unreadable({ path: input, code: String(errorCode(error)) })),
        ),
      );
      continue;
    }
    let named = 0;
    for (const e of entries) {
      if (!SPEC_EXTENSIONS.has(extname(e.name).toLowerCase()) || TEST_FILE.test(e.name) || e.isDirectory()) continue;
      named++;
      const path = join(input, e.name);
      if (e.isFile()) files.add(path);
      else if (e.isSymbolicLink()) {
        const target = await follow(path);
        if (typeof target === "string") diagnostics.push(brokenLink(path, target));
        else if (!target.isFile()) diagnostics.push(notAFile(path, target, true));
        else if (options.followLinksOutside === true || namedFiles.has(path) || (await leadsInside(input, path)))
          files.add(path);
        else
          diagnostics.push(
            whole(
              path,
              report("KV9011", [], (m) => m.linkOutside({ file: path, folder: input })),
            ),
          );
      } else {
        const info = await lstat(path).catch(() => null);
        diagnostics.push(
          info === null
            ? whole(
                path,
                report("KV9002", [], (m) => m.missing({ path })),
              )
            : notAFile(path, info, false),
        );
      }
    }
    if (named === 0)
      diagnostics.push(
        whole(
          input,
          report("KV9001", [], (m) => m.noSpecFiles({ input })),
        ),
      );
  }
  return { files: [...files].sort(), diagnostics };
}
