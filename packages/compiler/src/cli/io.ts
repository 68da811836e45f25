/** Where a command writes: the CLI passes the process's streams, tests pass their own. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether each stream is a terminal (for colour); absent means not. */
  readonly isTTY?: { readonly stdout: boolean; readonly stderr: boolean };
  /** The environment (NO_COLOR, FORCE_COLOR); absent means empty. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A stream's whole text (stdin given to `call` or `view`), as UTF-8. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === "string" ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
