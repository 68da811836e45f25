/** `kervanc diff <old-out> <new-out>`: what changed between two output folders, for a reviewer. */
import { stat } from "node:fs/promises";
import type { Io } from "./io.ts";
import { terminalJson } from "../diagnostics/diagnostic.ts";
import { diffOutputs } from "../review/diff.ts";
import { renderMarkdown, renderText, reviewJson } from "../review/render.ts";
import type { ReviewFormat } from "./check-command.ts";
import { plural } from "./print.ts";
import { printable } from "./text.ts";

export async function diffCommand(before: string, after: string, format: ReviewFormat, io: Io): Promise<number> {
  for (const dir of [before, after]) {
    const isDir = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) {
      io.stderr(`kervanc diff: ${printable(dir)} is not a folder of generated packages.\n`);
      return 1;
    }
  }
  const reviews = await diffOutputs(before, after);
  const security = reviews.reduce((n, r) => n + (r.surface ?? []).filter((c) => c.security).length, 0);
  const verdict =
    reviews.length === 0
      ? `No package differs between ${printable(before)} and ${printable(after)}.`
      : `${plural(reviews.length, "package")} ${reviews.length === 1 ? "differs" : "differ"}${security > 0 ? `, with ${plural(security, "security-relevant change")}` : ""}.`;
  if (format === "json") io.stdout(`${terminalJson({ before, after, review: reviewJson(reviews) })}\n`);
  else if (format === "markdown")
    io.stdout(`${renderMarkdown(`kervanc diff: ${before} → ${after}`, reviews)}\n${verdict}\n`);
  else io.stdout(`${[...renderText(reviews), verdict].join("\n")}\n`);
  // Like diff(1): 0 when nothing differs, 1 when something does.
  return reviews.length === 0 ? 0 : 1;
}
