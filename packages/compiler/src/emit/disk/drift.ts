/**
 * Drift between a package kervanc would write (an in-memory FileTree) and the package on disk: which files
 * changed, are missing or are extra, and a short unified-style diff of each changed text file.
 *
 * Files are compared as bytes (the tree's text encoded as UTF-8), so a changed line ending or a BOM counts.
 */
import { readdir } from "node:fs/promises";
import { readRegularFile } from "../../load/regular-file.ts";
import { join, relative, sep } from "node:path";
import type { FileTree } from "../file-tree.ts";
import { compareStrings, longestLine } from "../code/hash.ts";
import { targetOfFile } from "../targets.ts";

export interface FileDrift {
  readonly path: string;
  readonly status: "changed" | "missing" | "extra";
  /** For changed text files: the first differing lines as a unified-style diff; null when not shown. */
  readonly diff: string | null;
  /** Why no diff is shown (a bundle, binary content, very long lines). */
  readonly note: string | null;
}

/** Lines of a diff shown per file; the rest is counted, not printed. */
export const DIFF_LINES = 20;
const CONTEXT = 2;

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join("/"))
    .sort(compareStrings);
}

/** Compares a package folder on disk with the tree a build would write. A missing folder means every file is missing. */
export async function comparePackage(expected: FileTree, dir: string): Promise<FileDrift[]> {
  let onDisk: string[];
  try {
    onDisk = await listFiles(dir);
  } catch (error) {
    if (
      typeof error === "object" &&
      error !== null &&
      "code" in error &&
      (error.code === "ENOENT" || error.code === "ENOTDIR")
    )
      onDisk = [];
    else throw error;
  }
  const drift: FileDrift[] = [];
  const present = new Set(onDisk);
  for (const [path, text] of expected) {
    if (!present.has(path)) {
      drift.push({ path, status: "missing", diff: null, note: null });
      continue;
    }
    // Not through a link, not from a fifo or a device: a committed package with README.md linked to a file
    // elsewhere on the CI machine must not get that file printed as a diff, and a fifo must not hang check.
    // A file much larger than expected differs whatever it holds and is not read: a committed folder may hold a
    // file of any size (reading gigabytes would exhaust memory, or fail past 2 GiB). Up to 16 MiB is read for
    // its diff.
    const expectedBytes = Buffer.byteLength(text, "utf8");
    const maxBytes = Math.max(expectedBytes, 16 * 1024 * 1024);
    const read = await readRegularFile(join(dir, path), { noFollow: true, maxBytes });
    if (!read.ok && read.size !== undefined) {
      drift.push({
        path,
        status: "changed",
        diff: null,
        note: `${read.size} bytes on disk, ${expectedBytes} expected`,
      });
      continue;
    }
    if (!read.ok) {
      if (read.what === undefined)
        throw Object.assign(new Error(`Cannot read ${join(dir, path)} (${read.code})`), {
          code: read.code,
          path: join(dir, path),
        });
      drift.push({ path, status: "changed", diff: null, note: `${read.what} on disk, not a file` });
      continue;
    }
    const actual = Buffer.from(read.bytes);
    const wanted = Buffer.from(text, "utf8");
    if (actual.equals(wanted)) continue;
    drift.push({ path, status: "changed", ...describeChange(path, actual, text) });
  }
  for (const path of onDisk) if (!expected.has(path)) drift.push({ path, status: "extra", diff: null, note: null });
  return drift.sort((a, b) => compareStrings(a.path, b.path));
}

function describeChange(path: string, actual: Buffer, expected: string): { diff: string | null; note: string | null } {
  const sizes = `${actual.length} bytes on disk, ${Buffer.byteLength(expected, "utf8")} expected`;
  if (targetOfFile(path) !== undefined) return { diff: null, note: `the minified bundle; ${sizes}` };
  if (actual.includes(0)) return { diff: null, note: `binary content on disk; ${sizes}` };
  const text = actual.toString("utf8");
  if (longestLine(text) > 2000 || longestLine(expected) > 2000)
    return { diff: null, note: `lines too long to show; ${sizes}` };
  const diff = unifiedDiff(text, expected, DIFF_LINES);
  // Byte differences that split into identical lines: line endings or a trailing newline.
  return diff === ""
    ? { diff: null, note: `differs only in line endings or the final newline; ${sizes}` }
    : { diff, note: null };
}

type Op = { readonly kind: " " | "-" | "+"; readonly line: string; readonly a: number; readonly b: number };

/**
 * A unified-style diff of `before` (on disk) against `after` (expected), with two lines of context, cut after
 * `maxChanged` added or removed lines. The common head and tail are skipped first; the middle is diffed with
 * a longest-common-subsequence table, or shown as replaced outright when it is too large for one.
 */
export function unifiedDiff(before: string, after: string, maxChanged: number): string {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops: Op[] = [];
  for (let i = Math.max(0, head - CONTEXT); i < head; i++) ops.push({ kind: " ", line: a[i]!, a: i, b: i });
  // A loop, not push(...): spreading a 150,000-line middle overflows the stack.
  for (const op of middleOps(midA, midB, head)) ops.push(op);
  for (let k = 0; k < Math.min(CONTEXT, tail); k++) {
    const i = a.length - tail + k;
    ops.push({ kind: " ", line: a[i]!, a: i, b: b.length - tail + k });
  }
  return render(ops, maxChanged);
}

function middleOps(a: readonly string[], b: readonly string[], offset: number): Op[] {
  const ops: Op[] = [];
  if (a.length * b.length > 4_000_000) {
    a.forEach((line, i) => ops.push({ kind: "-", line, a: offset + i, b: offset }));
    b.forEach((line, j) => ops.push({ kind: "+", line, a: offset + a.length, b: offset + j }));
    return ops;
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i]!, a: offset + i, b: offset + j });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removals before additions, as diff(1) prints them.
      ops.push({ kind: "-", line: a[i]!, a: offset + i, b: offset + j });
      i++;
    } else {
      ops.push({ kind: "+", line: b[j]!, a: offset + i, b: offset + j });
      j++;
    }
  }
  return ops;
}

/** Groups operations into hunks (changes closer than 2 × CONTEXT lines share one) and prints them. */
function render(ops: readonly Op[], maxChanged: number): string {
  const changed = ops.map((op, k) => (op.kind === " " ? -1 : k)).filter((k) => k >= 0);
  if (changed.length === 0) return "";
  const hunks: [number, number][] = [];
  for (const k of changed) {
    const start = Math.max(0, k - CONTEXT);
    const end = Math.min(ops.length - 1, k + CONTEXT);
    const last = hunks[hunks.length - 1];
    if (last && start <= last[1] + 1) last[1] = end;
    else hunks.push([start, end]);
  }
  const out: string[] = [];
  let shown = 0;
  for (const [start, end] of hunks) {
    if (shown >= maxChanged) break;
    const slice = ops.slice(start, end + 1);
    const first = slice[0]!;
    const countA = slice.filter((o) => o.kind !== "+").length;
    const countB = slice.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${first.a + 1},${countA} +${first.b + 1},${countB} @@`);
    for (const op of slice) {
      if (op.kind !== " ") {
        if (shown >= maxChanged) break;
        shown++;
      }
      out.push(`${op.kind}${op.line}`);
    }
  }
  if (changed.length > shown)
    out.push(`... ${changed.length - shown} more changed line${changed.length - shown === 1 ? "" : "s"}`);
  return out.join("\n");
}
