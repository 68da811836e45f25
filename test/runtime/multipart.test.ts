/**
 * The multipart encoder in process (packages/runtime/src/call/multipart.ts): a boundary that occurs in the content is
 * never used, filenames keep their last path segment with quotes and line breaks encoded, and base64 is strict.
 */
import { describe, expect, it } from "vitest";
import { decodeBase64, multipartEncode, partFilename } from "../../packages/runtime/src/call/multipart.ts";

describe("multipartEncode", () => {
  it("never uses a boundary that occurs in a part", () => {
    const clash = "----kervanc000000000000000000000000000000000000";
    const content = Buffer.from(`before\r\n--${clash}\r\nafter`).toString("base64");
    const encoded = multipartEncode({ file: { content, encoding: "base64" } }, 1_000_000, clash);
    const boundary = encoded.contentType.split("boundary=")[1]!;
    expect(boundary).not.toBe(clash);
    expect(Buffer.from(encoded.bytes).toString("latin1").split(`--${boundary}`)).toHaveLength(3);
  });

  it("leaves out null fields and omitted files, and repeats a list's items", () => {
    const encoded = multipartEncode({ a: null, b: ["x", 1, true], f: { content: null } }, 1000, "----kervancB");
    expect(Buffer.from(encoded.bytes).toString("utf8")).toBe(
      [
        '------kervancB\r\nContent-Disposition: form-data; name="b"\r\n\r\nx\r\n',
        '------kervancB\r\nContent-Disposition: form-data; name="b"\r\n\r\n1\r\n',
        '------kervancB\r\nContent-Disposition: form-data; name="b"\r\n\r\ntrue\r\n',
        "------kervancB--\r\n",
      ].join(""),
    );
  });

  it("sends a { json } field as one application/json part, and leaves out an omitted one", () => {
    const attributes = { name: "report.pdf", parent: { id: "0" }, note: 'a "quoted" line\r\n--x' };
    const encoded = multipartEncode({ attributes: { json: attributes }, extra: { json: null } }, 1000, "----kervancJ");
    expect(Buffer.from(encoded.bytes).toString("utf8")).toBe(
      [
        '------kervancJ\r\nContent-Disposition: form-data; name="attributes"\r\nContent-Type: application/json\r\n\r\n',
        `${JSON.stringify(attributes)}\r\n`,
        "------kervancJ--\r\n",
      ].join(""),
    );
  });

  it("refuses a body that is not an object, and a file past the limit before decoding it", () => {
    expect(() => multipartEncode(["x"], 10)).toThrow("must be an object of fields");
    expect(() => multipartEncode({ f: { content: "A".repeat(16), encoding: "base64" } }, 11)).toThrow(
      "more than 11 bytes",
    );
  });
});

describe("filenames and base64", () => {
  it("keeps the last path segment, encoding only what would end the header", () => {
    expect(partFilename("C:\\Users\\x\\a.txt")).toBe("a.txt");
    expect(partFilename('a"b\r\nc%d.txt')).toBe("a%22b%0D%0Ac%d.txt");
  });

  it("takes only padded standard base64", () => {
    expect([...decodeBase64("f", "aGk=")]).toEqual([104, 105]);
    for (const bad of ["aGk", "aG k=", "aGk_", "aGk=="])
      expect(() => decodeBase64("f", bad)).toThrow("not valid base64");
  });
});
