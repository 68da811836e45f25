/**
 * The spec-test format, `<name>.test.yaml` next to `<name>.yaml`, written once as shapes: the checker of test
 * files and the editor JSON Schema (schema/kervan-test.schema.json) both come from it.
 *
 * A case calls one tool with arguments; `upstream` says what request the tool must send (each field given is
 * checked; headers are a selection, names case-insensitive) and what the stand-in API answers; `expect` says
 * what the result must be. `{{secrets.NAME}}` in a case stands for the secret's placeholder value, which
 * `kervanc test` makes up for each run.
 */
import { array, type Infer, int, json, obj, opt, record, req, str } from "../analyze/shape.ts";
import { TOOL_NAME } from "../analyze/spec-format.ts";

const requestShape = obj(
  {
    method: opt(str({ enum: ["GET", "POST", "PUT", "PATCH", "DELETE"], doc: "The HTTP method the tool must use." })),
    path: opt(
      str({ min: 1, doc: "The request path the tool must send, as sent (percent-encoded), without the query." }),
    ),
    query: opt(
      json("The query parameters the tool must send, all of them: name to a value, or to a list of values in order."),
    ),
    headers: opt(record(str(), "Headers the tool must send (only these are checked; names are case-insensitive).")),
    body: opt(json("The body the tool must send: a JSON value (compared as JSON) or a string (compared as text).")),
  },
  "What the tool must send; each field given is checked.",
);

const responseShape = obj(
  {
    status: opt(int(100, 599, "The status the stand-in API answers with (default 200).")),
    headers: opt(record(str(), "Response headers (default content-type: application/json for a JSON body).")),
    body: opt(json("The response body: a string is sent as it is, anything else as JSON.")),
  },
  "What the stand-in API answers.",
);

const expectShape = obj(
  {
    text: opt(str({ doc: "The result's text, exactly." })),
    structured: opt(json("The result's structured content, compared as JSON.")),
    error: opt(str({ min: 1, doc: "The result is an error whose text contains this." })),
  },
  "The result the call must give: text and/or structured content, or an error.",
);

const caseShape = obj(
  {
    name: req(str({ min: 1, max: 200, visible: "line", doc: "The case's name, shown in the report." })),
    tool: req(
      str({
        pattern: { source: TOOL_NAME, rule: "toolName" },
        doc: "The tool to call.",
      }),
    ),
    arguments: opt(json("The tool's arguments (an object; default {}).")),
    upstream: opt(
      obj(
        { request: opt(requestShape), response: opt(responseShape) },
        "The one upstream exchange the call makes; without it, the call must make none.",
      ),
    ),
    expect: req(expectShape),
  },
  "One call of one tool.",
);

export const testFileShape = obj(
  { tests: req(array(caseShape, { min: 1, max: 1000, doc: "The cases, run in order." })) },
  "Tests of the spec next to this file (<name>.yaml).",
);

export type TestFile = Infer<typeof testFileShape>;
export type TestCase = TestFile["tests"][number];

/** `weather.test.yaml` (or .yml) is a test file; its spec is `weather.yaml` (or .yml). */
export const TEST_FILE = /\.test\.ya?ml$/i;
