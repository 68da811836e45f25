/**
 * `kervanc mcpb <package-dir> -o <file.mcpb>`: a generated package as an MCP Bundle that a desktop client
 * installs in one click. The archive holds only what the server needs: the bundle (`server.mjs`), the MCPB
 * manifest, the package's README and its third-party notices. The bundle must be the one kervanc built (its
 * hash is checked against the package's manifest.json), so a hand-edited server never ships.
 */
import { createHash } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Io } from "./io.ts";
import { type Manifest, parseManifest } from "../emit/files/manifest.ts";
import { SECRET_NAME, TOOL_NAME } from "../analyze/spec-format.ts";
import { errorCode, readRegularFile } from "../load/regular-file.ts";
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

/**
 * No file of a package is larger (a bundle is a few MiB): a folder that holds a larger one is not read whole into
 * memory to find that out.
 */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** The files of the package that go into the archive, under the same names. */
const SHIPPED = [TARGET.node.file, "README.md", "THIRD_PARTY_NOTICES.md"] as const;

export async function mcpbCommand(command: McpbCommand, io: Io): Promise<number> {
  if (!command.out.endsWith(".mcpb"))
    throw new UsageError(`the bundle's file name must end in .mcpb, not "${printable(basename(command.out))}".`);
  const fail = (message: string): number => {
    io.stderr(`kervanc mcpb: ${message}\n`);
    return 1;
  };
  // Each file is read only if it is a regular file of its own: a package folder from a cloned repository may hold a
  // link (README.md -> ~/.ssh/id_ed25519 would be packed into a bundle that gets published) or a named pipe
  // (reading would wait forever).
  // Why a file was not read, first one first (a list, which the checks after each read see grow).
  const refusals: string[] = [];
  const read = async (name: string): Promise<Buffer | null> => {
    const got = await readRegularFile(join(command.packageDir, name), { noFollow: true, maxBytes: MAX_FILE_BYTES });
    if (got.ok) return Buffer.from(got.bytes);
    if (got.what !== undefined)
      refusals.push(`${printable(join(command.packageDir, name))} is ${got.what}, not a file`);
    else if (got.size !== undefined)
      refusals.push(
        `${printable(join(command.packageDir, name))} is ${count(got.size)} bytes, larger than any file of a package`,
      );
    return null;
  };
  const manifestBytes = await read("manifest.json");
  if (refusals.length > 0) return fail(`${refusals[0]}; nothing was written.`);
  const manifest = manifestBytes === null ? null : shippable(parseManifest(manifestBytes.toString("utf8")));
  if (manifest === null)
    return fail(
      `${printable(command.packageDir)} is not a package this kervanc built (no readable manifest.json); build it first.`,
    );
  const pkg = await read("package.json");
  if (refusals.length > 0) return fail(`${refusals[0]}; nothing was written.`);
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
    if (refusals.length > 0) return fail(`${refusals[0]}; nothing was written.`);
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
  // Written aside and renamed, so a reader never sees half an archive; "wx": never through a link or a file
  // already at the temporary name.
  const temp = join(dirname(command.out), `.${basename(command.out)}.${process.pid}.tmp`);
  let created = false;
  try {
    await mkdir(dirname(command.out), { recursive: true });
    await writeFile(temp, archive, { flag: "wx" });
    created = true;
    await rename(temp, command.out);
  } catch (error) {
    if (created) await rm(temp, { force: true });
    return fail(`cannot write ${printable(command.out)} (${errorCode(error)}).`);
  }
  const secrets = manifest.secrets.map((s) => s.name);
  io.stdout(
    `Wrote ${printable(command.out)} (${count(archive.length)} bytes): ${manifest.tools.length} tool${manifest.tools.length === 1 ? "" : "s"}` +
      `${secrets.length > 0 ? `; the client asks for ${printable(secrets.join(", "))} and keeps ${secrets.length === 1 ? "it" : "them"} in the keychain` : ""}.\n`,
  );
  return 0;
}

/**
 * The manifest, when what the bundle takes from it is what kervanc writes: secret and tool names by the spec's
 * rules (they become user_config keys and environment variable names), hosts as lists of text. A hand-made
 * manifest.json with a secret name that carries terminal escapes or template syntax, or a host list that is not
 * a list (which would stop kervanc with an exception), is not a package kervanc built: the bundle's hash in it
 * proves nothing about the rest.
 */
function shippable(manifest: Manifest | null): Manifest | null {
  if (manifest === null) return null;
  const secretName = new RegExp(SECRET_NAME);
  const toolName = new RegExp(TOOL_NAME);
  const texts = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === "string");
  const ok =
    manifest.secrets.every(
      (s) =>
        typeof s === "object" &&
        s !== null &&
        typeof s.name === "string" &&
        secretName.test(s.name) &&
        (s.hosts === undefined || s.hosts === null || texts(s.hosts)),
    ) &&
    manifest.tools.every(
      (t) => toolName.test(t.name) && texts(t.secrets) && typeof (t.description ?? "") === "string",
    ) &&
    manifest.egress.every((e) => typeof e === "object" && e !== null && typeof e.host === "string") &&
    typeof manifest.server.name === "string";
  return ok ? manifest : null;
}
