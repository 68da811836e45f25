/**
 * The kervanc views extension end to end: a spec with views is built with the CLI, its server spawned as a
 * process and driven with both SDK clients (v2 on 2026-07-28, v1 on 2025-11-25). The server declares the
 * resources capability, lists and reads one MCP Apps page per tool with a view (the mime type and the
 * no-network metadata MCP Apps defines), points each such tool at its page with `_meta.ui.resourceUri`, and
 * still returns the text content; a spec without views declares no resources.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Era, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";
import { startUpstream, type Upstream } from "../helpers/upstream.ts";

export const PRODUCTS = [
  { name: "Lamp", price: 24.5, added: "2026-03-01", url: "https://shop.example.com/lamp" },
  { name: '<img src=x onerror="window.__pwned=1">', price: 1, added: "2026-01-02", url: "javascript:alert(1)" },
];

export function viewsSpec(origin: string, extra = ""): string {
  return `
specVersion: 1
name: catalog
version: "1.0.0"
kervancExtensions: [views]
tools:
  - name: list_products
    title: Products
    description: Products.
    http: { url: "${origin}/products", allowInsecureHttp: true }
    output:
      select: "items[].{name: name, price: price, added: added, page: url}"
      schema:
        type: array
        items:
          type: object
          properties:
            name: { type: string, title: Name }
            price: { type: number, title: Price, description: Price in euros }
            added: { type: string, format: date, title: Added }
            page: { type: string, format: uri, title: Page }
      view: auto
  - name: get_product
    description: One product.
    http: { url: "${origin}/product", allowInsecureHttp: true }
    output:
      select: "@"
      schema:
        type: object
        properties:
          name: { type: string, title: Name }
          price: { type: number }
          url: { type: string, format: uri }
      view: card
  - name: plain
    description: No view.
    http: { url: "${origin}/product", allowInsecureHttp: true }
    output: { select: "@" }
${extra}`;
}

export async function productsUpstream(rows: readonly unknown[] = PRODUCTS): Promise<Upstream> {
  return startUpstream((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify(
        req.path === "/products"
          ? { items: rows }
          : { name: "Lamp", price: 24.5, url: "https://shop.example.com/lamp" },
      ),
    );
  });
}

let upstream: Upstream;
let root: string;
let serverPath: string;
let packageDir: string;

beforeAll(async () => {
  upstream = await productsUpstream();
  ({ root, serverPath, packageDir } = await buildOneSpec("views", "catalog.yaml", viewsSpec(upstream.origin)));
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  if (root) await removeDir(root);
});

describe.each(["modern", "legacy"] as Era[])("views for a %s client", (era) => {
  let client: TestClient;
  beforeAll(async () => {
    client = await connect(era, serverPath, {
      nodeArgs: ["--disallow-code-generation-from-strings"],
      serverArgs: ["--allow-private-network"],
    });
  });
  afterAll(async () => {
    await client?.close();
  });

  it("declares resources and lists one MCP Apps page per tool with a view", async () => {
    expect(client.serverCapabilities()).toHaveProperty("resources");
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
      ["ui://catalog/list_products", "list_products", "text/html;profile=mcp-app"],
      ["ui://catalog/get_product", "get_product", "text/html;profile=mcp-app"],
    ]);
    for (const r of resources)
      expect(r["_meta"]).toEqual({
        ui: {
          csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
          permissions: {},
          prefersBorder: true,
        },
      });
  });

  it("reads each page as the package's views/<tool>.html, with the no-network metadata", async () => {
    for (const tool of ["list_products", "get_product"]) {
      const { contents } = await client.readResource(`ui://catalog/${tool}`);
      expect(contents).toHaveLength(1);
      const [page] = contents;
      expect(page!.mimeType).toBe("text/html;profile=mcp-app");
      expect(page!.text).toBe(await readFile(join(packageDir, "views", `${tool}.html`), "utf8"));
      expect(page!.text).toMatch(/^<!doctype html>/);
      expect(page!.text).toContain("connect-src 'none'");
      expect((page!["_meta"] as { ui: { csp: unknown } }).ui.csp).toEqual({
        connectDomains: [],
        resourceDomains: [],
        frameDomains: [],
        baseUriDomains: [],
      });
    }
  });

  it("refuses an unknown resource", async () => {
    await expect(client.readResource("ui://catalog/plain")).rejects.toThrow(/not found/i);
  });

  it("points the tools with a view at their page, and only those", async () => {
    const { tools } = await client.listTools();
    const meta = Object.fromEntries(tools.map((t) => [t.name, t["_meta"]]));
    expect(meta["list_products"]).toEqual({ ui: { resourceUri: "ui://catalog/list_products" } });
    expect(meta["get_product"]).toEqual({ ui: { resourceUri: "ui://catalog/get_product" } });
    expect(meta["plain"]).toBeUndefined();
  });

  it("keeps the text content for hosts without views", async () => {
    const r = await client.callTool("list_products", {});
    const rows = PRODUCTS.map((p) => ({ name: p.name, price: p.price, added: p.added, page: p.url }));
    expect(r.content).toEqual([{ type: "text", text: JSON.stringify(rows) }]);
    expect(r.structuredContent).toEqual(era === "legacy" ? { result: rows } : rows);
  });
});

describe("a selection of tools (--tools)", () => {
  it("keeps the pages of the tools it keeps, and declares no resources when none of them has a view", async () => {
    const one = await connect("modern", serverPath, {
      serverArgs: ["--allow-private-network", "--tools", "get_product"],
    });
    try {
      expect(one.serverCapabilities()).toHaveProperty("resources");
      expect((await one.listResources()).resources.map((r) => r.uri)).toEqual(["ui://catalog/get_product"]);
      expect((await one.readResource("ui://catalog/get_product")).contents[0]!.text).toBe(
        await readFile(join(packageDir, "views", "get_product.html"), "utf8"),
      );
      await expect(one.readResource("ui://catalog/list_products")).rejects.toThrow(/not found/i);
    } finally {
      await one.close();
    }
    const none = await connect("modern", serverPath, { serverArgs: ["--allow-private-network", "--tools", "plain"] });
    try {
      expect(none.serverCapabilities()).not.toHaveProperty("resources");
    } finally {
      await none.close();
    }
  }, 60_000);
});

describe("a spec without views", () => {
  it("declares no resources", async () => {
    const plain = await buildOneSpec(
      "views-none",
      "plain.yaml",
      `specVersion: 1\nname: plain\nversion: "1.0.0"\ntools:\n  - name: p\n    description: p\n    http: { url: "${upstream.origin}/product", allowInsecureHttp: true }\n    output: { select: "@" }\n`,
    );
    try {
      for (const era of ["modern", "legacy"] as Era[]) {
        const client = await connect(era, plain.serverPath, { serverArgs: ["--allow-private-network"] });
        try {
          expect(client.serverCapabilities()).not.toHaveProperty("resources");
          const { tools } = await client.listTools();
          expect(tools[0]).not.toHaveProperty("_meta");
        } finally {
          await client.close();
        }
      }
    } finally {
      await removeDir(plain.root);
    }
  }, 60_000);
});
