/**
 * discovery mode's ranking (runtime/serve/tool-search.ts), in process: the words it matches on, and BM25's order over
 * names, titles, toolsets, descriptions and argument names.
 */
import { describe, expect, it } from "vitest";
import type { ToolListing } from "../../packages/runtime/src/plan.ts";
import { ToolIndex, words } from "../../packages/runtime/src/serve/tool-search.ts";

const listing = (name: string, description: string, properties: string[] = [], title?: string): ToolListing => ({
  name,
  ...(title !== undefined ? { title } : {}),
  description,
  inputSchema: { type: "object", properties: Object.fromEntries(properties.map((p) => [p, { type: "string" }])) },
  annotations: {},
});

describe("words", () => {
  it("splits names, camelCase and punctuation, lower-cases, drops stop words, and stems", () => {
    expect(words("listRepoIssues")).toEqual(["list", "repo", "issu"]);
    expect(words("get_the-Repositories of a user")).toEqual(["get", "repository", "user"]);
    expect(words("boxes, branches, status, class")).toEqual(["box", "branch", "status", "class"]);
    expect(words("görünür metin")).toEqual(["görünür", "metin"]);
  });

  it("makes a word's forms meet", () => {
    for (const forms of [
      ["issue", "issues"],
      ["assign", "assigned", "assigns"],
      ["delete", "deleted", "deleting", "deletes"],
    ])
      expect(new Set(forms.map((form) => words(form)[0])).size).toBe(1);
  });
});

describe("ToolIndex", () => {
  const tools = [
    listing("issues_list_for_repo", "List repository issues.", ["owner", "repo", "state"], "List issues"),
    listing("issues_create", "Create an issue.", ["owner", "repo", "title", "body"]),
    listing("issues_create_comment", "Create an issue comment.", ["owner", "repo", "issue_number", "body"]),
    listing("repos_delete", "Deletes a repository. Deleting a repository requires admin access.", ["owner", "repo"]),
    listing("users_get_authenticated", "Get the authenticated user.\nSecond line is not shown."),
  ];
  const index = new ToolIndex(tools, [["issues"], ["issues"], ["issues"], ["repos"], undefined]);
  const top = (query: string, limit = 3): string[] => index.search(query, limit).map((hit) => hit.name);

  it("ranks by what the query says, the verbs people use included", () => {
    expect(top("open a new issue")[0]).toBe("issues_create");
    expect(top("remove a repository")[0]).toBe("repos_delete");
    expect(top("comment on an issue")[0]).toBe("issues_create_comment");
    expect(top("delete repository")[0]).toBe("repos_delete");
    expect(top("who am I logged in as, the authenticated user")[0]).toBe("users_get_authenticated");
    expect(top("issue_number")[0]).toBe("issues_create_comment");
  });

  it("answers with names, titles and the description's first line only", () => {
    expect(index.search("authenticated", 1)).toEqual([
      { name: "users_get_authenticated", description: "Get the authenticated user." },
    ]);
    expect(index.search("list issues", 1)).toEqual([
      { name: "issues_list_for_repo", title: "List issues", description: "List repository issues." },
    ]);
  });

  it("finds nothing for words no tool has, and keeps spec order among equals", () => {
    expect(top("weather forecast")).toEqual([]);
    // "owner" is an argument of four tools; shorter entries rank first (BM25's length normalisation).
    expect(top("owner", 5)).toHaveLength(4);
    const twins = new ToolIndex([listing("tool_two", "Same words."), listing("tool_one", "Same words.")]);
    expect(twins.search("same words", 2).map((hit) => hit.name)).toEqual(["tool_two", "tool_one"]);
  });
});
