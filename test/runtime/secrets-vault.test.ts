/**
 * The redaction vault on its own: which values it accepts, every form it knows, and how it parses upstream JSON
 * (the fast path that skips copying must never skip a secret).
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../packages/runtime/src/plan.ts";
import { REDACTED, SecretVault, secretForms, stableBase64 } from "../../packages/runtime/src/secrets/secrets.ts";
import fc from "fast-check";
import { base64At, encodings, leaks, stringsOf } from "../helpers/secret-encodings.ts";

const SECRET = 'Tok3n/+="\\ü-x';

function vault(...values: string[]): SecretVault {
  const v = new SecretVault();
  values.forEach((value, i) => v.add(`S${i}`, value));
  return v;
}

describe("SecretVault", () => {
  it("refuses values too short to redact and text with an unpaired surrogate", () => {
    expect(() => vault("short")).toThrow(
      "Secret S0 is shorter than 8 characters. Short values cannot be redacted reliably; use a longer secret.",
    );
    expect(() => vault("abcdefg\ud800")).toThrow("Secret S0 is not valid Unicode text (it has an unpaired surrogate).");
  });

  it("redacts every form in text, longest first", () => {
    const v = vault(SECRET);
    const text = secretForms(SECRET).join(" | ");
    expect(
      v
        .redactText(text)
        .split(" | ")
        .every((part) => part.startsWith(REDACTED)),
    ).toBe(true);
    for (const form of secretForms(SECRET)) expect(v.redactText(text)).not.toContain(form);
  });

  it("parses JSON and redacts strings, keys, escaped forms and numbers whose source holds a secret", () => {
    const numeric = "820461937520";
    const v = vault(SECRET, numeric);
    const body = `{"a":${JSON.stringify(SECRET)},${JSON.stringify(SECRET)}:1,"u":"\\u0054ok3n\\/+=\\"\\\\ü-x","n":${numeric},"big":${numeric}000000000000000,"ok":3}`;
    expect(v.parseJson(body)).toEqual({ a: REDACTED, [REDACTED]: 1, u: REDACTED, n: REDACTED, big: REDACTED, ok: 3 });
  });

  it("redacts copy on write: the input stays as it was, untouched branches are shared, __proto__ stays data", () => {
    const v = vault(SECRET);
    const input = JSON.parse(
      `{"__proto__":{"x":1},"keep":{"a":[1,2]},"hit":["ok",${JSON.stringify(SECRET)}],"z":2}`,
    ) as { [key: string]: JsonValue };
    const out = v.redactValue(input) as Record<string, unknown>;
    expect((input["hit"] as JsonValue[])[1]).toBe(SECRET);
    expect(out["hit"]).toEqual(["ok", REDACTED]);
    expect(out["keep"]).toBe(input["keep"]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__", "keep", "hit", "z"]);
    expect(out["__proto__"]).toEqual({ x: 1 });
    expect(({} as Record<string, unknown>)["x"]).toBeUndefined();
    expect(v.redactValue(input["keep"]!)).toBe(input["keep"]);
  });

  it("takes the fast path only when nothing can match, and keeps __proto__ keys as data on both paths", () => {
    const v = vault("unrelated-secret-value");
    const plain = v.parseJson('{"__proto__":{"polluted":1},"a":[1,{"b":"c"}]}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.keys(plain)).toEqual(["__proto__", "a"]);
    const copied = v.redactValue(plain as never) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    // A secret hidden behind an escape forces the copying path.
    expect(v.parseJson('{"k":"unrelated\\u002dsecret-value"}')).toEqual({ k: REDACTED });
  });

  it("knows the re-encodings an upstream echoes (issue 13, finding 8), and finds them in parsed JSON values", () => {
    for (const secret of [SECRET, "sk-live-0123456789abcdef", "820461937520"]) {
      const v = vault(secret);
      const all = encodings(secret);
      const parsed = v.parseJson(JSON.stringify(all));
      for (const [name, text] of Object.entries(parsed as Record<string, string>)) {
        expect(leaks(text, secret), `${name}: ${text}`).toEqual([]);
      }
      // The same values as keys.
      const keys = v.parseJson(JSON.stringify(Object.fromEntries(Object.values(all).map((e, i) => [e, i]))));
      for (const key of stringsOf(keys)) expect(leaks(key, secret), key).toEqual([]);
    }
  });

  it("computes the base64 characters that depend on the secret alone, at each of the three alignments", () => {
    const secret = "sk-live-0123456789abcdef";
    const bytes = new TextEncoder().encode(secret);
    for (const offset of [0, 1, 2]) {
      const inner = stableBase64(bytes, offset);
      expect(inner.length).toBeGreaterThanOrEqual(Math.floor((4 * bytes.length) / 3) - 2);
      // Whatever bytes surround the secret, the inner characters appear in the encoding.
      for (const before of [[0], [255], [1, 2], [0xfe, 0x7f]]) {
        if (before.length % 3 !== offset % 3) continue;
        for (const after of [[], [0], [255, 255], [9, 9, 9]]) {
          const text = Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]).toString("base64");
          expect(text).toContain(inner);
        }
      }
      expect(vault(secret).redactText(base64At(secret, offset))).toContain(REDACTED);
    }
  });

  it("matches without regard to case, so a text that only differs in case is redacted too", () => {
    const v = vault("Tok3n-Value-xyz");
    expect(v.redactText("TOK3N-VALUE-XYZ tok3n-value-xyz tOK3N-vALUE-XYZ")).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`);
  });

  it("finds a secret behind HTML and percent escapes in JSON values, on the path that skips copying too", () => {
    const v = vault("sk_live_51HxYzAbCdEf0123");
    expect(
      v.parseJson('{"a":"&#115;k_live_51HxYzAbCdEf0123","b":"x%73K_LIVE_51HXYZABCDEF0123","c":"https://h/?q=1&r=%20"}'),
    ).toEqual({
      a: REDACTED,
      b: `x${REDACTED}`,
      c: "https://h/?q=1&r=%20",
    });
    // A backslash decoded from a value's last character would read the closing quote as `\"` in the whole text.
    const trailing = vault("Abcdefgh\\");
    expect(trailing.parseJson('{"k":"&amp;#65;bcdefgh&#92;"}')).toEqual({ k: REDACTED });
  });

  it("parsed JSON never holds a secret hidden by HTML or percent escapes in a value or key (property)", () => {
    const chars = "abcXYZ019-_./+=&%#;: ü€😀".split(/(?:)/u);
    const secretArb = fc.array(fc.constantFrom(...chars), { minLength: 8, maxLength: 20 }).map((c) => c.join(""));
    const textArb = fc
      .array(fc.constantFrom(..."ab01 &%#;:/{}[],x".split("")), { maxLength: 20 })
      .map((c) => c.join(""));
    const escape = (ch: string, how: number): string => {
      const cp = ch.codePointAt(0)!;
      if (how === 1) return `&#${cp};`;
      if (how === 2) return `&#x${cp.toString(16)};`;
      if (how === 3) return [...Buffer.from(ch)].map((b) => `%${b.toString(16)}`).join("");
      if (how === 4) return ch.toUpperCase();
      return ch === "&" ? "&amp;" : ch === "%" ? "%25" : ch;
    };
    fc.assert(
      fc.property(
        secretArb,
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 20, maxLength: 20 }),
        textArb,
        textArb,
        (secret, hows, before, after) => {
          const hidden = `${before} ${[...secret].map((ch, i) => escape(ch, hows[i]!)).join("")} ${after}`;
          const text = JSON.stringify({ v: hidden, [hidden]: [hidden] });
          const parsed = vault(secret).parseJson(text);
          for (const s of stringsOf(parsed)) expect(leaks(s, secret), s).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("searches again after replacing: a replacement can end an escape that reached into it and reveal a copy", () => {
    const token = "sk-live-0123456789abcdef";
    const v = vault(token);
    const hex = Buffer.from(token).toString("hex");
    // `&#54` + the hex form reads as one large reference (&#54736...), so the copy before it lacks its `f`. Once
    // the hex form is replaced, `&#54` is `6` and `\u006` + `6` is the `f`: the text would read as the secret.
    const text = `${token.slice(0, -1)}\\u006&#54${hex}`;
    const redacted = v.redactText(text);
    expect(redacted).toBe(`${REDACTED}${REDACTED}`);
    expect(v.redactText(redacted)).toBe(redacted);
    // In a parsed JSON value as well (value by value), and with a secret that holds no bracket.
    expect(v.parseJson(JSON.stringify({ k: text }))).toEqual({ k: `${REDACTED}${REDACTED}` });
  });
});
