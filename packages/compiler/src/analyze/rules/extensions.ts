/**
 * kervanc's extensions to the spec format (docs/extensions/). Each is explicit in the file: declared at the top
 * (`kervancExtensions: [form-body]`) and used where it applies (`http.bodyEncoding: form`). A spec that declares
 * one builds with an informational note (KV8001) that it is no longer portable to Kervan, and is refused under
 * `kervanc build --strict-kervan`; using an extension without declaring it is an error (KV8002), so no spec
 * leaves the Kervan format by accident.
 */
import { type Finding, report } from "../../diagnostics/diagnostic.ts";
import { checkMultipart } from "./multipart.ts";
import type { SpecFile } from "../spec-format.ts";
import type { Rule, SpecContext } from "./context.ts";

export function checkExtensions(spec: SpecFile, out: Finding[]): void {
  const declared = new Set<string>(spec.kervancExtensions ?? []);
  for (const name of declared) {
    out.push(report("KV8001", ["kervancExtensions"], (m) => m.uses({ name }), { atKey: true }));
  }
  if (spec.credentials !== undefined && !declared.has("upstream-auth"))
    out.push(report("KV8002", ["credentials"], (m) => m.credentialsUndeclared, { atKey: true }));
  spec.tools.forEach((tool, index) => {
    if (tool.output.error !== undefined && !declared.has("error-detail")) {
      out.push(report("KV8002", ["tools", index, "output", "error"], (m) => m.errorDetailUndeclared, { atKey: true }));
    }
    if (tool.http.retry !== undefined && !declared.has("retry")) {
      out.push(report("KV8002", ["tools", index, "http", "retry"], (m) => m.retryUndeclared, { atKey: true }));
    }
    if (tool.output.binary !== undefined && !declared.has("binary-output")) {
      out.push(report("KV8002", ["tools", index, "output", "binary"], (m) => m.binaryUndeclared, { atKey: true }));
    }
    if (tool.tags !== undefined && !declared.has("toolsets")) {
      out.push(report("KV8002", ["tools", index, "tags"], (m) => m.tagsUndeclared, { atKey: true }));
    }
    if (tool.http.omitAbsent !== undefined && !declared.has("omit-absent")) {
      out.push(
        report("KV8002", ["tools", index, "http", "omitAbsent"], (m) => m.omitAbsentUndeclared, { atKey: true }),
      );
    }
    if (tool.http.bodyEncoding === "multipart") {
      checkMultipart(tool, ["tools", index, "http"], declared.has("multipart-body"), out);
      return;
    }
    if (tool.http.maxUploadBytes !== undefined)
      out.push(
        report("KV8021", ["tools", index, "http", "maxUploadBytes"], (m) => m.uploadWithoutMultipart, { atKey: true }),
      );
    if (tool.http.bodyEncoding !== "form") return;
    const at = ["tools", index, "http", "bodyEncoding"];
    if (!declared.has("form-body")) {
      out.push(report("KV8002", at, (m) => m.formUndeclared));
    }
    if (tool.http.body === undefined) out.push(report("KV8002", at, (m) => m.formWithoutBody));
  });
}

export const extensionsRule: Rule<SpecContext> = {
  name: "extensions",
  codes: ["KV8001", "KV8002", "KV8021"],
  check: (ctx) => checkExtensions(ctx.spec, ctx.out),
};
