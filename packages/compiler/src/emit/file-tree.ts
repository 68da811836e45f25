/** A package in memory: each file's path inside the package and its text. */
export type FileTree = Map<string, string>;
