/**
 * Which response fields a proposed select keeps first, and how large a kept value is likely to be.
 *
 * A model reading an answer needs its content and identity (`body`, `text`, `title`, `name`, `state`, ids),
 * then dates, counts and who owns it; hypermedia (`*_url`, `_links`, `href`), `node_id` and etags are for
 * programs and go last. Within a rank, document order is kept, so a reviewer can predict the result.
 */

/** Lower ranks are kept first. */
export const Rank = { Content: 0, Identity: 1, Context: 2, Other: 3, Plumbing: 4 } as const;
export type Rank = (typeof Rank)[keyof typeof Rank];

const CONTENT =
  /^(body|text|title|name|summary|description|message|content|subject|state|status|type|kind|label|labels|question|answer|comment|value|display_name|full_name|email|login|username|html_url)$/i;
const IDENTITY =
  /^(id|uuid|guid|sid|key|slug|number|ts|handle|code|created_at|createdAt|created|updated_at|updatedAt|updated)$/i;
const CONTEXT_NAME =
  /^(owner|user|author|creator|assignee|assignees|sender|from|to|channel|repository|project|team|organization|org|account|customer|price|amount|currency|total|count|size|priority|tags|topics|created|updated|closed|due|started|ended|deleted|private|public|draft|locked|archived)$/i;
const DATE = /(_at|At|_on|_date|Date|_time|Time|^date|^time|stamp)$/;
const COUNT = /(_count|Count|^num_|^total|_total)$/;
/** Money (Xero's `AmountDue`, `SubTotal`, `Total`): what an invoice or an order is about, kept with identity. */
const MONEY = /^(amount|sub_?total|total|balance|price|cost)|(amount|total|balance|price|cost|due|paid)$/i;
/** `InvoiceID`, `client_id`, `InvoiceNumber`: identifiers named after their record. */
const SUFFIX_ID = /.(_id|Id|ID|_number|Number|_key|Key)$/;
const PLUMBING =
  /(^|_)(url|uri|href|links?|etag|node_id|self|api_version|gravatar_id|permalink|hash|checksum|cursor)$|Url$|Uri$|^_|^x-/i;

/** Names that identify a record: the only fields a proposed output schema requires. */
const IDENTITY_REQUIRED = /^(id|uuid|guid|sid|key|slug|number)$/i;

export function fieldRank(name: string): Rank {
  if (PLUMBING.test(name) && name.toLowerCase() !== "html_url") return Rank.Plumbing;
  if (CONTENT.test(name)) return Rank.Content;
  if (IDENTITY.test(name) || SUFFIX_ID.test(name)) return Rank.Identity;
  if (COUNT.test(name)) return Rank.Context;
  if (MONEY.test(name)) return Rank.Identity;
  if (CONTEXT_NAME.test(name) || DATE.test(name) || COUNT.test(name)) return Rank.Context;
  return Rank.Other;
}

export function isIdentityField(name: string): boolean {
  return IDENTITY_REQUIRED.test(name);
}

/** Fields in the order a select keeps them: by rank, then document order. */
export function ranked<T extends { readonly name: string }>(
  fields: readonly T[],
  rankOf: (field: T) => Rank = (f) => fieldRank(f.name),
): T[] {
  return fields
    .map((field, index) => ({ field, index, rank: rankOf(field) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((x) => x.field);
}

/**
 * The estimated characters of one scalar value in the JSON a select returns, from its schema. The rules (also
 * written into the proposal's comment): a string's maxLength when it has one (up to 300), else by format
 * (date-time 25, date 12, uuid 38, uri 60, email 30), an enum's longest value, 300 for content fields (`body`,
 * `text`, `description`, ...) and 24 for other strings; numbers 10, booleans 5.
 */
export function scalarChars(
  name: string,
  types: readonly string[],
  hints: { format?: string; maxLength?: number; longestEnum?: number },
): number {
  if (!types.includes("string")) return types.includes("boolean") && types.length === 1 ? 5 : 10;
  if (hints.longestEnum !== undefined) return hints.longestEnum + 2;
  if (hints.maxLength !== undefined) return Math.min(hints.maxLength, 300) + 2;
  switch (hints.format) {
    case "date-time":
      return 25;
    case "date":
      return 12;
    case "uuid":
      return 38;
    case "uri":
    case "url":
      return 60;
    case "email":
      return 30;
    default:
      break;
  }
  return /^(body|text|description|message|content|summary|comment)$/i.test(name) ? 300 : 24;
}

/** How the estimate was made, for the proposal's comment. */
export const ESTIMATE_RULE = "strings by maxLength or format, 300 for body/text/description, 24 otherwise; numbers 10";
