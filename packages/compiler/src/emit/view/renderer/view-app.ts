/**
 * The script of every view page (kervanc extension views, docs/extensions/views.md): the same for every tool,
 * driven by the JSON description of the tool's output (model.ts) that the page carries in
 * `<script type="application/json" id="kervanc-view-model">`. Bundled with the ext-apps App client by prebuild.ts
 * (renderer-bundle.ts), once per kervanc version.
 *
 * It receives the tool result and the host's theme through the official ext-apps App API and renders a table or
 * a card. Every value is inserted as text (`textContent`, never markup), so a value that looks like HTML or a
 * script shows as text; a link is only an http(s) value whose schema says `format: uri`, and a click asks the
 * host to open it (`ui/open-link`): the page itself never navigates. It reads only the result it is given (no
 * request of its own) and bounds what it draws: rows, columns of nested values, depth and text length.
 */
import {
  App,
  applyDocumentTheme,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import type { ViewField, ViewModel } from "../../../plan/view-model.ts";

const model = JSON.parse(document.getElementById("kervanc-view-model")?.textContent ?? "null") as ViewModel;
const root = document.getElementById("kervanc-view") as HTMLElement;
const app = new App({ name: "kervanc-view", version: "1" }, {}, { autoResize: true });
let locale: string | undefined;
let timeZone: string | undefined;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Compact text of a nested value: JSON, cut at the depth and length limits. */
function compact(value: unknown, depth: number): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? String(value);
  if (depth >= model.maxDepth) return Array.isArray(value) ? "[…]" : "{…}";
  const parts: string[] = [];
  let length = 0;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const text = Array.isArray(value)
      ? compact(item, depth + 1)
      : `${JSON.stringify(key)}: ${compact(item, depth + 1)}`;
    parts.push(text);
    length += text.length;
    if (length > model.maxText) {
      parts.push("…");
      break;
    }
  }
  const body = parts.join(", ");
  return Array.isArray(value) ? `[${body}]` : `{${body}}`;
}

function cut(text: string): string {
  return text.length > model.maxText ? `${text.slice(0, model.maxText)}…` : text;
}

function formatNumber(value: number, field: ViewField): string {
  try {
    return new Intl.NumberFormat(locale, field.type === "integer" ? { maximumFractionDigits: 0 } : {}).format(value);
  } catch {
    return String(value);
  }
}

function formatDate(value: string, field: ViewField): string {
  const date = new Date(field.format === "date" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(date.getTime())) return value;
  try {
    return field.format === "date"
      ? new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(date)
      : new Intl.DateTimeFormat(locale, {
          dateStyle: "medium",
          timeStyle: "short",
          ...(timeZone ? { timeZone } : {}),
        }).format(date);
  } catch {
    return value;
  }
}

/** An http(s) URL, or null: anything else (javascript:, data:, relative) is text. */
function webUrl(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

function link(url: string, text: string): HTMLElement {
  // No href: the page never navigates; the host decides whether and where to open it.
  const a = el("a", "link", cut(text));
  a.setAttribute("role", "link");
  a.tabIndex = 0;
  a.title = url;
  const open = (event: Event): void => {
    event.preventDefault();
    void app.openLink({ url }).catch(() => undefined);
  };
  a.addEventListener("click", open);
  a.addEventListener("keydown", (event) => {
    if (event.key === "Enter") open(event);
  });
  return a;
}

/** One value as a node: text, a formatted number or date, a link, or compact JSON. */
function valueNode(value: unknown, field: ViewField, depth: number): Node {
  if (value === null || value === undefined) return el("span", "empty", "—");
  if (typeof value === "number") return el("span", "number", formatNumber(value, field));
  if (typeof value === "boolean") return el("span", "boolean", value ? "true" : "false");
  if (typeof value === "string") {
    if (field.format === "uri") {
      const url = webUrl(value);
      if (url !== null) return link(url, value);
    }
    if (field.format === "date" || field.format === "date-time") return el("span", "date", formatDate(value, field));
    return document.createTextNode(cut(value));
  }
  if (depth < model.maxDepth && field.fields !== undefined && !Array.isArray(value))
    return card(value as Record<string, unknown>, field.fields, depth + 1);
  return el("code", "json", cut(compact(value, depth)));
}

function card(value: Record<string, unknown>, fields: readonly ViewField[], depth: number): HTMLElement {
  const list = el("dl", "card");
  for (const field of fields) {
    list.append(el("dt", undefined, field.label));
    if (field.hint !== undefined) list.lastElementChild?.setAttribute("title", field.hint);
    const dd = el("dd");
    dd.append(valueNode(Object.hasOwn(value, field.key) ? value[field.key] : undefined, field, depth));
    list.append(dd);
  }
  return list;
}

function table(rows: readonly unknown[], fields: readonly ViewField[]): HTMLElement {
  const wrap = el("div", "table-wrap");
  const t = el("table");
  const head = el("tr");
  for (const field of fields) {
    const th = el("th", undefined, field.label);
    th.scope = "col";
    if (field.hint !== undefined) th.title = field.hint;
    head.append(th);
  }
  t.append(el("thead"));
  t.tHead?.append(head);
  const body = el("tbody");
  for (const row of rows.slice(0, model.maxRows)) {
    const tr = el("tr");
    for (const field of fields) {
      const td = el("td");
      const item =
        row !== null && typeof row === "object" && !Array.isArray(row) ? (row as Record<string, unknown>) : {};
      td.append(valueNode(Object.hasOwn(item, field.key) ? item[field.key] : undefined, field, 1));
      tr.append(td);
    }
    body.append(tr);
  }
  t.append(body);
  wrap.append(t);
  return wrap;
}

function render(result: { structuredContent?: unknown; content?: unknown; isError?: boolean }): void {
  // The result may arrive before connect() resolves: read the locale from the handshake's context here too.
  const context = app.getHostContext();
  locale = context?.locale ?? locale;
  timeZone = context?.timeZone ?? timeZone;
  const out: Node[] = [el("h1", "title", model.title)];
  let data = result.structuredContent;
  // On the 2025-11-25 revision a list result arrives wrapped as { result: [...] }.
  if (
    model.kind === "table" &&
    !Array.isArray(data) &&
    data !== null &&
    typeof data === "object" &&
    Array.isArray((data as { result?: unknown }).result)
  )
    data = (data as { result: unknown[] }).result;
  if (result.isError === true || data === undefined) {
    const texts = Array.isArray(result.content)
      ? result.content.flatMap((c: { type?: unknown; text?: unknown }) =>
          c?.type === "text" && typeof c.text === "string" ? [c.text] : [],
        )
      : [];
    out.push(el("p", "error", cut(texts.join("\n") || "The tool returned no structured result.")));
  } else if (model.kind === "table" && Array.isArray(data)) {
    out.push(el("p", "count", `${data.length} ${data.length === 1 ? "row" : "rows"}`));
    out.push(table(data, model.fields));
    if (data.length > model.maxRows) out.push(el("p", "more", `${data.length - model.maxRows} more rows not shown`));
  } else if (model.kind === "card" && data !== null && typeof data === "object" && !Array.isArray(data)) {
    out.push(card(data as Record<string, unknown>, model.fields, 1));
  } else {
    out.push(el("code", "json", cut(compact(data, 0))));
  }
  root.replaceChildren(...out);
  document.documentElement.dataset["rendered"] = "true";
}

function applyContext(context: McpUiHostContext | undefined): void {
  if (context === undefined) return;
  if (context.theme !== undefined) applyDocumentTheme(context.theme);
  if (context.styles?.variables !== undefined) applyHostStyleVariables(context.styles.variables);
  if (context.locale !== undefined) locale = context.locale;
  if (context.timeZone !== undefined) timeZone = context.timeZone;
}

document.title = model.title;
app.ontoolresult = (result) => render(result);
app.onhostcontextchanged = (context) => applyContext(context);
app.connect().then(
  () => applyContext(app.getHostContext()),
  () => {
    root.replaceChildren(el("p", "error", "This view needs a host that supports MCP Apps."));
  },
);
