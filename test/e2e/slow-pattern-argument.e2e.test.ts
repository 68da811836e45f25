/**
 * A generated server, as a process, given one long argument crafted for a pattern whose time grows with the square
 * of the string's length (KV5019 warns of it at build time). Beside a maxLength, the validator does not run the
 * pattern on the over-long string (emit/validators/validator-pattern-guard.ts): the call is refused at once with the
 * maxLength error, and the next call is served. Without that guard, the million characters here against
 * `^\S+@\S+\.\S+$` take V8 about ten minutes (20,000 took 0.23 s; four times as long for twice as many), and
 * the test times out. No upstream is called: invalid arguments never reach one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { buildOneSpec, removeDir } from "../helpers/kervanc.ts";

const SPEC = `specVersion: 1
name: slow-pattern
version: "1.0.0"
tools:
  - name: invite
    description: Invites someone by email address.
    input:
      type: object
      properties:
        email: { type: string, maxLength: 254, pattern: "^\\\\S+@\\\\S+\\\\.\\\\S+$" }
      required: [email]
    http:
      method: POST
      url: https://api.example.test/invites
      body: { email: "{{input.email}}" }
    output: { raw: true }
`;

let root: string;
let client: TestClient;

beforeAll(async () => {
  const built = await buildOneSpec("slow-pattern", "invites.yaml", SPEC);
  root = built.root;
  client = await connect("modern", built.serverPath);
}, 120_000);

afterAll(async () => {
  await client?.close();
  if (root) await removeDir(root);
});

describe("a long argument against a pattern that backtracks", () => {
  it("is refused with the maxLength error alone, and the server goes on serving", async () => {
    const email = `${"@".repeat(1_000_000)}x`;
    const refused = await client.callTool("invite", { email });
    expect(refused.isError).toBe(true);
    const text = refused.content?.map((c) => c.text ?? "").join("\n") ?? "";
    expect(text).toContain("must NOT have more than 254 characters");
    expect(text).not.toContain("must match pattern");
    // Within its maxLength the pattern runs, and its error is the one reported.
    const short = await client.callTool("invite", { email: "not-an-address" });
    expect(short.isError).toBe(true);
    expect(short.content?.map((c) => c.text ?? "").join("\n")).toContain("must match pattern");
  });
});
