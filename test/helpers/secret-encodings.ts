/**
 * A secret in the encodings a hostile or careless upstream echoes it in, and a check, written independently of
 * the runtime's scanner, that a text holds the secret in none of them: it undoes JSON, HTML and percent escapes
 * (each alone and all together, up to three layers), reverses, and decodes every base64 run at every alignment
 * and every hex run at both, then compares without case.
 */

const encoder = new TextEncoder();

function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/** Python's urllib.parse.quote: unreserved characters and `safe` stay, every other byte is %XX (upper case). */
export function pythonQuote(value: string, safe = "/"): string {
  let out = "";
  for (const b of encoder.encode(value)) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9_.~-]/.test(c) || (b < 0x80 && safe.includes(c)) ? c : `%${hex2(b).toUpperCase()}`;
  }
  return out;
}

/** Python's quote_plus: as quote with no safe characters, and a space as `+`. */
export function pythonQuotePlus(value: string): string {
  return pythonQuote(value, " ").replace(/ /g, "+");
}

/** Every UTF-16 unit as \uXXXX, with the case of each hex digit chosen by `upper`. */
export function unicodeEscape(value: string, upper: (index: number) => boolean = () => false): string {
  let k = 0;
  return [...value]
    .flatMap((ch) => Array.from({ length: ch.length }, (_, i) => ch.charCodeAt(i)))
    .map((unit) => {
      const digits = unit.toString(16).padStart(4, "0");
      return `\\u${[...digits].map((d) => (upper(k++) ? d.toUpperCase() : d)).join("")}`;
    })
    .join("");
}

/** The secret's bytes inside a longer base64 text, starting `offset` bytes into it. */
export function base64At(value: string, offset: number, urlSafe = false): string {
  const bytes = Buffer.concat([
    Buffer.from("\x01\xfe\x7f".slice(0, offset), "latin1"),
    Buffer.from(value),
    Buffer.from("tail-bytes"),
  ]);
  return bytes.toString(urlSafe ? "base64url" : "base64");
}

/** Named encodings of a secret, each of which decodes (or reads, to a person) as the secret. */
export function encodings(value: string): Record<string, string> {
  const bytes = Buffer.from(value);
  const out: Record<string, string> = {
    raw: value,
    jsonEscaped: JSON.stringify(value).slice(1, -1),
    jsonSlash: JSON.stringify(value).slice(1, -1).replace(/\//g, "\\/"),
    unicodeLower: unicodeEscape(value),
    unicodeUpper: unicodeEscape(value, () => true),
    unicodeMixed: unicodeEscape(value, (i) => i % 3 === 1),
    unicodeSome: [...value]
      .map((ch, i) => (i % 2 === 0 ? unicodeEscape(ch) : ch === "\\" || ch === '"' ? `\\${ch}` : ch))
      .join(""),
    unicodeTwice: unicodeEscape(value).replace(/\\/g, "\\\\"),
    htmlDecimal: [...value].map((ch) => `&#${ch.codePointAt(0)};`).join(""),
    htmlHex: [...value].map((ch) => `&#x${ch.codePointAt(0)!.toString(16)};`).join(""),
    htmlHexUpperNoSemicolon: [...value].map((ch) => `&#X${ch.codePointAt(0)!.toString(16).toUpperCase()}`).join(""),
    htmlNamed: value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/\//g, "&sol;"),
    htmlTwice: [...value].map((ch) => `&amp;#${ch.codePointAt(0)};`).join(""),
    percentUpper: encodeURIComponent(value),
    percentLower: encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    percentEveryByte: [...bytes].map((b) => `%${hex2(b)}`).join(""),
    encodeURI: encodeURI(value),
    formEncoded: new URLSearchParams({ v: value }).toString().slice(2),
    pythonQuote: pythonQuote(value),
    pythonQuoteKeeping: pythonQuote(value, "/+=&"),
    pythonQuotePlus: pythonQuotePlus(value),
    upper: value.toUpperCase(),
    lower: value.toLowerCase(),
    hexLower: bytes.toString("hex"),
    hexUpper: bytes.toString("hex").toUpperCase(),
    reversed: [...value].reverse().join(""),
    base64: bytes.toString("base64"),
    base64Url: bytes.toString("base64url"),
    base64At1: base64At(value, 1),
    base64At2: base64At(value, 2),
    base64At0Long: base64At(value, 0),
    base64UrlAt1: base64At(value, 1, true),
    base64UrlAt2: base64At(value, 2, true),
  };
  return out;
}

function undoJson(text: string): string {
  return text.replace(/\\(u\{0*[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\\/"'bfnrt])/g, (m, e: string) => {
    if (e[1] === "{") {
      const cp = parseInt(e.slice(2, -1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    if (e[0] === "u" || e[0] === "x") return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" } as Record<string, string>)[e] ?? e;
  });
}

/** HTML's named references of ASCII characters (letters and digits have none), and the four read without `;`. */
const HTML_NAMED: Record<string, string> = {
  amp: "&",
  AMP: "&",
  quot: '"',
  QUOT: '"',
  lt: "<",
  LT: "<",
  gt: ">",
  GT: ">",
  apos: "'",
  sol: "/",
  bsol: "\\",
  plus: "+",
  equals: "=",
  lowbar: "_",
  UnderBar: "_",
  lbrack: "[",
  rbrack: "]",
  lsqb: "[",
  rsqb: "]",
  lbrace: "{",
  rbrace: "}",
  lcub: "{",
  rcub: "}",
  vert: "|",
  verbar: "|",
  VerticalLine: "|",
  grave: "`",
  DiacriticalGrave: "`",
  ast: "*",
  midast: "*",
  Tab: "\t",
  NewLine: "\n",
};
/** Read without the `;` only when no letter, digit or `=` follows (as HTML reads attribute values). */
const HTML_LEGACY = /^(amp|AMP|lt|LT|gt|GT|quot|QUOT)$/;

function undoHtml(text: string): string {
  const html = /&(#[xX]0*[0-9a-fA-F]{1,6}|#0*[0-9]{1,7}|[a-zA-Z]{2,16})(;?)/g;
  return text.replace(html, (m, e: string, semi: string, at: number) => {
    if (e[0] !== "#") {
      if (semi && Object.hasOwn(HTML_NAMED, e)) return HTML_NAMED[e]!;
      const next = text[at + m.length - semi.length] ?? "";
      return HTML_LEGACY.test(e) && !/[0-9=]/.test(next) ? HTML_NAMED[e]! + semi : m;
    }
    const cp = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
}

function undoPercent(text: string, plusIsSpace: boolean): string {
  const spaced = plusIsSpace ? text.replace(/\+/g, " ") : text;
  return spaced.replace(/%u[0-9a-fA-F]{4}|(%[0-9a-fA-F]{2})+/g, (run) => {
    if (run[1] === "u") return String.fromCharCode(parseInt(run.slice(2), 16));
    try {
      return decodeURIComponent(run);
    } catch {
      return Buffer.from(run.replace(/%/g, ""), "hex").toString("latin1");
    }
  });
}

/**
 * One pass that undoes the families in `mask` (1 JSON and JavaScript, 2 HTML, 4 percent) together, left to right:
 * where escapes of two families overlap, the one that starts first is read, as a reader undoing both at once would.
 */
export function undoFamilies(text: string, mask: number): string {
  const parts: string[] = [];
  if (mask & 1) parts.push(String.raw`\\(?:u\{0*[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\\/"'bfnrt])`);
  if (mask & 2) parts.push(String.raw`&(?:#[xX]0*[0-9a-fA-F]{1,6}|#0*[0-9]{1,7}|[a-zA-Z]{2,16});?`);
  if (mask & 4) parts.push(String.raw`%u[0-9a-fA-F]{4}|(?:%[0-9a-fA-F]{2})+`);
  return text.replace(new RegExp(parts.join("|"), "g"), (m: string, at: number) => {
    if (m[0] === "\\") return undoJson(m);
    if (m[0] === "%") return undoPercent(m, false);
    // The character after the reference decides whether a name without its `;` is read: read it with that
    // character after it (which the match could not take in), then drop the character again.
    const after = text[at + m.length] ?? "";
    const read = undoHtml(m + after);
    return after === "" ? read : read.slice(0, -after.length);
  });
}

/**
 * The readings of `text` that hold the secret, by every reader that makes up to three passes, each undoing any
 * set of the three families together (343 orders), case folded as Unicode does.
 */
export function readersThatLeak(text: string, secret: string): string[] {
  const wanted = fold(secret);
  const seen = new Set<string>([text]);
  let layer = [text];
  for (let depth = 0; depth < 3; depth++) {
    const next: string[] = [];
    for (const t of layer)
      for (let mask = 1; mask <= 7; mask++) {
        const d = undoFamilies(t, mask);
        if (!seen.has(d)) (seen.add(d), next.push(d));
      }
    layer = next;
  }
  return [...seen].filter((r) => fold(r).includes(wanted));
}

/** Every reading of a text this check considers: escapes undone in every order, reversed, base64 and hex decoded. */
export function readings(text: string): string[] {
  const decoders: Array<(t: string) => string> = [
    undoJson,
    undoHtml,
    (t) => undoPercent(t, false),
    (t) => undoPercent(t, true),
    (t) => undoPercent(undoHtml(undoJson(t)), false),
    (t) => undoPercent(undoHtml(undoJson(t)), true),
  ];
  const seen = new Set<string>([text]);
  let layer = [text];
  for (let depth = 0; depth < 3; depth++) {
    const next: string[] = [];
    for (const t of layer)
      for (const decode of decoders) {
        const d = decode(t);
        if (!seen.has(d)) (seen.add(d), next.push(d));
      }
    layer = next;
  }
  const out = [...seen];
  for (const t of [...seen]) {
    out.push([...t].reverse().join(""));
    for (const run of t.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
      for (let skip = 0; skip < 4; skip++) {
        const body = run.slice(skip).replace(/-/g, "+").replace(/_/g, "/");
        out.push(Buffer.from(body, "base64").toString("latin1"), Buffer.from(body, "base64").toString("utf8"));
      }
    }
    for (const run of t.match(/[0-9a-fA-F]{16,}/g) ?? []) {
      for (let skip = 0; skip < 2; skip++) out.push(Buffer.from(run.slice(skip), "hex").toString("utf8"));
    }
  }
  return out;
}

/** Case ignored as Unicode does it for these purposes: `ſ`, `ı`, `K` (Kelvin) and `ς` read as `s`, `i`, `k`, `σ`. */
function fold(text: string): string {
  return text.toUpperCase().toLowerCase();
}

/** The readings of `text` that hold the secret (case ignored); empty when the text is clean. */
export function leaks(text: string, secret: string): string[] {
  const wanted = [fold(secret), fold(Buffer.from(secret).toString("latin1"))];
  return readings(text).filter((r) => wanted.some((w) => fold(r).includes(w)));
}

/** Every string in a value, keys included, as a client reads them. */
export function stringsOf(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") out.push(v);
    else if (typeof v === "number") out.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) (out.push(k), walk(x));
  };
  walk(value);
  return out;
}
