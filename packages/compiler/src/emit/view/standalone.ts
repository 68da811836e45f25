/**
 * The standalone page `kervanc view` writes: a tool's view page, as the server serves it, with a given tool result
 * rendered, for a person to open in a browser without an MCP Apps host.
 *
 * The renderer is unchanged: the page gets one more script, before the renderer's, that stands in for the host on
 * the same ext-apps message path a host uses. Opened as a top-level page, the App client's "parent" is the page's
 * own window, so its messages come back to the page itself: the stand-in takes the App's messages before the App
 * sees them (a capturing listener registered first, stopping them there), answers `ui/initialize` with a host
 * context from the browser (theme, locale, time zone), and after `ui/notifications/initialized` sends
 * `ui/notifications/tool-input` and `ui/notifications/tool-result` with the given result. Every other request
 * (`ui/open-link`, ...) gets an error: nothing opens, nothing is fetched.
 *
 * The result goes into the page as JSON in a `<script type="application/json">` element (escaped like the view
 * description); the page's policy allows the stand-in by its hash, next to the renderer's, and still nothing else.
 */
import { viewHtml } from "@kervanc/runtime/views";
import type { ViewModel } from "../../plan/view-model.ts";
import type { PrebuiltViewRenderer } from "../bundle/prebuilt-format.ts";
import { viewPageHead } from "./html.ts";

export const STANDALONE_RESULT_ID = "kervanc-view-result";

/** The host stand-in (plain ES2020, run as it is; its hash goes into the page's policy). */
export const STANDALONE_HOST = `(() => {
  "use strict";
  const result = JSON.parse(document.getElementById("${STANDALONE_RESULT_ID}").textContent);
  const fromHost = new Set(["ui/notifications/tool-input", "ui/notifications/tool-result", "ui/notifications/host-context-changed"]);
  const post = (message) => window.postMessage(message, "*");
  const context = {
    theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    platform: "web",
  };
  window.addEventListener("message", (event) => {
    const m = event.data;
    if (event.source !== window || m === null || typeof m !== "object" || m.jsonrpc !== "2.0") return;
    if (typeof m.method !== "string" || fromHost.has(m.method)) return;
    event.stopImmediatePropagation();
    if (m.id === undefined || m.id === null) {
      if (m.method === "ui/notifications/initialized") {
        post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: {} } });
        post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result });
      }
      return;
    }
    if (m.method === "ui/initialize")
      post({
        jsonrpc: "2.0",
        id: m.id,
        result: {
          protocolVersion: m.params && m.params.protocolVersion,
          hostInfo: { name: "kervanc view", version: "1" },
          hostCapabilities: {},
          hostContext: context,
        },
      });
    else post({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "No host: this is a page kervanc view wrote." } });
  }, true);
})();`;

/** The tool result as the server sends it (`content`, `structuredContent`, `isError`). */
export interface StandaloneResult {
  readonly content: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

/** The whole page: the view's page with the given result and the host stand-in. */
export function standaloneViewPage(model: ViewModel, renderer: PrebuiltViewRenderer, result: StandaloneResult): string {
  const head = viewPageHead(model, renderer.sha256, {
    data: [{ id: STANDALONE_RESULT_ID, value: result }],
    scripts: [STANDALONE_HOST],
  });
  return viewHtml(
    { uri: "ui://kervanc-view/standalone", name: "standalone", description: model.title, head },
    renderer.code,
  );
}
