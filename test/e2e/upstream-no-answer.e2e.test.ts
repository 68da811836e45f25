/**
 * An upstream that ends the exchange without an answer Node can hand over: `101 Switching Protocols` to a request
 * that asked for no upgrade. Node's client then closes the request without a `response` or an `error` event, and
 * the hop's own timeout cannot end it either (the request is already destroyed). The call must fail at once with
 * a message that says what happened, directly and through an egress proxy (whose own answer is the same case).
 * The bundle runs as a process, spoken to by the SDK client over stdio.
 */
import net, { type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";

let root: string;
let serverPath: string;
let switcher: net.Server;
let origin: string;
let requests = 0;

beforeAll(async () => {
  // Answers every request with 101 and keeps the connection open, as an upgraded connection would be.
  switcher = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () => {
      requests++;
      socket.write("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n");
    });
  });
  await new Promise<void>((resolve) => switcher.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(switcher.address() as AddressInfo).port}`;
  // A long hop timeout: without the fix only the call's deadline (timeoutMs + 5 s) would end the call.
  ({ root, serverPath } = await buildOneSpec(
    "no-answer",
    "switch.yaml",
    `specVersion: 1
name: switch
version: "1.0.0"
defaults:
  http: { allowInsecureHttp: true, timeoutMs: 30000 }
tools:
  - name: get
    description: Gets a thing.
    http: { url: "${origin}/thing" }
    output: { select: "@" }
`,
  ));
}, 120_000);

afterAll(async () => {
  switcher?.close();
  if (root) await removeDir(root);
});

async function callOnce(env: Record<string, string>): Promise<{ text: string; isError: boolean; stderr: string }> {
  const client: TestClient = await connect("modern", serverPath, {
    serverArgs: ["--allow-private-network"],
    env,
  });
  try {
    const result = await client.callTool("get", {});
    // The server keeps serving after it.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["get"]);
    return { text: result.content?.[0]?.text ?? "", isError: result.isError ?? false, stderr: client.stderr() };
  } finally {
    await client.close();
  }
}

describe("an upstream that switches protocols instead of answering", () => {
  it("fails the call at once, saying the upstream closed the exchange without a response", async () => {
    const before = requests;
    const result = await callOnce({});
    expect(result).toMatchObject({
      isError: true,
      text: `Request to ${new URL(origin).host} failed: the upstream ended the exchange without a usable response.`,
    });
    expect(requests).toBe(before + 1);
  }, 60_000);

  it("does the same through an egress proxy that answers so", async () => {
    const before = requests;
    // The proxy is the same server: a plain-http request goes to it in absolute form, and it answers 101.
    const result = await callOnce({ HTTP_PROXY: origin, NO_PROXY: "" });
    expect(result).toMatchObject({
      isError: true,
      text: `Request to ${new URL(origin).host} failed: the upstream ended the exchange without a usable response.`,
    });
    expect(requests).toBe(before + 1);
  }, 60_000);
});
