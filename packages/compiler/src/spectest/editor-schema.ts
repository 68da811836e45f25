/**
 * The editor JSON Schema of spec-test files (schema/kervan-test.schema.json), generated from the same shapes
 * the test-file checker uses; `npm run docs` writes it and a test fails when the committed copy drifts.
 */
import { type JsonSchema, toSchema } from "../analyze/editor-schema.ts";
import { KERVANC_VERSION } from "../kervanc-package.ts";
import { testFileShape } from "./test-file-shape.ts";

export function testEditorSchema(): JsonSchema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `urn:kervanc:${KERVANC_VERSION}:kervan-test.schema.json`,
    title: "Kervan spec tests",
    ...toSchema(testFileShape),
  };
}

export function renderTestEditorSchema(): string {
  return `${JSON.stringify(testEditorSchema(), null, 2)}\n`;
}
