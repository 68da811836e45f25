/**
 * The redaction vault on its own: which values it accepts, every form it knows, and how it parses upstream JSON
 * (the fast path that skips copying must never skip a secret).
 */
import { describe, expect, it } from "vitest";
import { REDACTED, SecretVault, secretForms } from "../../packages/runtime/src/secrets.ts";

const SECRET = 'Tok3n/+="\\ü-x';

function vault(...values: string[]): SecretVault {
  const v = new SecretVault();
  values.forEach((value, i) => v.add(`S${i}`, value));
  return v;
}

describe("SecretVault", () => {
  it("refuses values too short to redact and text with an unpaired surrogate", () => {
    expect(() => vault("short")).toThrow("Secret S0 is shorter than 8 characters. Short values cannot be redacted reliably; use a longer secret.");
    expect(() => vault("abcdefg\ud800")).toThrow("Secret S0 is not valid Unicode text (it has an unpaired surrogate).");
  });

  it("redacts every form in text, longest first", () => {
    const v = vault(SECRET);
    const text = secretForms(SECRET).join(" | ");
    expect(v.redactText(text).split(" | ").every((part) => part.startsWith(REDACTED))).toBe(true);
    for (const form of secretForms(SECRET)) expect(v.redactText(text)).not.toContain(form);
  });

  it("parses JSON and redacts strings, keys, escaped forms and numbers whose source holds a secret", () => {
    const numeric = "820461937520";
    const v = vault(SECRET, numeric);
    const body = `{"a":${JSON.stringify(SECRET)},${JSON.stringify(SECRET)}:1,"u":"\\u0054ok3n\\/+=\\"\\\\ü-x","n":${numeric},"big":${numeric}000000000000000,"ok":3}`;
    expect(v.parseJson(body)).toEqual({ a: REDACTED, [REDACTED]: 1, u: REDACTED, n: REDACTED, big: REDACTED, ok: 3 });
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
});
