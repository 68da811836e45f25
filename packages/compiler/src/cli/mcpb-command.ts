/**
 * `kervanc mcpb <package-dir> -o <file.mcpb>`: a generated package as an MCP Bundle that a desktop client
 * installs in one click. The archive holds only what the server needs: the bundle (`server.mjs`), the MCPB
 * manifest, the package's README and its third-party notices. The bundle must be the one kervanc built (its
 * hash is checked against the package's manifest.json), so a hand-edited server never ships.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Io } from "../cli.ts";
import { parseManifest } from "../emit/manifest.ts";
import { count } from "../plan/budget.ts";
import { zipFiles } from "../mcpb/archive.ts";
import { type Author, mcpbManifest, parseAuthor } from "../mcpb/manifest.ts";
import { UsageError } from "./args.ts";
import { printable } from "./text.ts";
import { TARGET } from "../emit/targets.ts";

export interface McpbCommand {
  readonly packageDir: string;
  readonly out: string;
  readonly author: string | undefined;
}

/** The files of the package that go into the archive, under the same names. */
const SHIPPED = [TARGET.node.file, "README.md", "THIRD_PARTY_NOTICES.md"] as const;

export async function mcpbCommand(command: McpbCommand, io: Io): Promise<number> {
  if (!command.out.endsWith(".mcpb"))
    throw new UsageError(`the bundle's file name must end in .mcpb, not "${printable(basename(command.out))}".`);
  const fail = (message: string): number => {
    io.stderr(`kervanc mcpb: ${message}\n`);
    return 1;
  };
  const read = (name: string): Promise<Buffer | null> => readFile(join(command.packageDir, name)).catch(() => null);
  const manifestBytes = await read("manifest.json");
  const manifest = manifestBytes === null ? null : parseManifest(manifestBytes.toString("utf8"));
  if (manifest === null)
    return fail(
      `${printable(command.packageDir)} is not a package this kervanc built (no readable manifest.json); build it first.`,
    );
  const pkg = await read("package.json");
  let packageName: string;
  let packageVersion: string;
  try {
    ({ name: packageName, version: packageVersion } = JSON.parse(pkg?.toString("utf8") ?? "") as {
      name: string;
      version: string;
    });
  } catch {
    return fail(`${printable(join(command.packageDir, "package.json"))} cannot be read; rebuild the package.`);
  }
  const files = new Map<string, Uint8Array>();
  for (const name of SHIPPED) {
    const bytes = await read(name);
    if (bytes === null) return fail(`${printable(join(command.packageDir, name))} is missing; rebuild the package.`);
    files.set(name, bytes);
  }
  const recorded = manifest.bundles.find((b) => b.file === TARGET.node.file)?.sha256;
  const actual = createHash("sha256").update(files.get(TARGET.node.file)!).digest("hex");
  if (recorded !== actual)
    return fail(
      `${printable(join(command.packageDir, TARGET.node.file))} is not the bundle kervanc built (its sha256 differs from manifest.json); rebuild the package.`,
    );
  let author: Author = { name: `${manifest.server.name} maintainers` };
  if (command.author !== undefined) {
    const parsed = parseAuthor(command.author);
    if (parsed === null)
      throw new UsageError(`--author must be "Name" or "Name <email>", not "${printable(command.author)}".`);
    author = parsed;
  }
  const bundleManifest = mcpbManifest({ manifest, packageName, packageVersion, author });
  files.set("manifest.json", new TextEncoder().encode(`${JSON.stringify(bundleManifest, null, 2)}\n`));
  const archive = zipFiles(files);
  try {
    await mkdir(dirname(command.out), { recursive: true });
    // Written aside and renamed, so a reader never sees half an archive.
    const temp = `${command.out}.${process.pid}.tmp`;
    await writeFile(temp, archive);
    await rename(temp, command.out);
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "error";
    return fail(`cannot write ${printable(command.out)} (${code}).`);
  }
  const secrets = manifest.secrets.map((s) => s.name);
  io.stdout(
    `Wrote ${printable(command.out)} (${count(archive.length)} bytes): ${manifest.tools.length} tool${manifest.tools.length === 1 ? "" : "s"}` +
      `${secrets.length > 0 ? `; the client asks for ${secrets.join(", ")} and keeps ${secrets.length === 1 ? "it" : "them"} in the keychain` : ""}.\n`,
  );
  return 0;
}
