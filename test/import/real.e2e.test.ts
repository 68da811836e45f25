/**
 * `kervanc import` on documents cut from real API descriptions (fixtures/openapi/real/, each noting its source
 * and licence), end to end: imported and built by the CLI, the servers spawned as processes and called with the
 * SDK client, against local HTTPS upstreams that answer as the real APIs document. Each call checks that the
 * credentials arrive where the API expects them and what the model gets back.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type TestClient } from "../helpers/clients.ts";
import { type CliResult, removeDir, tempDir } from "../helpers/kervanc.ts";
import { json, type RecordedRequest, startUpstream, TEST_CA, type Upstream } from "../helpers/upstream.ts";
import { call, type ImportedDocument, importAndBuild } from "./imported-servers.ts";

const ACCOUNT = "AC0123456789abcdef0123456789abcdef";
const MESSAGE = "SM0123456789abcdef0123456789abcdef";
const TWILIO_PAIR = Buffer.from(`${ACCOUNT}:auth-token-5f4e3d2c`).toString("base64");
const SLACK_TOKEN = "xoxb-1111-2222-abcdefghij";

let root: string;
let twilio: Upstream;
let slack: Upstream;
let github: Upstream;
let imports: Record<string, CliResult>;
let built: CliResult;
const clients: TestClient[] = [];

/** A message resource as Twilio's API documents it (api_v2010_account_message). */
const twilioMessage = {
  account_sid: ACCOUNT,
  api_version: "2010-04-01",
  body: "Hello from kervanc",
  date_created: "Tue, 01 Dec 2026 10:00:00 +0000",
  date_sent: "Tue, 01 Dec 2026 10:00:01 +0000",
  date_updated: "Tue, 01 Dec 2026 10:00:01 +0000",
  direction: "outbound-api",
  error_code: null,
  error_message: null,
  from: "+15005550006",
  messaging_service_sid: null,
  num_media: "0",
  num_segments: "1",
  price: null,
  price_unit: "USD",
  sid: MESSAGE,
  status: "sent",
  subresource_uris: { media: `/2010-04-01/Accounts/${ACCOUNT}/Messages/${MESSAGE}/Media.json` },
  to: "+15558675310",
  uri: `/2010-04-01/Accounts/${ACCOUNT}/Messages/${MESSAGE}.json`,
};

function twilioHandler(req: RecordedRequest, res: import("node:http").ServerResponse): void {
  // Twilio answers 401 without the account's basic credentials.
  if (req.headers["authorization"] !== `Basic ${TWILIO_PAIR}`)
    return json(res, 401, { code: 20003, message: "Authenticate", status: 401 });
  const base = `/2010-04-01/Accounts/${ACCOUNT}/Messages`;
  if (req.path === `${base}/${MESSAGE}.json` && req.method === "GET") return json(res, 200, twilioMessage);
  if (req.path === `${base}/${MESSAGE}.json` && req.method === "DELETE") return void res.writeHead(204).end();
  if (req.path === `${base}.json` && req.method === "POST") {
    // Twilio reads a form-encoded body and answers 201 with the new message.
    if (req.headers["content-type"] !== "application/x-www-form-urlencoded")
      return json(res, 415, { code: 21606, message: "Unsupported media type" });
    const form = new URLSearchParams(req.body);
    return json(res, 201, {
      ...twilioMessage,
      to: form.get("To"),
      from: form.get("From"),
      body: form.get("Body"),
      status: "queued",
    });
  }
  json(res, 404, { code: 20404, message: "The requested resource was not found", status: 404 });
}

function slackHandler(req: RecordedRequest, res: import("node:http").ServerResponse): void {
  // Slack reads the token from Authorization: Bearer (or a token field); a missing one is { ok: false }.
  if (req.headers["authorization"] !== `Bearer ${SLACK_TOKEN}`)
    return json(res, 200, { ok: false, error: "not_authed" });
  if (req.path === "/api/chat.postMessage") {
    if (req.headers["content-type"] !== "application/x-www-form-urlencoded")
      return json(res, 200, { ok: false, error: "invalid_form_data" });
    const form = new URLSearchParams(req.body);
    return json(res, 200, {
      ok: true,
      channel: form.get("channel"),
      ts: "1503435956.000247",
      message: { type: "message", text: form.get("text"), user: "U061F7AUR", ts: "1503435956.000247" },
    });
  }
  if (req.path === "/api/conversations.history") {
    return json(res, 200, {
      ok: true,
      messages: [{ type: "message", user: "U061F7AUR", text: "Deploy finished", ts: "1512085950.000216" }],
      has_more: false,
      pin_count: 0,
      channel_actions_count: 0,
    });
  }
  json(res, 200, { ok: false, error: "unknown_method" });
}

/** An issue as GitHub's REST API answers it: content, identity and many hypermedia fields. */
function githubIssue(n: number): Record<string, unknown> {
  const api = `https://api.github.com/repos/octo/hello/issues/${n}`;
  const user = {
    login: "octocat",
    id: 1,
    node_id: "MDQ6VXNlcjE=",
    avatar_url: "https://github.com/images/error/octocat_happy.gif",
    gravatar_id: "",
    url: "https://api.github.com/users/octocat",
    html_url: "https://github.com/octocat",
    type: "User",
    site_admin: false,
  };
  return {
    id: 1000 + n,
    node_id: `MDU6SXNzdWUx${n}`,
    url: api,
    repository_url: "https://api.github.com/repos/octo/hello",
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `https://github.com/octo/hello/issues/${n}`,
    number: n,
    state: "open",
    title: `Found a bug number ${n}`,
    body: "I'm having a problem with this. ".repeat(6),
    user,
    labels: [
      {
        id: 208045946,
        node_id: "MDU6TGFiZWwyMDgwNDU5NDY=",
        url: "https://api.github.com/repos/octo/hello/labels/bug",
        name: "bug",
        description: "Something isn't working",
        color: "f29513",
        default: true,
      },
    ],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    comments: 0,
    created_at: "2026-04-22T13:33:48Z",
    updated_at: "2026-04-22T13:33:48Z",
    closed_at: null,
    author_association: "COLLABORATOR",
  };
}

function githubHandler(req: RecordedRequest, res: import("node:http").ServerResponse): void {
  if (req.path === "/repos/octo/hello/issues") {
    const perPage = Number(new URLSearchParams(req.query).get("per_page") ?? "30");
    return json(
      res,
      200,
      Array.from({ length: perPage }, (_, i) => githubIssue(i + 1)),
    );
  }
  const m = /^\/repos\/octo\/hello\/issues\/(\d+)$/.exec(req.path);
  if (m !== null) return json(res, 200, githubIssue(Number(m[1])));
  json(res, 404, { message: "Not Found" });
}

beforeAll(async () => {
  [twilio, slack, github] = await Promise.all([
    startUpstream(twilioHandler, { tls: true, hostname: "localhost" }),
    startUpstream(slackHandler, { tls: true, hostname: "localhost" }),
    startUpstream(githubHandler, { tls: true, hostname: "localhost" }),
  ]);
  root = await tempDir("import-real");
  const real = (name: string, serverUrl: string): ImportedDocument => ({
    name,
    document: `fixtures/openapi/real/${name}.json`,
    serverUrl,
  });
  ({ imports, built } = await importAndBuild(root, [
    real("twilio-messages", twilio.origin),
    real("slack-chat", `${slack.origin}/api`),
    real("github-issues", github.origin),
  ]));
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all([twilio?.close(), slack?.close(), github?.close()]);
  if (root) await removeDir(root);
});

async function client(name: string, env: Record<string, string>): Promise<TestClient> {
  const c = await connect("modern", join(root, "out", name, "server.mjs"), {
    serverArgs: ["--allow-private-network"],
    env: { NODE_EXTRA_CA_CERTS: TEST_CA, ...env },
  });
  clients.push(c);
  return c;
}

describe("real documents, imported and built", () => {
  it("imports each document and builds every spec unchanged", () => {
    for (const [name, r] of Object.entries(imports)) expect(r.code, `${name}: ${r.stderr}`).toBe(0);
    expect(built.code, built.stderr).toBe(0);
  });
});

describe("Twilio messages (http basic, a 204 DELETE)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("twilio-messages", { ACCOUNT_SID_AUTH_TOKEN: TWILIO_PAIR });
  });

  it("writes the basic scheme as a secret holding the encoded pair, bound to the upstream's host", async () => {
    const spec = await readFile(join(root, "specs", "twilio-messages.yaml"), "utf8");
    expect(spec).toContain("# ACCOUNT_SID_AUTH_TOKEN: the base64 of user:password, sent as Authorization: Basic");
    expect(spec).toContain(`  - name: ACCOUNT_SID_AUTH_TOKEN\n    hosts: [ localhost:${twilio.port} ]\n`);
  });

  it("fetches a message with the account's basic credentials where Twilio expects them", async () => {
    const { result, request } = await call(c, twilio, "FetchMessage", { AccountSid: ACCOUNT, Sid: MESSAGE });
    expect([request.method, request.path]).toEqual(["GET", `/2010-04-01/Accounts/${ACCOUNT}/Messages/${MESSAGE}.json`]);
    expect(request.headers["authorization"]).toBe(`Basic ${TWILIO_PAIR}`);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ body: "Hello from kervanc" });
    // The secret never reaches the model.
    expect(JSON.stringify(result)).not.toContain(TWILIO_PAIR);
  });

  it("creates a message with a form-encoded body (the kervanc form-body extension), decoded by the upstream", async () => {
    expect(imports["twilio-messages"]!.stderr).toContain("info KV8001");
    const { result, request } = await call(c, twilio, "CreateMessage", {
      AccountSid: ACCOUNT,
      To: "+15558675310",
      From: "+15005550006",
      Body: "Hello & welcome",
    });
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      To: "+15558675310",
      From: "+15005550006",
      Body: "Hello & welcome",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ body: "Hello & welcome", status: "queued" });
  });

  it("reports the 204 of a DELETE as a success, so the model does not retry a destructive call", async () => {
    const { result, request } = await call(c, twilio, "DeleteMessage", { AccountSid: ACCOUNT, Sid: MESSAGE });
    expect(request.method).toBe("DELETE");
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: "text", text: "The call succeeded (upstream answered 204 No Content, with no content)." },
    ]);
  });
});

describe("Slack (oauth2, a token parameter)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("slack-chat", { SLACK_AUTH: SLACK_TOKEN });
  });

  it("never offers the token parameter to the model, and sends the OAuth token as Authorization: Bearer", async () => {
    const { tools } = await c.listTools();
    for (const tool of tools)
      expect(Object.keys((tool.inputSchema as { properties?: object }).properties ?? {})).not.toContain("token");
    const { result, request } = await call(c, slack, "conversations_history", { channel: "C1234567890" });
    expect([request.method, request.path]).toEqual(["GET", "/api/conversations.history"]);
    expect(new URLSearchParams(request.query).get("channel")).toBe("C1234567890");
    expect(new URLSearchParams(request.query).has("token")).toBe(false);
    expect(request.headers["authorization"]).toBe(`Bearer ${SLACK_TOKEN}`);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ ok: true, has_more: false });
  });
});

describe("GitHub issues (no security scheme, a page of 30 by default)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("github-issues", {});
  });

  it("says the document declares no security scheme", () => {
    expect(imports["github-issues"]!.stderr).toContain(
      "KV7016: The document declares no security scheme, so the tools send no credentials.",
    );
  });

  it("gets an issue with its content, identity and people first, and no node ids", async () => {
    const { result } = await call(c, github, "issues_get", { owner: "octo", repo: "hello", issue_number: 7 });
    expect(result.isError).toBeFalsy();
    const issue = result.structuredContent as Record<string, unknown>;
    expect(issue).toMatchObject({
      title: "Found a bug number 7",
      state: "open",
      number: 7,
      id: 1007,
      user: { login: "octocat" },
    });
    expect(issue["body"]).toContain("I'm having a problem");
    expect(JSON.stringify(issue)).not.toContain("node_id");
  });

  it("lists a default page of 30 issues within maxOutputChars, as the import estimated", async () => {
    const { result, request } = await call(c, github, "issues_list-for-repo", { owner: "octo", repo: "hello" });
    expect(new URLSearchParams(request.query).has("per_page")).toBe(false);
    expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
    const items = (result.structuredContent as { items: Record<string, unknown>[] }).items;
    expect(items).toHaveLength(30);
    expect(items[0]).toMatchObject({ title: "Found a bug number 1", body: expect.stringContaining("problem") });
    expect(result.content![0]!.text!.length).toBeLessThanOrEqual(20_000);
  });
});

describe("Slack chat.postMessage (a form body with oauth2)", () => {
  let c: TestClient;
  beforeAll(async () => {
    c = await client("slack-chat", { SLACK_AUTH: SLACK_TOKEN });
  });

  it("posts a message as a form, the token as Authorization: Bearer, and the model sees the text it posted", async () => {
    const { result, request } = await call(c, slack, "chat_postMessage", {
      channel: "C1234567890",
      text: "Deploy finished",
    });
    expect(request.headers["authorization"]).toBe(`Bearer ${SLACK_TOKEN}`);
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      channel: "C1234567890",
      text: "Deploy finished",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      ok: true,
      channel: "C1234567890",
      message: { text: "Deploy finished" },
    });
  });
});
