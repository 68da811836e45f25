/**
 * The kervanc views extension (docs/extensions/views.md): each tool with a view has an MCP Apps resource
 * (`ui://<server>/<tool>`, `text/html;profile=mcp-app`), a page written at build time and listed and read here.
 * The server compiles nothing: a page is its head, the renderer script shared by every page, and a fixed end.
 *
 * The metadata declares no network access at all (MCP Apps `_meta.ui.csp` with empty domain lists, no
 * permissions), so a host builds its most restrictive policy; the page carries its own policy too (a `<meta>`
 * Content-Security-Policy that allows only its own script and style), so it holds in a host that applies none.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { CompiledViews, ViewResource } from "../plan.ts";
import { viewHtml } from "./view-page.ts";

export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/** MCP Apps resource metadata: no connections, no outside resources, no frames, no permissions. */
export const VIEW_UI_META = {
  ui: {
    csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
    permissions: {},
    prefersBorder: true,
  },
} as const;

function listEntry(resource: ViewResource) {
  return {
    uri: resource.uri,
    name: resource.name,
    ...(resource.title !== undefined ? { title: resource.title } : {}),
    description: resource.description,
    mimeType: VIEW_MIME_TYPE,
    _meta: VIEW_UI_META,
  };
}

/**
 * What serves `resources/list`, `resources/templates/list` and `resources/read` for the views. The lookup and the
 * listing are made once, here: the returned function runs for every SDK server the factory makes, which is every
 * request over stateless HTTP.
 */
export function viewServing(views: CompiledViews): (server: Server) => void {
  const byUri = new Map(views.resources.map((r) => [r.uri, r]));
  const list = { resources: views.resources.map(listEntry) };
  const read = (uri: string) => {
    const resource = byUri.get(uri);
    if (resource === undefined)
      throw new ProtocolError(ProtocolErrorCode.ResourceNotFound, `Resource ${uri} not found`, { uri });
    return {
      contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: viewHtml(resource, views.renderer), _meta: VIEW_UI_META }],
    };
  };
  return (server) => {
    server.setRequestHandler("resources/list", () => list as never);
    server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }) as never);
    server.setRequestHandler("resources/read", (request) => read(request.params.uri) as never);
  };
}
