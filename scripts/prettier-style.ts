/**
 * The repository's prettier settings, exactly pinned and with every option explicit: prettier reads no
 * configuration file here, so the output does not depend on the machine, the folder or the user's settings.
 *
 * A build formats nothing: the runtime is kept in this format in the repository (scripts/format-runtime.ts, and
 * test/emit/runtime-formatted.test.ts) and copied as it is, and the compiler lays out what it writes itself
 * (emit/modules.ts, emit/code/code-style.ts). prettier is a development dependency of the repository only.
 */
import * as prettier from "prettier";

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

/** Formatting is a pure function of its input, so results are kept for the process. */
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
