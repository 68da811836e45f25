/**
 * The files of the kervanc views extension in a package: `views/<tool>.html`, each tool's whole page as the
 * server serves it (for a reviewer, and for a person to open), `src/views/renderer.ts` (the renderer script, the
 * same for every page) and `src/views.ts` (each view's resource and page head; the server module passes them to
 * `defineServer`). Nothing here is written for a spec without views.
 */
import { viewHtml } from "@kervanc/runtime/views";
import type { CompiledViews, ViewResource } from "@kervanc/runtime";
import type { PlannedServer } from "../../plan/plan.ts";
import { Code, literal, ts } from "../code/code.ts";
import type { PrebuiltViewRenderer } from "../bundle/prebuilt-format.ts";
import { viewPageHead } from "./html.ts";

/** The views as the runtime takes them (`defineServer`'s third argument), or null for a spec without views. */
export function compiledViews(server: PlannedServer, renderer: PrebuiltViewRenderer): CompiledViews | null {
  if (server.views.length === 0) return null;
  const resources: ViewResource[] = server.views.map((view) => ({
    uri: view.uri,
    name: view.name,
    ...(view.title !== undefined ? { title: view.title } : {}),
    description: view.description,
    head: viewPageHead(view.model, renderer.sha256),
  }));
  return { renderer: renderer.code, resources };
}

/** `views/<tool>.html` for each view, by package path. */
export function viewPages(server: PlannedServer, views: CompiledViews): [string, string][] {
  return server.views.map((view, i) => [
    `views/${server.tools[view.tool]!.moduleName}.html`,
    viewHtml(views.resources[i]!, views.renderer),
  ]);
}

export function rendererModule(views: CompiledViews): Code {
  return ts`/** The view renderer (kervanc extension views): the same script in every view page; see views/*.html. */
export const renderer: string = ${literal(views.renderer)};
`;
}

/** `src/views.ts`: each view's resource, its page head (markup, style and the view description) as one string. */
export function viewsModule(views: CompiledViews): Code {
  const entries = views.resources.map(
    ({ head, ...resource }) => ts`    { ...${literal(resource)}, head: ${literal(head)} },`,
  );
  return ts`import type { CompiledViews } from "./runtime/plan.ts";
import { renderer } from "./views/renderer.ts";

/** The tools' MCP Apps views (kervanc extension views); each page is also in views/<tool>.html. */
export const views: CompiledViews = {
  renderer,
  resources: [
${new Code(entries.map((e) => e.text).join("\n"))}
  ],
};
`;
}
