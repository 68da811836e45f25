/**
 * `kervanc view` as a process: it writes a standalone page of a tool's view with a given result, which Chromium
 * (Debian's, through playwright-core) opens as a file, with no host: the page's own host stand-in delivers the
 * result on the ext-apps message path, the renderer draws it (table rows, card fields), a hostile value is text,
 * the page's own policy is enforced and nothing is requested. And the refusals: a bad spec, an unknown tool, a
 * tool without a view, invalid JSON (with its place), a result that is not an object, a folder at -o.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
const CATALOG = join(REPO, "fixtures", "specs", "catalog-views.yaml");
const ARTIFACTS = join(REPO, "test-artifacts", "views");

const ROWS = [
  { name: "Lamp", price: 24.5, added: "2026-03-01", page: "https://shop.example.com/lamp" },
  { name: '<img src=x onerror="window.__pwned=1">', price: 1234.5, added: "2026-01-02", page: "javascript:alert(1)" },
];
const PRODUCT = {
  name: "<b>Desk</b>",
  price: 120,
  updated: "2026-03-01T10:00:00Z",
  page: "https://shop.example.com/desk",
  maker: { name: "Atölye", country: "TR" },
};

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await tempDir("view-command");
  if (CHROMIUM !== undefined) browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  await mkdir(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await removeDir(dir);
});

/** Opens a written page as a file; every console error, page error, CSP violation and request is a problem. */
async function open(file: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ locale: "en-US", timezoneId: "UTC", viewport: { width: 960, height: 700 } });
  const problems: string[] = [];
  await page.addInitScript({
    content: `document.addEventListener("securitypolicyviolation", (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI));`,
  });
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy|Refused/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  const url = pathToFileURL(file).href;
  page.on("request", (r) => {
    if (r.url() !== url) problems.push(`request: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector("html[data-rendered=true]", { timeout: 20_000 });
  return { page, problems };
}

describe.skipIf(CHROMIUM === undefined)("kervanc view in Chromium", () => {
  it("writes <tool>.view.html in the current folder, a table of the given rows, values as text", async () => {
    const result = await kervanc(["view", CATALOG, "list_products", JSON.stringify({ structuredContent: ROWS })], {
      cwd: dir,
    });
    expect(result.stderr).toContain("Wrote list_products.view.html");
    expect(result.code).toBe(0);
    const file = join(dir, "list_products.view.html");
    const { page, problems } = await open(file);
    expect(await page.locator("th").allTextContents()).toEqual(["Name", "Price", "Added", "Page"]);
    const cells = await page
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    expect(cells).toEqual([
      ["Lamp", "24.5", "Mar 1, 2026", "https://shop.example.com/lamp"],
      ['<img src=x onerror="window.__pwned=1">', "1,234.5", "Jan 2, 2026", "javascript:alert(1)"],
    ]);
    expect(await page.locator(".count").textContent()).toBe("2 rows");
    // The markup made no element and ran nothing; only the https value is a link, and it has no href.
    expect(await page.locator("img, tbody script").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("tbody a").count()).toBe(1);
    expect(await page.locator("a[href]").count()).toBe(0);
    // A click asks the (stand-in) host to open it: nothing opens, nothing navigates.
    await page.locator("tbody a").first().click();
    await page.waitForTimeout(200);
    expect(page.url()).toBe(pathToFileURL(file).href);
    await page.screenshot({ path: join(ARTIFACTS, "view-command-table.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("writes a card to -o from the structured result itself (an object)", async () => {
    const out = join(dir, "out", "product.html");
    const result = await kervanc(["view", CATALOG, "get_product", JSON.stringify(PRODUCT), "-o", out], { cwd: dir });
    expect(result.code).toBe(0);
    const { page, problems } = await open(out);
    expect(await page.locator("main > dl.card > dt").allTextContents()).toEqual([
      "Name",
      "Price",
      "Updated",
      "Page",
      "Maker",
    ]);
    expect(await page.locator("main > dl.card > dd").first().textContent()).toBe("<b>Desk</b>");
    expect(await page.locator("dl.card b").count()).toBe(0);
    expect(await page.locator("main > dl.card > dd").nth(2).textContent()).toBe("Mar 1, 2026, 10:00 AM");
    expect(await page.locator("dl.card dl.card > dd").allTextContents()).toEqual(["Atölye", "TR"]);
    await page.screenshot({ path: join(ARTIFACTS, "view-command-card.png"), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it("reads the result from stdin, as kervanc call --json prints it, and replaces its own earlier file", async () => {
    const out = join(dir, "again.html");
    await writeFile(out, "old");
    const { spawn } = await import("node:child_process");
    const child = spawn(
      process.execPath,
      [join(REPO, "packages", "compiler", "bin", "kervanc.js"), "view", CATALOG, "list_products", "-o", out],
      { cwd: dir, stdio: ["pipe", "pipe", "pipe"] },
    );
    child.stdin.end(JSON.stringify({ content: [{ type: "text", text: "[]" }], structuredContent: [], isError: false }));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const { page, problems } = await open(out);
    expect(await page.locator(".count").textContent()).toBe("0 rows");
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("kervanc view refuses", () => {
  it("a spec with errors, with positioned diagnostics", async () => {
    const spec = join(dir, "bad.yaml");
    await writeFile(spec, "specVersion: 1\nname: bad\nversion: '1'\ntools:\n  - name: x\n    http: { url: 3 }\n");
    const result = await kervanc(["view", spec, "x", "{}"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.yaml:\d+:\d+ - error KV\d{4}/);
    expect(result.stderr).toContain("nothing was written");
    expect(existsSync(join(dir, "x.view.html"))).toBe(false);
  }, 60_000);

  it("an unknown tool (a usage error, with the closest name)", async () => {
    const result = await kervanc(["view", CATALOG, "get_prodct", "{}"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no tool "get_prodct". Did you mean "get_product"?');
  }, 60_000);

  it("a tool without a view, placed at its output", async () => {
    const result = await kervanc(["view", CATALOG, "search_products", "{}"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /catalog-views\.yaml:\d+:\d+ tools\[0\]\.output: the tool "search_products" has no view .*Tools with a view: list_products, get_product\./,
    );
    expect(existsSync(join(dir, "search_products.view.html"))).toBe(false);
  }, 60_000);

  it("invalid JSON, saying where", async () => {
    const a = await kervanc(["view", CATALOG, "get_product", '{"name":\n  "x",, }'], { cwd: dir });
    expect(a.code).toBe(1);
    expect(a.stderr).toContain("kervanc view: <json result>:2:7: not valid JSON");
    const b = await kervanc(["view", CATALOG, "get_product", '{"name": tru}'], { cwd: dir });
    expect(b.stderr).toContain("kervanc view: <json result>:1:13: not valid JSON");
  }, 60_000);

  it("a result that is not an object", async () => {
    for (const [text, what] of [
      ["[1]", "an array"],
      ['"x"', "a string"],
      ["null", "null"],
      ["3", "a number"],
    ] as const) {
      const result = await kervanc(["view", CATALOG, "get_product", text], { cwd: dir });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`<json result>:1:1: the result must be a JSON object, not ${what}`);
    }
    const content = await kervanc(["view", CATALOG, "get_product", '{"content": "x"}'], { cwd: dir });
    expect(content.code).toBe(1);
    expect(content.stderr).toContain('"content" must be a list');
  }, 60_000);

  it("to write over anything but a regular file", async () => {
    const folder = join(dir, "a-folder");
    await mkdir(folder);
    const result = await kervanc(["view", CATALOG, "get_product", "{}", "-o", folder], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("a-folder is a folder, not a file; nothing was written");
    expect((await stat(folder)).isDirectory()).toBe(true);
    const fifo = join(dir, "a-fifo");
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [fifo]);
    const piped = await kervanc(["view", CATALOG, "get_product", "{}", "-o", fifo], { cwd: dir });
    expect(piped.code).toBe(1);
    expect(piped.stderr).toContain("a named pipe (fifo), not a file");
    expect(await readFile(join(REPO, "package.json"), "utf8")).toContain("kervanc-workspace");
  }, 60_000);
});
