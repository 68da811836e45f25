/**
 * A view page's text (kervanc views extension, serve/views.ts): its head, the renderer script shared by every
 * page, and a fixed end. Apart from serve/views.ts, which imports the SDK, so that the compiler, which writes the
 * same pages (`@kervanc/runtime/views`), loads none of the SDK or zod to do it.
 */
import type { ViewResource } from "../plan.ts";

/** What follows the renderer script in every page. */
export const VIEW_PAGE_END = "</script>\n</body>\n</html>\n";

export function viewHtml(resource: ViewResource, renderer: string): string {
  return `${resource.head}${renderer}${VIEW_PAGE_END}`;
}
