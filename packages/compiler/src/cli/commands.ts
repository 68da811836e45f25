/**
 * The commands kervanc knows: what each is for, its options, and an example. Help pages are made from this
 * table, and the parser checks each command's arguments against it. Nothing here imports a command's code:
 * `kervanc --help` must not pay for loading the compiler.
 */
import type { OptionSpec } from "./args.ts";

export interface CommandSpec {
  readonly name: string;
  /** One line for the overview. */
  readonly summary: string;
  /** The synopsis after `kervanc `. */
  readonly usage: string;
  /** Paragraphs of the help page. */
  readonly description: string;
  readonly options: readonly OptionSpec[];
  readonly examples: readonly string[];
}

const HELP: OptionSpec = { name: "help", short: "h", type: "boolean", help: "show this help" };
const FORMAT: OptionSpec = {
  name: "format",
  type: "string",
  value: "text|json|github|sarif",
  help: "text (with code frames), JSON, GitHub Actions annotations, or SARIF 2.1.0 (default: text)",
};
const REVIEW_FORMAT: OptionSpec = {
  name: "format",
  type: "string",
  value: "text|markdown|json",
  help: "text, a Markdown block for a pull-request comment, or JSON (default: text)",
};
/** Folders' links to files outside them are refused (KV9011): a pull request can add a link to any file. */
const FOLLOW_LINKS_OUTSIDE: OptionSpec = {
  name: "follow-links-outside",
  type: "boolean",
  help: "read specs a folder holds as links to files outside it (a link in a pull request can point at credentials)",
};

const BUDGET: OptionSpec = {
  name: "tools-budget",
  type: "string",
  value: "<tokens>",
  help: "warn when a server's tools/list is estimated above this many tokens (default 8000)",
};

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "init",
    summary: "write a starter spec to begin from",
    usage: "init [folder]",
    description:
      "Writes specs/example.yaml in the folder (default: the current one), a spec that builds as it is, with a " +
      "modeline that gives editors kervanc's JSON Schema. Never overwrites an existing file.",
    options: [HELP],
    examples: ["kervanc init", "kervanc init my-servers"],
  },
  {
    name: "build",
    summary: "compile specs into MCP server packages",
    usage: "build <spec-or-folder>... -o <out> [--force] [--format text|json|github|sarif] [--tools-budget <tokens>]",
    description:
      "Checks every spec (*.yaml, *.yml; folders are not searched recursively) and writes one self-contained " +
      "MCP server package per spec to <out>/<spec name>/. If any spec has an error, nothing is written. A package " +
      "this same kervanc already built from the same spec is skipped.",
    options: [
      { name: "out", short: "o", type: "string", value: "<out>", help: "the folder of the packages (required)" },
      { name: "force", type: "boolean", help: "rebuild packages that are up to date" },
      {
        name: "strict-kervan",
        type: "boolean",
        help: "refuse specs that use kervanc extensions (portable to Kervan only)",
      },
      FOLLOW_LINKS_OUTSIDE,
      FORMAT,
      BUDGET,
      HELP,
    ],
    examples: ["kervanc build specs -o servers", "kervanc build specs/weather.yaml -o servers --format json"],
  },
  {
    name: "check",
    summary: "verify that committed packages are exactly what the specs build",
    usage: "check <spec-or-folder>... -o <out> [--format text|markdown|json]",
    description:
      "Builds every spec in memory and compares each package with <out>, writing nothing: exit 0 when the " +
      "output is up to date, 1 when a spec has errors or a package differs. For each package that differs it " +
      "says first what the change does to the server (tools, egress hosts, secrets; security-relevant changes " +
      "marked), then which files differ. Without -o, the last argument is <out>.",
    options: [
      { name: "out", short: "o", type: "string", value: "<out>", help: "the folder of the committed packages" },
      REVIEW_FORMAT,
      HELP,
    ],
    examples: ["kervanc check specs -o servers", "kervanc check specs servers --format markdown"],
  },
  {
    name: "diff",
    summary: "review what changed between two output folders",
    usage: "diff <old-out> <new-out> [--format text|markdown|json]",
    description:
      "Compares every package in two output folders (for example main's committed servers and a branch's): " +
      "the surface summary (tools added, removed or changed, egress hosts, secrets and their hosts, output " +
      "modes, limits; security-relevant changes marked), then the files. Exit 0 when nothing differs, 1 when " +
      "something does.",
    options: [FOLLOW_LINKS_OUTSIDE, REVIEW_FORMAT, HELP],
    examples: ["kervanc diff main-servers servers --format markdown"],
  },
  {
    name: "import",
    summary: "turn an OpenAPI 3.0 or 3.1 document into a spec",
    usage: "import <openapi.yaml|json> -o <spec.yaml> [options]",
    description:
      "Writes one spec that build accepts, for review before building. An existing spec is not replaced " +
      "without --force.",
    options: [
      { name: "out", short: "o", type: "string", value: "<spec.yaml>", help: "the spec file to write (required)" },
      {
        name: "include",
        type: "string",
        multiple: true,
        value: "<sel>",
        help: 'only operations with this tag, operationId, route ("GET /pets") or path prefix (/v1/pets)',
      },
      {
        name: "exclude",
        type: "string",
        multiple: true,
        value: "<sel>",
        help: "leave out operations with this tag, operationId or route",
      },
      { name: "read-only", type: "boolean", help: "only GET operations" },
      {
        name: "toolsets",
        type: "boolean",
        help: "tag each tool with its operation's OpenAPI tags, for the server's --toolsets (kervanc extension toolsets)",
      },
      {
        name: "binary-output",
        type: "boolean",
        help: "operations that answer images, audio or files return them as content blocks (kervanc extension binary-output)",
      },
      {
        name: "upstream-auth",
        type: "boolean",
        help: "OAuth client-credentials schemes become credentials the server fetches and renews (kervanc extension upstream-auth)",
      },
      {
        name: "skip-invalid",
        type: "boolean",
        help: "leave out operations that cannot be imported (a warning each) instead of failing",
      },
      {
        name: "server-url",
        type: "string",
        value: "<url>",
        help: "the API's base URL, instead of the document's servers",
      },
      BUDGET,
      { name: "force", type: "boolean", help: "replace an existing spec" },
      FORMAT,
      HELP,
    ],
    examples: ["kervanc import openapi.yaml -o specs/petstore.yaml --include pets --read-only"],
  },
  {
    name: "mcpb",
    summary: "turn a generated package into an MCP Bundle (.mcpb) for one-click install",
    usage: 'mcpb <package-dir> -o <file.mcpb> [--author "Name <email>"]',
    description:
      "Writes an MCP Bundle of a package kervanc built: the server bundle, its README and notices, and a " +
      "manifest whose user_config asks for each declared secret (marked sensitive, so desktop clients keep it " +
      'in the keychain). The same package gives the same bytes. The author defaults to "<server name> maintainers".',
    options: [
      { name: "out", short: "o", type: "string", value: "<file.mcpb>", help: "the bundle to write (required)" },
      { name: "author", type: "string", value: '"Name <email>"', help: "the bundle's author" },
      HELP,
    ],
    examples: ['kervanc mcpb servers/weather -o weather.mcpb --author "Ada Lovelace <ada@example.com>"'],
  },
  {
    name: "call",
    summary: "call one tool of a spec, built in memory, and print the result",
    usage:
      "call <spec> <tool> ['<json arguments>'] [--secrets-file FILE] [--json] [--record FILE] [--caller-header NAME=VALUE]... [--subject-token TOKEN]",
    description:
      "Builds the spec in memory and runs one tool call through a generated server (the same runtime code), " +
      "then prints the result's text on stdout (with --json the whole result as JSON: content, structuredContent " +
      "when the tool has an output schema, and isError, for an error result too); diagnostics, the " +
      "server's log and errors go to stderr. Exit 1 when the result is an error. Without a JSON argument the " +
      "arguments are read from stdin when it is not a terminal (an empty stdin is {}). Development relaxations " +
      "are on, with a banner: loopback and private upstreams are reachable and secrets may go over plain http " +
      "to a loopback host (a local mock); refused when NODE_ENV=production. With --record FILE the call's upstream " +
      "exchange and result are appended to FILE as a spec-test case, secrets replaced by {{secrets.NAME}}.",
    options: [
      {
        name: "secrets-file",
        type: "string",
        value: "<file>",
        help: "read secrets from FILE (KEY=value lines); variables already set win",
      },
      { name: "json", type: "boolean", help: "print the whole result as JSON (content, structuredContent, isError)" },
      {
        name: "record",
        type: "string",
        value: "<file.test.yaml>",
        help: "append the call to this spec-test file as a case",
      },
      {
        name: "caller-header",
        type: "string",
        multiple: true,
        value: "<NAME=VALUE>",
        help: "a header of the caller's request, for a callerHeader credential (extension upstream-auth)",
      },
      {
        name: "subject-token",
        type: "string",
        value: "<token>",
        help: "the caller's OAuth access token, for a tokenExchange credential (extension upstream-auth; not verified)",
      },
      HELP,
    ],
    examples: [
      `kervanc call specs/weather.yaml get_forecast '{"city": "Paris"}'`,
      `echo '{"city": "Paris"}' | kervanc call specs/weather.yaml get_forecast --secrets-file .env`,
      `kervanc call specs/weather.yaml get_forecast '{"city": "Paris"}' --record specs/weather.test.yaml`,
    ],
  },
  {
    name: "view",
    summary: "write a tool's view page (extension views) with a given result, to open in a browser",
    usage: "view <spec> <tool> ['<json result>'] [-o FILE]",
    description:
      "Builds the spec in memory (nothing is called) and writes the tool's MCP Apps view page, the one the server " +
      "serves, as one standalone HTML file that shows the given result, for a person to open in a browser " +
      "without an MCP Apps host: a small script in the page stands in for the host and hands the result to the " +
      "page on the same message path a host uses. The page loads nothing (its policy allows only its own scripts " +
      "and style) and opens no link. The result is a JSON object: the tool result as kervanc call --json prints " +
      'it ({"structuredContent": ...}), or the structured result itself when it is an object; without it, it is ' +
      "read from stdin when that is not a terminal. The file is <tool>.view.html in the current folder unless -o " +
      "names one; an existing file is replaced, anything else at that path is refused.",
    options: [
      {
        name: "out",
        short: "o",
        type: "string",
        value: "<file.html>",
        help: "the file to write (default <tool>.view.html)",
      },
      HELP,
    ],
    examples: [
      `kervanc view specs/catalog.yaml get_product '{"name": "Lamp", "price": 24.5}'`,
      `kervanc call specs/catalog.yaml list_products '{"q": "lamp"}' --json | kervanc view specs/catalog.yaml list_products -o lamps.html`,
    ],
  },
  {
    name: "dev",
    summary: "serve a spec while you edit it: rebuilt on save, tools swapped in place",
    usage:
      "dev <spec> [--http [--port N]] [--secrets-file FILE] [--repl] [--caller-header NAME=VALUE]... [--subject-token TOKEN]",
    description:
      "Builds the spec in memory and serves it over stdio (configure your MCP client to run this command), " +
      "rebuilding on every save of the spec: a good build replaces the tools in place and connected clients get " +
      "notifications/tools/list_changed; an edit with errors prints its diagnostics and the last good build keeps " +
      "serving. With --http it serves Streamable HTTP at http://127.0.0.1:<port>/mcp instead, restarted on each good " +
      "build (a client's next request sees the new tools; no list_changed over HTTP). " +
      "In a terminal (or with --repl) it reads commands from stdin: tools, call <tool> <json>, reload, help, " +
      "exit. Development relaxations are on, as in call (banner on stderr; refused when NODE_ENV=production). " +
      "Spec-test files (*.test.yaml) are not specs.",
    options: [
      {
        name: "secrets-file",
        type: "string",
        value: "<file>",
        help: "read secrets from FILE (KEY=value lines); variables already set win",
      },
      { name: "http", type: "boolean", help: "serve Streamable HTTP on 127.0.0.1 instead of stdio" },
      { name: "port", type: "string", value: "<N>", help: "the HTTP port (default 3000; 0 picks a free one)" },
      { name: "repl", type: "boolean", help: "read REPL commands from stdin, even when it is not a terminal" },
      {
        name: "caller-header",
        type: "string",
        multiple: true,
        value: "<NAME=VALUE>",
        help: "a header of the stdio caller's request, for a callerHeader credential (extension upstream-auth)",
      },
      {
        name: "subject-token",
        type: "string",
        value: "<token>",
        help: "the stdio caller's OAuth access token, for a tokenExchange credential (extension upstream-auth; not verified)",
      },
      HELP,
    ],
    examples: ["kervanc dev specs/weather.yaml", "kervanc dev specs/weather.yaml --secrets-file .env"],
  },
  {
    name: "test",
    summary: "run the spec tests (<name>.test.yaml) offline, against a stand-in API",
    usage: "test <spec-or-folder-or-test-file>... [--format text|json]",
    description:
      "Runs every case of each spec-test file (<name>.test.yaml next to <name>.yaml; a folder gives all of its " +
      "test files) through a generated server built in memory, against a stand-in API that kervanc serves on " +
      "127.0.0.1: nothing else is called. Secrets get made-up placeholder values ({{secrets.NAME}} in a case), and " +
      "every result is checked for any form of them (the canary check). Prints PASS or FAIL per case, with what " +
      "differs; exit 0 when every case passes, 1 otherwise. The format's editor schema is " +
      "schema/kervan-test.schema.json.",
    options: [FOLLOW_LINKS_OUTSIDE, FORMAT, HELP],
    examples: ["kervanc test specs", "kervanc test specs/weather.test.yaml --format json"],
  },
  {
    name: "help",
    summary: "show help for kervanc or for one command",
    usage: "help [command]",
    description: "Prints the overview, or the help page of one command.",
    options: [HELP],
    examples: ["kervanc help build"],
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The overview: every command in a line, and where to read more. */
export function overview(version: string): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `kervanc ${version}: compiles Kervan specs (YAML) into self-contained MCP server packages.`,
    "",
    "Usage: kervanc <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     show help (kervanc <command> --help for one command)",
    "  -V, --version  print the version",
    "",
    "Start with: kervanc init && kervanc build specs -o servers",
    "",
  ].join("\n");
}

/** The help page of one command. */
export function commandHelp(command: CommandSpec): string {
  const flags = command.options.map((o) => {
    const names = `${o.short !== undefined ? `-${o.short}, ` : "    "}--${o.name}${o.type === "string" ? ` ${o.value ?? "<value>"}` : ""}`;
    return { names, help: `${o.help}${o.multiple ? " (repeatable)" : ""}` };
  });
  const width = Math.max(...flags.map((f) => f.names.length));
  return [
    `Usage: kervanc ${command.usage}`,
    "",
    wrap(`${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}. ${command.description}`, 100),
    "",
    "Options:",
    ...flags.map((f) => `  ${f.names.padEnd(width)}  ${f.help}`),
    "",
    command.examples.length === 1 ? "Example:" : "Examples:",
    ...command.examples.map((e) => `  ${e}`),
    "",
  ].join("\n");
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines.join("\n");
}
