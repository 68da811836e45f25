/**
 * A spec-test case from a real call (`kervanc call --record FILE`): the exchange the recorder saw and the result,
 * with every secret value replaced by its `{{secrets.NAME}}` placeholder. A case in which any form of a secret
 * remains (encoded, escaped) is refused, not written: a test file is committed, a secret must never be.
 */
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isMap, isSeq, parseDocument, YAMLSeq } from "yaml";
import type { JsonValue } from "../analyze/shape.ts";
import type { RecordedExchange } from "../devloop/recorder.ts";
import { SecretVault } from "@kervanc/runtime/secrets";
import { errorCode, readRegularFile } from "../load/regular-file.ts";

export interface RecordInput {
  readonly tool: string;
  readonly arguments: JsonValue;
  /** The exchanges of the call (a case holds one; none when the call never reached the upstream). */
  readonly exchanges: readonly RecordedExchange[];
  /** Why upstream requests of the call never completed (the server gave up on them, the API failed). */
  readonly unfinished: readonly string[];
  /** The header names the spec's tool sets: the selection a case checks. */
  readonly headerNames: readonly string[];
  readonly result: { readonly isError: boolean; readonly text: string; readonly structured: unknown };
  readonly secrets: ReadonlyMap<string, string>;
}

export class RecordRefused extends Error {}

const isJsonType = (contentType: string | undefined): boolean =>
  contentType !== undefined && /\bjson\b/i.test(contentType);

function bodyValue(text: string, contentType: string | undefined): JsonValue {
  if (isJsonType(contentType)) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return text;
}

function exactJson(text: string, contentType: string | undefined): JsonValue {
  const value = bodyValue(text, contentType);
  return typeof value !== "string" && JSON.stringify(value) === text ? value : text;
}

export function recordedCase(input: RecordInput, name: string): Record<string, JsonValue> {
  if (input.unfinished.length > 0)
    throw new RecordRefused(
      `the upstream request did not complete (${input.unfinished[0]}); a case needs the whole exchange, nothing was written.`,
    );
  if (input.exchanges.some((x) => x.overLimit))
    throw new RecordRefused(
      "the upstream's answer is larger than the tool's maxResponseBytes (the relay read no further); a case of that size is not written.",
    );
  if (input.exchanges.length > 1)
    throw new RecordRefused(`the call made ${input.exchanges.length} upstream requests; a case holds one.`);
  const x = input.exchanges[0];
  const c: Record<string, JsonValue> = { name, tool: input.tool, arguments: input.arguments };
  if (x !== undefined) {
    const query: Record<string, JsonValue> = {};
    for (const [k, v] of new URLSearchParams(x.query)) {
      const prior = query[k];
      query[k] = prior === undefined ? v : Array.isArray(prior) ? [...prior, v] : [prior as string, v];
    }
    const wanted = new Set(input.headerNames.map((h) => h.toLowerCase()));
    const headers = Object.fromEntries(Object.entries(x.headers).filter(([k]) => wanted.has(k)));
    const contentType = x.responseHeaders["content-type"];
    c["upstream"] = {
      request: {
        method: x.method,
        path: x.path,
        ...(x.query !== "" ? { query } : {}),
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        ...(x.body !== "" ? { body: bodyValue(x.body, x.headers["content-type"]) } : {}),
      },
      response: {
        status: x.status,
        ...(contentType !== undefined ? { headers: { "content-type": contentType } } : {}),
        // As JSON only when replaying it gives the same bytes: a raw-output tool returns the body as it came.
        body: exactJson(x.responseBody, contentType),
      },
    };
  }
  const { isError, text, structured } = input.result;
  c["expect"] = isError
    ? { error: text }
    : { text, ...(structured !== undefined ? { structured: structured as JsonValue } : {}) };
  const masked = mask(c, input.secrets) as Record<string, JsonValue>;
  const text2 = JSON.stringify(masked);
  const leaked = [...input.secrets].filter(([n, v]) => {
    const one = new SecretVault();
    one.add(n, v);
    return one.containsSecret(text2);
  });
  if (leaked.length > 0) {
    throw new RecordRefused(
      `the recorded exchange still holds ${leaked.map(([n]) => n).join(", ")} in an encoded form; nothing was written. Write this case by hand.`,
    );
  }
  return masked;
}

function mask(value: JsonValue, secrets: ReadonlyMap<string, string>): JsonValue {
  if (typeof value === "string") {
    let out = value;
    for (const [name, secret] of secrets) out = out.split(secret).join(`{{secrets.${name}}}`);
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => mask(v, secrets));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [mask(k, secrets) as string, mask(v, secrets)]));
  return value;
}

/**
 * Appends the case to FILE (keeping what is there, comments included), or starts the file. FILE itself is never
 * followed: a test file is often in a cloned repository, and a symbolic link planted there (to a file elsewhere,
 * or to where no file is yet) would have the recording written outside the folder the user named. The new text
 * goes to a fresh file beside FILE, renamed over it, so a reader never sees half a file.
 */
export async function appendCase(
  file: string,
  make: (taken: ReadonlySet<string>) => Record<string, JsonValue>,
): Promise<string> {
  // Not readFile: a named pipe or a device at FILE would block or never end (readRegularFile says so instead).
  const read = await readRegularFile(file, { noFollow: true });
  if (!read.ok && read.what !== undefined)
    throw new RecordRefused(
      `${file} is ${read.what}, not a test file; nothing was written.${read.what === "a symbolic link" ? " Name the file it points to." : ""}`,
    );
  if (!read.ok && read.code !== "ENOENT")
    throw new RecordRefused(`${file} could not be read (${read.code}); nothing was written.`);
  const existing = read.ok ? Buffer.from(read.bytes).toString("utf8") : null;
  const doc =
    existing !== null
      ? parseDocument(existing)
      : parseDocument(
          "# Spec tests: run with kervanc test. Format: the kervanc package's schema/kervan-test.schema.json.\ntests: []\n",
        );
  if (doc.errors.length > 0)
    throw new RecordRefused(
      `${file} is not valid YAML (${doc.errors[0]!.message.split("\n")[0]}); nothing was written.`,
    );
  let tests = isMap(doc.contents) ? doc.get("tests", true) : undefined;
  if (!isSeq(tests)) {
    if (existing !== null && !isMap(doc.contents))
      throw new RecordRefused(`${file} is not a test file (no tests: list); nothing was written.`);
    tests = new YAMLSeq();
    doc.set("tests", tests);
  }
  const seq = tests as YAMLSeq;
  seq.flow = false;
  const taken = new Set(seq.items.map((item) => (isMap(item) ? String(item.get("name")) : "")));
  const c = make(taken);
  seq.add(doc.createNode(c));
  const temp = join(dirname(file), `.${basename(file)}.record-${process.pid}`);
  let created = false;
  try {
    // "wx": never through something already at the temporary name.
    await writeFile(temp, doc.toString({ lineWidth: 0 }), { flag: "wx" });
    created = true;
    await rename(temp, file);
  } catch (error) {
    if (created) await rm(temp, { force: true });
    throw new RecordRefused(`${file} could not be written (${errorCode(error)}); nothing was written.`);
  }
  return String(c["name"]);
}
