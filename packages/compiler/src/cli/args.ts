/**
 * The command line's own argument parser. Node's `util.parseArgs` words its errors for programmers ("To specify
 * a positional argument starting with a '-', place it at the end...") and knows nothing of our commands; this
 * one knows each command's options and says what is wrong in one line a user can act on.
 */
import { printable } from "./text.ts";

export interface OptionSpec {
  /** The long name, without the dashes. */
  readonly name: string;
  readonly short?: string;
  readonly type: "boolean" | "string";
  /** A string option that may be given more than once (its values are collected in order). */
  readonly multiple?: boolean;
  /** The placeholder shown in help, for string options. */
  readonly value?: string;
  readonly help: string;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  readonly values: OptionValues;
  readonly positionals: string[];
}

/** A mistake in how kervanc was called: one line for the user, and the command whose help to point at. */
export class UsageError extends Error {}

/** An option this command does not have; `name` is what was typed (`--include`, `-x`). */
export class UnknownOptionError extends UsageError {
  readonly option: string;
  constructor(option: string) {
    super(`unknown option ${printable(option)}.`);
    this.option = option;
  }
}

/**
 * Parses `args` against `options`. Long options take `--name value` or `--name=value`; short ones `-o value`;
 * `--` ends the options. A string option's value may not look like an option (`-o --force` is a mistake far
 * more often than a folder named `--force`; `--out=--force` still says it explicitly).
 */
export function parseArgs(args: readonly string[], options: readonly OptionSpec[]): ParsedArgs {
  const values: OptionValues = {};
  const positionals: string[] = [];
  const byLong = new Map(options.map((o) => [o.name, o]));
  const byShort = new Map(options.filter((o) => o.short !== undefined).map((o) => [o.short!, o]));
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    let spec: OptionSpec | undefined;
    let inline: string | undefined;
    let shown: string;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (eq !== -1) inline = arg.slice(eq + 1);
      spec = byLong.get(name);
      shown = `--${name}`;
    } else {
      // `-o out`, or `-oout` glued.
      const short = arg.slice(1, 2);
      spec = byShort.get(short);
      if (arg.length > 2) inline = arg.slice(2);
      shown = `-${short}`;
    }
    if (spec === undefined) throw new UnknownOptionError(shown);
    if (spec.type === "boolean") {
      if (inline !== undefined) throw new UsageError(`--${spec.name} takes no value.`);
      values[spec.name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith("-") && next !== "-"))
        throw new UsageError(`--${spec.name} needs a value (${spec.value ?? "<value>"}).`);
      value = next;
      i++;
    }
    if (spec.multiple) {
      const list = (values[spec.name] as string[] | undefined) ?? [];
      list.push(value);
      values[spec.name] = list;
    } else {
      if (values[spec.name] !== undefined) throw new UsageError(`--${spec.name} is given more than once.`);
      values[spec.name] = value;
    }
  }
  return { values, positionals };
}
