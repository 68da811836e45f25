/**
 * The standalone page `kervanc view` writes (emit/view/standalone.ts) and its result argument (cli/view-command.ts
 * parseResult): the page is the server's page plus the result as escaped JSON and the host stand-in, which the
 * policy allows by hash next to the renderer and nothing else; a hostile result cannot end its element; the
 * argument's refusals say where.
 */
import { describe, expect, it } from "vitest";
import { sha256Base64 } from "../../packages/compiler/src/emit/code/hash.ts";
import { viewPageHead, viewPolicy } from "../../packages/compiler/src/emit/view/html.ts";
import { STANDALONE_HOST, standaloneViewPage } from "../../packages/compiler/src/emit/view/standalone.ts";
import { parseResult } from "../../packages/compiler/src/cli/view-command.ts";
import { viewModel } from "../../packages/compiler/src/plan/view-model.ts";
import type { PrebuiltViewRenderer } from "../../packages/compiler/src/emit/bundle/prebuilt-format.ts";

const MODEL = viewModel("card", { type: "object", properties: { name: { type: "string", title: "Name" } } }, "Product");
const CODE = "console.log(1)";
const RENDERER: PrebuiltViewRenderer = { code: CODE, sha256: sha256Base64(CODE), libraries: [] };

describe("the standalone page", () => {
  const page = standaloneViewPage(MODEL, RENDERER, {
    content: [],
    structuredContent: { name: "</script><script>window.__pwned=1</script><!--" },
  });

  it("is the server's page with the result and the stand-in before the renderer", () => {
    const server = `${viewPageHead(MODEL, RENDERER.sha256)}${CODE}</script>\n</body>\n</html>\n`;
    // The server's page without the policy line and the extra elements is the standalone page without them.
    const strip = (html: string): string =>
      html
        .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "")
        .replace(/<script type="application\/json" id="kervanc-view-result">[\s\S]*?<\/script>\n/, "")
        .replace(`<script>${STANDALONE_HOST}</script>\n`, "");
    expect(strip(page)).toBe(strip(server));
    expect(page.indexOf(STANDALONE_HOST)).toBeLessThan(page.lastIndexOf(CODE));
  });

  it("allows the stand-in and the renderer by hash, and nothing else", () => {
    const policy = viewPolicy(RENDERER.sha256, [STANDALONE_HOST]);
    expect(page).toContain(`content="${policy}"`);
    expect(policy).toContain(`script-src 'sha256-${sha256Base64(STANDALONE_HOST)}' 'sha256-${RENDERER.sha256}';`);
    expect(policy).toContain("connect-src 'none'");
    expect(policy).not.toMatch(/unsafe|https?:|\*/);
    // A server's page is unchanged: only the renderer.
    expect(viewPolicy(RENDERER.sha256)).toContain(`script-src 'sha256-${RENDERER.sha256}';`);
  });

  it("keeps a hostile result inside its JSON element", () => {
    // Four script elements (model, result, stand-in, renderer), whatever the result holds.
    expect(page.match(/<script/g)).toHaveLength(4);
    expect(page.match(/<\/script>/g)).toHaveLength(4);
    expect(page).not.toContain("<!--");
    expect(page).toContain("\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned=1");
  });
});

describe("the result argument", () => {
  it("takes a whole tool result or a structured object", () => {
    expect(parseResult('{"structuredContent": [{"a": 1}], "isError": false}')).toEqual({
      content: [{ type: "text", text: '[{"a":1}]' }],
      structuredContent: [{ a: 1 }],
    });
    expect(parseResult('{"content": [{"type": "text", "text": "x"}], "isError": true}')).toEqual({
      content: [{ type: "text", text: "x" }],
      isError: true,
    });
    expect(parseResult('{"name": "Lamp"}')).toEqual({
      content: [{ type: "text", text: '{"name":"Lamp"}' }],
      structuredContent: { name: "Lamp" },
    });
  });

  it("says where JSON is invalid, with or without a position in the parser's message", () => {
    expect(parseResult('{"a": 1,\n  }')).toMatch(/^<json result>:2:3: not valid JSON/);
    expect(parseResult('{"a": [1, 2, x]}')).toMatch(/^<json result>:1:14: not valid JSON/);
    expect(parseResult('{"a": tru}')).toMatch(/^<json result>:1:10: not valid JSON/);
    expect(parseResult("")).toMatch(/^<json result>:1:1: not valid JSON/);
  });

  it("refuses what is not an object", () => {
    expect(parseResult("[]")).toMatch(/not an array.*\{"structuredContent": \[\.\.\.\]\}/);
    expect(parseResult("1")).toMatch(/not a number/);
    expect(parseResult('{"content": {}}')).toMatch(/"content" must be a list/);
    expect(parseResult('{"isError": "yes"}')).toMatch(/"isError" must be true or false/);
  });
});
