/**
 * Reading a file that must be a regular file. Opening a named pipe (fifo) for reading blocks until something
 * writes to it, and reading a device such as /dev/zero never ends, so a spec path that is either would hang
 * kervanc. The file is opened without blocking and checked on the open handle (not by a `stat` of the path
 * beforehand, which a rename could make stale), and only a regular file is read.
 */
import { constants, type Stats } from "node:fs";
import { open } from "node:fs/promises";

export type RegularRead =
  | { readonly ok: true; readonly bytes: Uint8Array }
  /** The path is not a regular file: `what` says what it is ("a named pipe (fifo)"). */
  | { readonly ok: false; readonly what: string; readonly code?: undefined; readonly size?: undefined }
  /**
   * The file cannot be opened or read: `code` is the system's error code (ENOENT, EACCES, ...), or EFBIG when it
   * is larger than `maxBytes` (then `size` is its size, and nothing of it was read).
   */
  | { readonly ok: false; readonly code: string; readonly what?: undefined; readonly size?: number };

export async function readRegularFile(
  path: string,
  options: {
    readonly noFollow?: boolean;
    /** Larger files are not read (EFBIG): a file in a folder under review can be of any size. */
    readonly maxBytes?: number;
  } = {},
): Promise<RegularRead> {
  let handle;
  try {
    // O_NONBLOCK makes opening a fifo return at once; it changes nothing for a regular file. (Windows has no
    // fifos in the file system and no O_NONBLOCK.) O_NOFOLLOW refuses a symbolic link as the last component.
    const noFollow = options.noFollow === true ? (constants.O_NOFOLLOW ?? 0) : 0;
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | noFollow);
  } catch (error) {
    const code = errorCode(error);
    if (options.noFollow === true && code === "ELOOP") return { ok: false, what: "a symbolic link" };
    return { ok: false, code };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, what: fileKind(info) };
    if (options.maxBytes !== undefined && info.size > options.maxBytes)
      return { ok: false, code: "EFBIG", size: info.size };
    return { ok: true, bytes: await handle.readFile() };
  } catch (error) {
    return { ok: false, code: errorCode(error) };
  } finally {
    await handle.close();
  }
}

/** What a file system entry is, for messages: "a folder", "a named pipe (fifo)", ... */
export function fileKind(info: Stats): string {
  if (info.isFile()) return "a file";
  if (info.isDirectory()) return "a folder";
  if (info.isSymbolicLink()) return "a symbolic link";
  if (info.isFIFO()) return "a named pipe (fifo)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  return "not a regular file";
}

export function errorCode(error: unknown): string {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : "error";
}
