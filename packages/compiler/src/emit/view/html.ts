/**
 * A tool's view page (kervanc extension views), up to its renderer script: fixed markup and style, a
 * Content-Security-Policy of its own, and the tool's view description (model.ts) as JSON. No spec text is ever
 * written into the markup: the description goes only into the `<script type="application/json">` element,
 * through code.ts's `htmlScriptJson`, and the renderer inserts every value as text.
 *
 * The page's own policy allows exactly its one script and its one style (by hash) and nothing else: no
 * connection, image, font, frame, form or base URL. The MCP Apps metadata the server sends with it declares no
 * network access either (runtime serve/views.ts), so a host's policy, built from it, is as strict.
 */
import { htmlScriptJson } from "../code/code.ts";
import { sha256Base64 } from "../code/hash.ts";
import type { ViewModel } from "../../plan/view-model.ts";

export const VIEW_STYLE = `:root{color-scheme:light dark;font-family:var(--font-sans,system-ui,sans-serif);font-size:var(--font-text-sm-size,14px);color:var(--color-text-primary,CanvasText);background:var(--color-background-primary,Canvas)}
body{margin:0;padding:12px}
.title{font-size:var(--font-heading-sm-size,16px);margin:0 0 8px}
.count,.more{color:var(--color-text-secondary,GrayText);margin:4px 0}
.table-wrap{overflow:auto;max-height:70vh}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:4px 8px;border-bottom:1px solid var(--color-border-primary,#8884);overflow-wrap:anywhere}
th{position:sticky;top:0;background:var(--color-background-secondary,Canvas)}
.number{font-variant-numeric:tabular-nums}
.empty{color:var(--color-text-secondary,GrayText)}
.json{font-family:var(--font-mono,ui-monospace,monospace);font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere}
.link{color:var(--color-text-info,LinkText);text-decoration:underline;cursor:pointer}
dl.card{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0}
dl.card dt{font-weight:600}
dl.card dd{margin:0}
.error{color:var(--color-text-danger,#c00)}`;

/**
 * The page's own Content-Security-Policy: its one script and its one style, nothing else (and, for the standalone
 * page `kervanc view` writes, its host stand-in script, by hash too).
 */
export function viewPolicy(rendererSha256: string, otherScripts: readonly string[] = []): string {
  const scripts = [...otherScripts.map(sha256Base64), rendererSha256].map((hash) => `'sha256-${hash}'`);
  return [
    "default-src 'none'",
    `script-src ${scripts.join(" ")}`,
    `style-src 'sha256-${sha256Base64(VIEW_STYLE)}'`,
    "img-src 'none'",
    "font-src 'none'",
    "connect-src 'none'",
    "media-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/**
 * What `kervanc view` adds to a page (standalone.ts): JSON data elements and scripts that run before the renderer.
 * A server's pages have none.
 */
export interface PageExtras {
  readonly data: readonly { readonly id: string; readonly value: unknown }[];
  readonly scripts: readonly string[];
}

/** The page up to its renderer script (`ViewResource.head`; the runtime's `viewHtml` adds the rest). */
export function viewPageHead(model: ViewModel, rendererSha256: string, extras?: PageExtras): string {
  const policy = viewPolicy(rendererSha256, extras?.scripts);
  if (!/^[\x20-\x7e]+$/.test(policy) || policy.includes('"')) throw new Error("A view policy must be plain ASCII.");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<style>${VIEW_STYLE}</style>
</head>
<body>
<main id="kervanc-view" aria-live="polite"></main>
<script type="application/json" id="kervanc-view-model">
${htmlScriptJson(model)}
</script>
${extras === undefined ? "" : extraElements(extras)}<script>`;
}

function extraElements(extras: PageExtras): string {
  const out: string[] = [];
  for (const { id, value } of extras.data) {
    if (!/^[a-z][a-z0-9-]*$/.test(id)) throw new Error(`A view data element's id must be plain: ${id}`);
    out.push(`<script type="application/json" id="${id}">\n${htmlScriptJson(value)}\n</script>\n`);
  }
  for (const script of extras.scripts) {
    if (/<\/script|<!--|<script/i.test(script))
      throw new Error("A view script must not open or end a <script> element.");
    out.push(`<script>${script}</script>\n`);
  }
  return out.join("");
}
