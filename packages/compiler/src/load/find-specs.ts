/**
 * Which files a build reads: the inputs expanded, each checked to be a regular file (or a link to one) before
 * anything reads it.
 */
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { CODES } from "../diagnostics/codes.ts";
import type { Diagnostic } from "../diagnostics/diagnostic.ts";
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
  const cliDiagnostic = (
    code: "KV9001" | "KV9002" | "KV9009" | "KV9011",
    file: string,
    message: string,
  ): Diagnostic => ({
    code,
    severity: "error",
    file,
    line: 1,
    column: 1,
    path: "",
    message,
  });
  /** Follows a symbolic link: the target's kind, or why it cannot be followed. */
  const follow = async (path: string): Promise<Stats | string> => {
    try {
      return await stat(path);
    } catch (error) {
      return errorCode(error);
    }
  };
  const brokenLink = (path: string, code: string): Diagnostic =>
    cliDiagnostic(
      "KV9009",
      path,
      code === "ENOENT"
        ? CODES.KV9009.messages.brokenLink({ file: path })
        : CODES.KV9009.messages.unfollowableLink({ file: path, code }),
    );
  const notAFile = (path: string, info: Stats, link: boolean): Diagnostic =>
    cliDiagnostic(
      "KV9009",
      path,
      CODES.KV9009.messages.notRegularFile({
        file: path,
        what: link ? `a symbolic link to ${fileKind(info)}` : fileKind(info),
      }),
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
          : cliDiagnostic(
              "KV9002",
              input,
              info === "ENOENT"
                ? CODES.KV9002.messages.missing({ path: input })
                : CODES.KV9002.messages.unreadable({ path: input, code: info }),
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
        cliDiagnostic(
          "KV9002",
          input,
          CODES.KV9002.messages.unreadable({ path: input, code: String(errorCode(error)) }),
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
            cliDiagnostic("KV9011", path, CODES.KV9011.messages.linkOutside({ file: path, folder: input })),
          );
      } else {
        const info = await lstat(path).catch(() => null);
        diagnostics.push(
          info === null
            ? cliDiagnostic("KV9002", path, CODES.KV9002.messages.missing({ path }))
            : notAFile(path, info, false),
        );
      }
    }
    if (named === 0) diagnostics.push(cliDiagnostic("KV9001", input, CODES.KV9001.messages.noSpecFiles({ input })));
  }
  return { files: [...files].sort(), diagnostics };
}
