/**
 * `kervanc dev` serves a spec's views (kervanc extension views): the SDK client over stdio against `kervanc dev
 * <spec>` sees the `resources` capability (with `listChanged`: dev sends it), lists the ui:// resources, reads each
 * page (the very page `kervanc build` writes to views/<tool>.html), finds `_meta.ui.resourceUri` in tools/list, and
 * after an edit of a view's title hears notifications/resources/list_changed and reads the new page. A spec
 * without views gets no resources capability through dev either.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kervanc, REPO, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, startUpstream, type Upstream } from "../helpers/upstream.ts";

const KERVANC = join(REPO, "packages", "compiler", "bin", "kervanc.js");

let dir: string;
let upstream: Upstream;

function spec(origin: string, title = "Products", view = "table"): string {
  return `specVersion: 1
name: shop
version: "1.0.0"
kervancExtensions: [views]
tools:
  - name: list_products
    title: ${title}
    description: Products.
    http: { url: "${origin}/products" }
    output:
      select: "@"
      schema:
        type: array
        items:
          type: object
          properties:
            name: { type: string, title: Name }
            price: { type: number, title: Price }
      view: ${view}
  - name: get_product
    description: One product.
    http: { url: "${origin}/product" }
    output:
      select: "@"
      schema:
        type: object
        properties:
          name: { type: string, title: Name }
      view: card
`;
}

beforeAll(async () => {
  dir = await tempDir("dev-views");
  upstream = await startUpstream((req, res) =>
    json(res, 200, req.path === "/products" ? [{ name: "Lamp", price: 24.5 }] : { name: "Lamp" }),
  );
});

afterAll(async () => {
  await upstream?.close();
  if (dir) await removeDir(dir);
});

async function devClient(
  file: string,
): Promise<{ client: Client; changed: () => Promise<void>; resourcesChanged: () => Promise<void> }> {
  const client = new Client({ name: "dev-views-test", version: "1.0.0" });
  let notified: () => void = () => undefined;
  let resourcesNotified: () => void = () => undefined;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => notified());
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resourcesNotified());
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [KERVANC, "dev", file],
      env: { PATH: process.env["PATH"] ?? "" },
      stderr: "pipe",
      cwd: REPO,
    }),
  );
  return {
    client,
    changed: () => new Promise<void>((resolve) => (notified = resolve)),
    resourcesChanged: () => new Promise<void>((resolve) => (resourcesNotified = resolve)),
  };
}

describe("kervanc dev with views", () => {
  it("advertises resources, lists and reads the pages build writes, and serves an edited page after a reload", async () => {
    const file = join(dir, "shop.yaml");
    await writeFile(file, spec(upstream.origin));
    // The pages `kervanc build` writes for the same spec (with plain http allowed, as dev allows it).
    const built = await kervanc([
      "build",
      await writeBuildable(spec(upstream.origin), "shop-build.yaml"),
      "-o",
      join(dir, "out"),
    ]);
    expect(built.stderr).not.toContain("error");
    expect(built.code).toBe(0);
    const { client, changed, resourcesChanged } = await devClient(file);
    try {
      // dev tells the client of changed pages on a reload, so it says so.
      expect(client.getServerCapabilities()?.resources?.listChanged).toBe(true);
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      const { resources } = await client.listResources();
      expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
        ["ui://shop/list_products", "text/html;profile=mcp-app"],
        ["ui://shop/get_product", "text/html;profile=mcp-app"],
      ]);
      const { tools } = await client.listTools();
      expect(tools.map((t) => (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri)).toEqual([
        "ui://shop/list_products",
        "ui://shop/get_product",
      ]);
      for (const tool of ["list_products", "get_product"]) {
        const read = await client.readResource({ uri: `ui://shop/${tool}` });
        const page = (read.contents[0] as { text: string }).text;
        expect(page).toBe(await readFile(join(dir, "out", "shop-build", "views", `${tool}.html`), "utf8"));
      }
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      await expect(client.readResource({ uri: "ui://shop/nope" })).rejects.toThrow(/not found/);
      const called = await client.callTool({ name: "list_products", arguments: {} });
      expect(called.isError).not.toBe(true);

      // An edit of the view's title: a reload, and the page read next is the new one.
      const reloaded = changed();
      const pagesChanged = resourcesChanged();
      await writeFile(file, spec(upstream.origin, "Catalogue"));
      await reloaded;
      await pagesChanged;
      const read = await client.readResource({ uri: "ui://shop/list_products" });
      const page = (read.contents[0] as { text: string }).text;
      expect(page).toContain('"title": "Catalogue"');
      expect(page).not.toContain('"title": "Products"');
    } finally {
      await client.close();
    }
  }, 120_000);

  it("a spec without views gets no resources capability through dev", async () => {
    const file = join(dir, "plain.yaml");
    await writeFile(
      file,
      spec(upstream.origin)
        .replace("kervancExtensions: [views]\n", "")
        .replace(/ {6}view: \w+\n/g, ""),
    );
    const { client } = await devClient(file);
    try {
      expect(client.getServerCapabilities()?.resources).toBeUndefined();
      expect((await client.listTools()).tools.map((t) => t._meta)).toEqual([undefined, undefined]);
    } finally {
      await client.close();
    }
  }, 120_000);
});

/** The spec with plain http to the test's upstream allowed per tool, so `build` (no dev relaxation) accepts it. */
async function writeBuildable(text: string, name: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text.replace(/http: \{ url: "([^"]+)" \}/g, 'http: { url: "$1", allowInsecureHttp: true }'));
  return path;
}
