/**
 * Checks what the model got back against the answer the upstream gave: the identifiers of the answer and of the
 * records of its main list (`id`, `*_id`, `*Id`, `key`, `name`, `uuid`, `sid`, `gid`), and its payload (the items
 * of each list at the top but hypermedia `links`, the keys of each map, the content fields). Values are looked for
 * in the result's structured content, else its text.
 */
import type { ToolResult } from "../../helpers/clients.ts";

const IDENTIFIER = /^(id|key|name|uuid|sid|gid|slug)$|_id$|[a-z]Id$|[a-z]ID$/;
const CONTENT = /^(message|content|text|body|choices|data|items|results|embedding|document|documents|value|values)$/i;
/** The import's plumbing names for a list (payload.ts), written out here so the checker does not follow the code. */
const PLUMBING_LIST = /^_?links$/i;

const NOT_IDS = new Set(["node_id", "gravatar_id"]);

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Where a value is in the serialized result: strings by their JSON text, numbers as a whole number. */
function found(haystack: string, value: unknown): boolean {
  if (typeof value === "string") {
    if (value === "") return true;
    return haystack.includes(JSON.stringify(value).slice(1, -1));
  }
  if (typeof value === "number")
    return new RegExp(`(^|[^0-9.])${String(value).replace(".", "\\.")}($|[^0-9])`).test(haystack);
  if (typeof value === "boolean") return true;
  return true;
}

function identifiers(record: Json, where: string): [string, unknown][] {
  return (
    Object.entries(record)
      // node_id is GitHub's hypermedia id and gravatar_id its deprecated, always empty avatar id: the import leaves
      // both out by design (docs/import.md).
      .filter(([k, v]) => IDENTIFIER.test(k) && !NOT_IDS.has(k) && (typeof v === "string" || typeof v === "number"))
      .map(([k, v]) => [`${where}${k}`, v])
  );
}

/** Each value the result must hold, with where it is in the answer. */
export function expectations(answer: unknown): [string, unknown][] {
  const out: [string, unknown][] = [];
  const list = (items: unknown[], where: string): void => {
    items.forEach((item, i) => {
      if (isRecord(item)) {
        const ids = identifiers(item, `${where}[${i}].`);
        if (ids.length > 0) out.push(...ids);
        else {
          const first = Object.entries(item).find(([, v]) => typeof v === "string" || typeof v === "number");
          if (first) out.push([`${where}[${i}].${first[0]}`, first[1]]);
        }
      } else if (typeof item === "string" || typeof item === "number") out.push([`${where}[${i}]`, item]);
    });
  };
  if (Array.isArray(answer)) list(answer, "");
  else if (isRecord(answer)) {
    out.push(...identifiers(answer, ""));
    for (const [k, v] of Object.entries(answer)) {
      // A hypermedia list (`links`, `_links`: Google Tasks' task links) is plumbing, which the import leaves out by
      // design, as it does node_id (docs/import.md, "Outputs").
      if (Array.isArray(v) && PLUMBING_LIST.test(k)) continue;
      if (Array.isArray(v)) list(v, k);
      else if (isRecord(v) && /^key_[ab]$/.test(Object.keys(v)[0] ?? ""))
        out.push(...Object.keys(v).map((key): [string, unknown] => [`${k} (a map key)`, key]));
      else if (CONTENT.test(k) && typeof v === "string") out.push([k, v]);
      else if (CONTENT.test(k) && isRecord(v)) out.push(...identifiers(v, `${k}.`));
    }
  } else if (typeof answer === "string") out.push(["the text", answer]);
  return out;
}

/** The problems of a result against the answer it came from. */
export function checkResult(answer: unknown, result: ToolResult, answerText?: string): string[] {
  if (result.isError) return [`an error: ${(result.content?.[0]?.text ?? "").slice(0, 160)}`];
  const text = result.content?.map((c) => c.text ?? "").join("\n") ?? "";
  const haystack = result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : text;
  const problems: string[] = [];
  if (answer === undefined) {
    if (answerText !== undefined && answerText !== "" && !text.includes(answerText.slice(0, 40)))
      problems.push("the text answer is lost");
    return problems;
  }
  const missing = expectations(answer).filter(([, v]) => !found(haystack, v) && !found(text, v));
  if (missing.length > 0)
    problems.push(
      `loses ${missing
        .slice(0, 6)
        .map(([w]) => w)
        .join(", ")}${missing.length > 6 ? ` and ${missing.length - 6} more` : ""}`,
    );
  return problems;
}
