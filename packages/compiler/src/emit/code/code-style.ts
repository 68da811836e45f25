/**
 * Formatting with prettier, exactly pinned and with every option explicit: prettier reads no configuration
 * file here, so the output does not depend on the machine, the folder or the user's settings.
 */
import * as esbuild from "esbuild";
import * as prettier from "prettier";
import { escapeInvisible } from "./code.ts";

/** The repository's .prettierrc.json holds the same (a test compares them), so `npm run format` agrees. */
export const OPTIONS: prettier.Options = {
  printWidth: 120,
  tabWidth: 2,
  useTabs: false,
  semi: true,
  singleQuote: false,
  quoteProps: "as-needed",
  trailingComma: "all",
  bracketSpacing: true,
  arrowParens: "always",
  endOfLine: "lf",
  proseWrap: "preserve",
};

export type FileKind = "typescript" | "babel" | "json" | "markdown";

/**
 * Formatting is a pure function of its input, and a build formats the same text many times (the runtime copy in
 * every package, the same declaration file next to every validator), so results are kept for the process.
 */
const cache = new Map<string, Promise<string>>();

export function format(text: string, parser: FileKind): Promise<string> {
  const key = `${parser}\u0000${text}`;
  let formatted = cache.get(key);
  if (formatted === undefined) {
    formatted = prettier.format(text, { ...OPTIONS, parser });
    cache.set(key, formatted);
  }
  return formatted;
}

/**
 * Ajv's standalone validators are large and entirely machine-written: esbuild's printer (exactly pinned, like
 * prettier) lays them out in a consistent, readable form in a fraction of prettier's time. With `charset: "utf8"`
 * the printer writes a string's `\u202E` back as the raw character, so the invisible ones are escaped again
 * (code.ts, `escapeInvisible`; as in bundle.ts).
 */
export async function formatGeneratedJs(text: string): Promise<string> {
  const result = await esbuild.transform(text, {
    loader: "js",
    format: "esm",
    minify: false,
    charset: "utf8",
    target: "es2022",
    legalComments: "inline",
  });
  return escapeInvisible(result.code);
}
