/**
 * Formatting with prettier, exactly pinned and with every option explicit: prettier reads no configuration
 * file here, so the output does not depend on the machine, the folder or the user's settings.
 */
import * as prettier from "prettier";

const OPTIONS: prettier.Options = {
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

export async function format(text: string, parser: FileKind): Promise<string> {
  return prettier.format(text, { ...OPTIONS, parser });
}
