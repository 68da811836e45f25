/**
 * Package folder names. A package is written to `<out>/<spec file name without its extension>`, so the spec's
 * file name decides a path that build replaces. A name is accepted only when it is one ordinary folder name on
 * every system a package may be checked out on: `...yaml` (name `..`) once made build delete the parent of the
 * output folder, and `..yaml` (name `.`) the output folder itself.
 */

/** Windows device names: `CON`, `con.txt` and `COM1.json` all open the device, not a file. */
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;

/** Characters Windows refuses in a file name (besides the separators and control characters). */
const WINDOWS_RESERVED = /[<>:"|?*]/;

/** Control characters (C0, DEL, C1) and the invisible characters that reorder or hide text in a terminal. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** The longest name: one path component is at most 255 bytes on common file systems; leave room for staging. */
const MAX_NAME_BYTES = 200;

/** Why `name` cannot be a package folder name, or null when it can. */
export function packageNameProblem(name: string): string | null {
  if (name === "") return "is empty";
  if (name === ".") return "names the output folder itself, not a folder inside it";
  if (name === "..") return "names the folder above the output folder";
  if (name.includes("/") || name.includes("\\")) return "contains a path separator (/ or \\)";
  if (CONTROL.test(name)) return "contains a control or invisible character";
  // The staging folders (.name.new-…, .name.old-…) start with a dot, and check skips dot folders.
  if (name.startsWith(".")) return "starts with a dot (a hidden folder, and the prefix of kervanc's staging folders)";
  if (/[. ]$/.test(name)) return "ends with a dot or a space, which Windows drops (the folder would get another name)";
  if (WINDOWS_RESERVED.test(name)) return 'contains a character Windows refuses in a file name (< > : " | ? *)';
  const stem = name.split(".")[0]!.trimEnd();
  if (DEVICE.test(stem))
    return `is the Windows device name ${stem.toUpperCase()} (with any extension, it opens the device, not a folder)`;
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) return `is longer than ${MAX_NAME_BYTES} bytes`;
  return null;
}

/** The key two names collide under on a case-insensitive, normalising file system (Windows, macOS). */
export function folderKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}
