/**
 * What a proposed select never drops (issue 36, item 1): the identifiers of each record it keeps, and the payload,
 * the part of the answer the response exists for.
 *
 * A select that keeps paging fields and drops the list they page (Spotify's search), or keeps a chat completion's
 * `finish_reason` and drops its `message`, looks fine in review and gives the model nothing. So these fields are
 * kept before any ranked field, whatever the field cap; only the select's length limit can leave them out, and
 * then the proposal says so. A record's references to other records (`owner_id`, `leadId`) are kept the same way,
 * after its own identifiers: a model needs them to make the next call.
 */

/** Names of an identifier on their own (`id`, Jira's `key`, GitHub's `sha`). */
const EXACT_ID = /^(id|uuid|guid|sid|key|slug|number|sha)$/i;
/** `client_id`, `InvoiceID`, `InvoiceNumber`, `issueKey`: a prefix and an identifier suffix. */
const SUFFIX_ID = /^(.+?)_?(id|number|key|uuid)$/i;
/**
 * `owner_id`, `leadId`, `ContactID`: a reference to another record. Not GitHub's `node_id` (hypermedia) nor its
 * `gravatar_id` (deprecated, always empty): neither names a record a model could ask for.
 */
const REFERENCE = /^(?!(node_id|gravatar_id)$).+(_id|Id|ID)$/;

/**
 * Names of the field a record exists for, payload wherever they are (a list on the answer's own object chain is
 * payload whatever its name: `data`, `items`, `results`, `entries`, `values`, `hits`, ...).
 */
const PAYLOAD =
  /^(content|contents|message|messages|embeddings?|outputs?|choices|documents?|text|body|candidates|completion|answer|transcript)$/i;

/** Hypermedia lists and maps, never payload. */
const PLUMBING = /^(_?links|_embedded|_meta|headers?)$/i;

export function isPayloadName(name: string): boolean {
  return PAYLOAD.test(name);
}

export function isPlumbingName(name: string): boolean {
  return PLUMBING.test(name);
}

/** `invoices` → `invoice`, `entries` → `entry`: enough to match `InvoiceID` to the list `Invoices`. */
function singular(name: string): string {
  const n = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  if (n.endsWith("ies")) return `${n.slice(0, -3)}y`;
  if (n.endsWith("ses") || n.endsWith("xes")) return n.slice(0, -2);
  return n.endsWith("s") ? n.slice(0, -1) : n;
}

/**
 * The identifier fields among a record's scalar fields: the ones named `id`, `key`, `sha`, ... and, when the record
 * has none, the ones whose prefix names the record (`InvoiceID` in Xero's `Invoice`, `client_id` in Hydra's
 * `oAuth2Client`), by its schema's name or the list holding it; failing that, a record's only `*_id` field.
 */
export function identifierFields(names: readonly string[], recordNames: readonly string[]): Set<string> {
  const exact = names.filter((n) => EXACT_ID.test(n));
  if (exact.length > 0) return new Set(exact);
  const records = recordNames.map(singular).filter((r) => r.length > 0);
  const suffixed = names.filter((n) => SUFFIX_ID.test(n) && !/node_?id$/i.test(n));
  const named = suffixed.filter((n) => {
    const prefix = singular(SUFFIX_ID.exec(n)![1]!);
    return prefix.length > 0 && records.some((r) => r.endsWith(prefix) || prefix.endsWith(r));
  });
  if (named.length > 0) return new Set(named);
  const ids = suffixed.filter((n) => /_?id$/i.test(n));
  return new Set(ids.length === 1 ? ids : []);
}

/**
 * The references among a record's scalar fields: the ones named `*_id`, `*Id` or `*ID` (Apideck's `owner_id`,
 * Slack's `client_msg_id`), but for GitHub's `node_id` and `gravatar_id`. Not required in an output schema: only the record's own
 * identifier is.
 */
export function referenceFields(names: readonly string[]): Set<string> {
  return new Set(names.filter((n) => REFERENCE.test(n)));
}
