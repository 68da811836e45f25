/** Quoting for the command lines a package's README and files give (POSIX shells and zsh). */

/**
 * A word for a POSIX shell (and zsh): left as is when it is plainly safe, else single-quoted. Brackets are
 * quoted too: they are glob characters, and zsh refuses a glob that matches nothing.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._:,=/@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line of words, each quoted as needed. */
export const command = (words: readonly string[]): string => words.map(shellWord).join(" ");
