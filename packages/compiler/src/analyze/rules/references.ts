/**
 * Every reference in a tool's request names something declared: an input path a property of the input schema
 * (KV3004), a secret one in the spec's list (KV3003), a credential one under `credentials` and only with the
 * upstream-auth extension (KV8002, KV8011), and never a credential in the URL's path, which access logs keep.
 * Each miss suggests the close name when there is one, as a fix.
 */
import { type Fix, report } from "../../diagnostics/diagnostic.ts";
import { closest } from "../suggest.ts";
import { inputPathDeclared, propertiesAt, refText } from "../templates.ts";
import type { Rule, ToolContext } from "./context.ts";

const writeFix = (meant: string | undefined): { fix?: Fix } =>
  meant !== undefined ? { fix: { description: `Write ${meant}`, replacement: meant } } : {};

export const referencesRule: Rule<ToolContext> = {
  name: "references",
  codes: ["KV3003", "KV3004", "KV8002", "KV8011"],
  check(ctx) {
    const { out } = ctx.spec;
    const { bindings } = ctx.spec.secrets;
    const credentials = ctx.spec.credentials;
    const declared = [...bindings.keys()];
    for (const { ref, path, offset, length } of ctx.request?.refs ?? []) {
      const where = offset === undefined ? {} : { offset, length: length ?? refText(ref).length };
      const text = refText(ref);
      if (ref.kind === "credential") {
        // A declared credential a tool names is used, even where it is refused: one error for one mistake.
        if (credentials.paths.has(ref.name)) ctx.credentials.add(ref.name);
        if (!credentials.extension) {
          out.push(report("KV8002", path, (m) => m.credentialRefUndeclared({ ref: text }), where));
          continue;
        }
        if (!credentials.paths.has(ref.name)) {
          const names = [...credentials.paths.keys()];
          const close = closest(ref.name, names);
          const meant = close !== undefined ? `{{credentials.${close}}}` : undefined;
          out.push(
            report(
              "KV8011",
              path,
              (m) =>
                meant !== undefined
                  ? m.undeclaredMeant({ ref: text, meant })
                  : names.length > 0
                    ? m.undeclaredDeclared({ ref: text, declared: names.join(", ") })
                    : m.undeclared({ ref: text }),
              { ...where, ...writeFix(meant) },
            ),
          );
          continue;
        }
        if (path.length === ctx.at.length + 2 && path[ctx.at.length + 1] === "url")
          out.push(report("KV8011", path, (m) => m.inPath({ ref: text }), where));
        continue;
      }
      if (ref.kind === "input") {
        if (inputPathDeclared(ctx.inputSchema, ref.path)) continue;
        const level = propertiesAt(ctx.inputSchema, ref.path);
        const close = level ? closest(ref.path[level.depth]!, level.names, { abbreviations: true }) : undefined;
        const meant =
          close !== undefined
            ? refText({ kind: "input", path: [...ref.path.slice(0, level!.depth), close] })
            : undefined;
        const names = level && level.names.length > 0 && level.names.length <= 10 ? level.names.join(", ") : null;
        out.push(
          report(
            "KV3004",
            path,
            (m) =>
              meant !== undefined
                ? m.unknownInputMeant({ ref: text, meant })
                : names !== null
                  ? m.unknownInputHas({ ref: text, names })
                  : ctx.tool.input === undefined
                    ? m.noInputSchema({ ref: text })
                    : m.unknownInput({ ref: text }),
            { ...where, ...writeFix(meant) },
          ),
        );
        continue;
      }
      if (bindings.has(ref.name)) {
        ctx.secrets.add(ref.name);
        continue;
      }
      const close = closest(ref.name, declared);
      const meant = close !== undefined ? `{{secrets.${close}}}` : undefined;
      out.push(
        report(
          "KV3003",
          path,
          (m) =>
            meant !== undefined
              ? m.undeclaredSecretMeant({ ref: text, meant })
              : declared.length > 0
                ? m.undeclaredSecretDeclared({ ref: text, declared: declared.join(", ") })
                : m.undeclaredSecret({ ref: text }),
          { ...where, ...writeFix(meant) },
        ),
      );
    }
  },
};
