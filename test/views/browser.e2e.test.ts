/**
 * The views in a real browser (Debian's Chromium, driven by playwright-core; no browser download): a host page
 * implements the MCP Apps host side with the package's own AppBridge (@modelcontextprotocol/ext-apps), loads a
 * built server's page (read with resources/read from the server spawned as a process) into a sandboxed iframe
 * of another origin, served with the Content-Security-Policy a host builds from the page's declared metadata
 * (SEP-1865: no declared domains), and sends it a real tool result from that server. The test asserts the
 * rendered DOM, fails on any CSP violation or console error about a refused load, and saves a screenshot per
 * view kind under test-artifacts/views/ (gitignored).
 *
 * Hostile data: markup and a script in values render as text (no element is created, nothing runs), a
 * `javascript:` URL is text, an https URL opens only through the host's `ui/open-link`, 10,000 rows render the
 * row cap and an "N more" note, and deep nesting is cut at the depth cap.
 */
import * as esbuild from "esbuild";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, REPO, removeDir } from "../helpers/kervanc.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const ARTIFACTS = join(REPO, "test-artifacts", "views");

/** What a host builds from `_meta.ui.csp` with no declared domains (SEP-1865's restrictive default, no frames). */
const HOST_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; object-src 'none'; connect-src 'none'; frame-src 'none'; base-uri 'self'";

function deep(levels: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < levels; i++) value = { level: value };
  return value;
}

const ROWS = [
  { name: "Lamp", price: 24.5, added: "2026-03-01", page: "https://shop.example.com/lamp" },
  { name: '<img src=x onerror="window.__pwned=1">', price: 1234.5, added: "2026-01-02", page: "javascript:alert(1)" },
  {
    name: "<script>window.__pwned=2</script>",
    price: 0,
    added: "2026-01-03",
    page: "https://shop.example.com/q?x=%3Cb%3E",
  },
];
const MANY = Array.from({ length: 10_000 }, (_, i) => ({
  name: `item ${i}`,
  price: i,
  added: "2026-01-01",
  page: "https://shop.example.com/x",
}));
const PRODUCT = {
  name: "<b>Lamp</b>",
  price: 24.5,
  updated: "2026-03-01T10:00:00Z",
  url: "https://shop.example.com/lamp",
  maker: deep(30),
};

function spec(origin: string): string {
  const rows = `
      schema:
        type: array
        items:
          type: object
          properties:
            name: { type: string, title: Name }
            price: { type: number, title: Price, description: Price in euros }
            added: { type: string, format: date, title: Added }
            page: { type: string, format: uri, title: Page }
      view: table
      maxOutputChars: 1000000`;
  return `
specVersion: 1
name: shop
version: "1.0.0"
kervancExtensions: [views]
tools:
  - name: rows
    description: Rows.
    http: { url: "${origin}/rows", allowInsecureHttp: true }
    output:
      select: "@"${rows}
  - name: many
    description: Many rows.
    http: { url: "${origin}/many", allowInsecureHttp: true, maxResponseBytes: 5000000 }
    output:
      select: "@"${rows}
  - name: product
    title: Product
    description: One product.
    http: { url: "${origin}/product", allowInsecureHttp: true }
    output:
      select: "@"
      schema:
        type: object
        properties:
          name: { type: string, title: Name }
          price: { type: number, title: Price }
          updated: { type: string, format: date-time, title: Updated }
          url: { type: string, format: uri, title: Page }
          maker: { type: object, title: Maker }
      view: auto
`;
}

/** In every frame: any CSP violation is a failure, reported through the console. */
const REPORT_VIOLATIONS = `document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI));`;

/** What the browser's pages are, to the test's type checker (which has no DOM types). */
type PageGlobal = {
  document: { documentElement: { getAttribute(name: string): string | null } };
};

const HOST_SOURCE = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.opened = [];
window.startHost = async (viewUrl, hostContext) => {
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.style.width = "900px";
  iframe.style.height = "600px";
  iframe.style.border = "0";
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: "kervanc-test-host", version: "1.0.0" }, { openLinks: {} }, { hostContext });
  bridge.onopenlink = async ({ url }) => { window.opened.push(url); return {}; };
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = Math.min(height, 2000) + "px"; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.src = viewUrl;
  await initialized;
  window.bridge = bridge;
};
window.sendResult = async (result) => {
  await window.bridge.sendToolInput({ arguments: {} });
  await window.bridge.sendToolResult(result);
};
`;

let upstream: Upstream;
let root: string;
let client: TestClient;
let browser: Browser;
let hostServer: http.Server;
let viewServer: http.Server;
let hostOrigin: string;
let viewOrigin: string;
const pages = new Map<string, string>();

function listen(server: http.Server, host: string): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  upstream = await startUpstream((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(req.path === "/rows" ? ROWS : req.path === "/many" ? MANY : PRODUCT));
  });
  let serverPath: string;
  ({ root, serverPath } = await buildOneSpec("views-browser", "shop.yaml", spec(upstream.origin)));
  client = await connect("modern", serverPath, {
    nodeArgs: ["--disallow-code-generation-from-strings"],
    serverArgs: ["--allow-private-network"],
  });
  for (const tool of ["rows", "many", "product"]) {
    const { contents } = await client.readResource(`ui://shop/${tool}`);
    pages.set(tool, contents[0]!.text!);
  }
  const bridge = await esbuild.build({
    stdin: { contents: HOST_SOURCE, resolveDir: REPO, loader: "js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  const hostJs = bridge.outputFiles[0]!.text;
  hostServer = http.createServer((req, res) => {
    if (req.url === "/host.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      res.end(hostJs);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><html><body><script src="/host.js"></script></body></html>`);
  });
  // The view is served from another origin (localhost vs 127.0.0.1), with the host's policy as a header.
  viewServer = http.createServer((req, res) => {
    const html = pages.get((req.url ?? "").slice(1));
    if (html === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": HOST_CSP });
    res.end(html);
  });
  hostOrigin = await listen(hostServer, "127.0.0.1");
  viewOrigin = (await listen(viewServer, "127.0.0.1")).replace("127.0.0.1", "localhost");
  browser = await chromium.launch({ executablePath: CHROMIUM!, args: ["--no-sandbox"] });
  await mkdir(ARTIFACTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await client?.close();
  hostServer?.close();
  viewServer?.close();
  await upstream?.close();
  if (root) await removeDir(root);
});

interface Shown {
  page: Page;
  view: Frame;
  problems: string[];
}

async function show(tool: string, theme: "light" | "dark" = "light"): Promise<Shown> {
  const page = await browser.newPage({ viewport: { width: 960, height: 700 } });
  const problems: string[] = [];
  // In every frame: any CSP violation is a failure, reported through the console.
  await page.addInitScript({ content: REPORT_VIOLATIONS });
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (!r.url().startsWith(hostOrigin) && !r.url().startsWith(viewOrigin)) problems.push(`request: ${r.url()}`);
  });
  await page.goto(`${hostOrigin}/`);
  await page.evaluate(
    ([url, t]) =>
      (globalThis as unknown as { startHost(u: string, c: unknown): Promise<void> }).startHost(url!, {
        theme: t,
        locale: "en-US",
        timeZone: "UTC",
      }),
    [`${viewOrigin}/${tool}`, theme],
  );
  const result = await client.callTool(tool, {});
  await page.evaluate(
    (r) => (globalThis as unknown as { sendResult(r: unknown): Promise<void> }).sendResult(r),
    result,
  );
  const view = page.frames().find((f) => f.url().startsWith(viewOrigin))!;
  await view.waitForSelector("html[data-rendered=true]");
  return { page, view, problems };
}

describe.skipIf(CHROMIUM === undefined)("views in Chromium", () => {
  it("renders a table with columns from the item schema, values as text, links through the host", async () => {
    const { page, view, problems } = await show("rows");
    expect(await view.locator("th").allTextContents()).toEqual(["Name", "Price", "Added", "Page"]);
    expect(await view.locator("th").nth(1).getAttribute("title")).toBe("Price in euros");
    const cells = await view
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    expect(cells).toEqual([
      ["Lamp", "24.5", "Mar 1, 2026", "https://shop.example.com/lamp"],
      ['<img src=x onerror="window.__pwned=1">', "1,234.5", "Jan 2, 2026", "javascript:alert(1)"],
      ["<script>window.__pwned=2</script>", "0", "Jan 3, 2026", "https://shop.example.com/q?x=%3Cb%3E"],
    ]);
    // Markup in values made no element and ran nothing; the javascript: URL is not a link.
    expect(await view.locator("tbody img, tbody script, tbody b").count()).toBe(0);
    expect(await view.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await view.locator("tbody a").count()).toBe(2);
    expect(await view.locator("a[href]").count()).toBe(0);
    await view.locator("tbody a").first().click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as { opened: string[] }).opened))
      .toEqual(["https://shop.example.com/lamp"]);
    // Nothing navigated: the view is still the page it was.
    expect(view.url()).toBe(`${viewOrigin}/rows`);
    await page.screenshot({ path: join(ARTIFACTS, "table.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("renders a card for an object, cutting deep nesting, in the host's dark theme", async () => {
    const { page, view, problems } = await show("product", "dark");
    expect(await view.locator("dl.card > dt").allTextContents()).toEqual(["Name", "Price", "Updated", "Page", "Maker"]);
    expect(await view.locator("dl.card > dd").first().textContent()).toBe("<b>Lamp</b>");
    expect(await view.locator("dl.card b").count()).toBe(0);
    expect(await view.locator("dl.card > dd").nth(2).textContent()).toBe("Mar 1, 2026, 10:00 AM");
    const maker = (await view.locator("dl.card > dd").nth(4).textContent()) ?? "";
    expect(maker).toContain("{…}");
    expect(maker.length).toBeLessThan(600);
    expect(
      await view.evaluate(() =>
        (globalThis as unknown as PageGlobal).document.documentElement.getAttribute("data-theme"),
      ),
    ).toBe("dark");
    await page.screenshot({ path: join(ARTIFACTS, "card.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("bounds 10,000 rows to the row cap with a note of the rest", async () => {
    const { page, view, problems } = await show("many");
    expect(await view.locator("tbody tr").count()).toBe(200);
    expect(await view.locator(".more").textContent()).toBe("9800 more rows not shown");
    expect(await view.locator(".count").textContent()).toBe("10000 rows");
    await page.screenshot({ path: join(ARTIFACTS, "many.png") });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("reports a script the page's own policy does not allow (the check can fail)", async () => {
    // The same page with one more inline script: the page's hash-based policy refuses it, and the test sees it.
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => problems.push(m.text()));
    await page.addInitScript({ content: REPORT_VIOLATIONS });
    const html = pages.get("rows")!.replace("<main", "<script>window.__injected=1</script><main");
    await page.route(`${viewOrigin}/injected`, (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: html }),
    );
    await page.goto(`${viewOrigin}/injected`);
    await expect.poll(() => problems.some((p) => p.includes("CSP violation: script-src"))).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as { __injected?: number }).__injected)).toBeUndefined();
    await page.close();
  }, 60_000);
});
