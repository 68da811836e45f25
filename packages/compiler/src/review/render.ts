/**
 * A review of generated packages (what `kervanc check` finds stale, or what `kervanc diff` finds between two
 * output folders) as text for a terminal, Markdown for a pull-request comment, or JSON. Each package shows its
 * surface summary first (what the model can call, where the server reaches, which secrets go where; security
 * relevant changes marked), then the files. Bundles are named as differing, never dumped.
 */
import type { FileDrift } from "../emit/disk/drift.ts";
import { oneLine, terminalSafe } from "../diagnostics/diagnostic.ts";
import { longestRun } from "../emit/code/hash.ts";
import { codeSpan, md } from "../emit/code/markdown.ts";
import { sortChanges, type SurfaceChange } from "./surface.ts";
import { cutIndex } from "@kervanc/runtime/cut";

export interface PackageReview {
  /** The package folder as the user names it (`servers/hn`). */
  readonly where: string;
  /** What happened to the package as a whole. */
  readonly status: "changed" | "added" | "removed";
  /** Null when a manifest could not be read (hand-edited, another format): then only files are compared. */
  readonly surface: readonly SurfaceChange[] | null;
  readonly files: readonly FileChange[];
}

export interface FileChange {
  readonly path: string;
  readonly status: "changed" | "added" | "removed";
  readonly diff: string | null;
  readonly note: string | null;
}

/** check's drift (from the committed folder's side: expected files are "missing", unexpected ones "extra"). */
export function fromDrift(drift: readonly FileDrift[]): FileChange[] {
  return drift.map((d) => ({
    path: d.path,
    status: d.status === "missing" ? "added" : d.status === "extra" ? "removed" : "changed",
    diff: d.diff,
    note: d.note,
  }));
}

const DESCRIPTION_SHOWN = 240;

function clip(text: string): string {
  return text.length > DESCRIPTION_SHOWN
    ? `${text.slice(0, cutIndex(text, DESCRIPTION_SHOWN))}… (${text.length} characters)`
    : text;
}

/** Before and after of a description, which is what changes most often and matters most to the model. */
function detail(c: SurfaceChange): string[] {
  if (c.field !== "description") return [];
  return [`before: ${JSON.stringify(clip(String(c.before)))}`, `after:  ${JSON.stringify(clip(String(c.after)))}`];
}

function counts(review: PackageReview): string {
  const surface = review.surface;
  const parts: string[] = [];
  if (surface === null) parts.push("surface unknown (a manifest.json could not be read)");
  else {
    const security = surface.filter((c) => c.security).length;
    parts.push(
      `${surface.length} surface change${surface.length === 1 ? "" : "s"}${security > 0 ? ` (${security} security-relevant)` : ""}`,
    );
  }
  parts.push(
    `${review.files.length} file${review.files.length === 1 ? "" : "s"} ${review.files.length === 1 ? "differs" : "differ"}`,
  );
  return parts.join(", ");
}

export function renderText(reviews: readonly PackageReview[]): string[] {
  const lines: string[] = [];
  for (const review of reviews) {
    const status =
      review.status === "changed" ? "" : ` (${review.status === "added" ? "new package" : "package removed"})`;
    lines.push(`${oneLine(review.where)}${status}: ${counts(review)}`);
    for (const c of sortChanges(review.surface ?? [])) {
      lines.push(`  ${c.security ? "[security] " : ""}${oneLine(c.summary)}`);
      for (const d of detail(c)) lines.push(`      ${oneLine(d)}`);
    }
    lines.push("  files:");
    for (const f of review.files)
      lines.push(`    ${f.status.padEnd(7)} ${oneLine(f.path)}${f.note ? ` (${f.note})` : ""}`);
    for (const f of review.files) {
      if (f.diff === null) continue;
      lines.push(
        "",
        `--- ${oneLine(review.where)}/${oneLine(f.path)} (before)`,
        `+++ ${oneLine(review.where)}/${oneLine(f.path)} (after)`,
        ...f.diff.split("\n").map((line) => oneLine(line)),
      );
    }
    lines.push("");
  }
  return lines;
}

export function renderMarkdown(title: string, reviews: readonly PackageReview[]): string {
  const lines: string[] = [`## ${md(title)}`, ""];
  if (reviews.length === 0) lines.push("No generated package differs.", "");
  for (const review of reviews) {
    const status =
      review.status === "changed" ? "" : review.status === "added" ? " (new package)" : " (package removed)";
    lines.push(`### ${codeSpan(review.where)}${status}`, "", `${md(counts(review))}.`, "");
    const surface = sortChanges(review.surface ?? []);
    if (surface.length > 0) {
      lines.push("| | change |", "| --- | --- |");
      for (const c of surface) {
        const more = detail(c)
          .map((d) => `<br>${md(d)}`)
          .join("");
        lines.push(`| ${c.security ? "⚠️ **security**" : ""} | ${md(c.summary)}${more} |`);
      }
      lines.push("");
    }
    lines.push("<details><summary>Files</summary>", "");
    for (const f of review.files) lines.push(`- ${f.status} ${codeSpan(f.path)}${f.note ? `: ${md(f.note)}` : ""}`);
    for (const f of review.files) {
      if (f.diff === null) continue;
      const longest = Math.max(2, longestRun(f.diff, "`"));
      const fence = "`".repeat(longest + 1);
      lines.push("", codeSpan(f.path), "", `${fence}diff`, f.diff, fence);
    }
    lines.push("", "</details>", "");
  }
  // Markdown is printed too (a CI log, a terminal): a control character from a file name or a file's content must
  // not drive the terminal there, so each is shown as \uXXXX, as in the text format.
  return terminalSafe(`${lines.join("\n").replace(/\n+$/, "")}\n`);
}

export function reviewJson(reviews: readonly PackageReview[]): unknown[] {
  return reviews.map((r) => ({
    where: r.where,
    status: r.status,
    surface: r.surface === null ? null : sortChanges(r.surface),
    files: r.files,
  }));
}
