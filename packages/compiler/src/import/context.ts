/**
 * What the parts of the importer share: the document, its `$ref` resolver, the options, and one place to report
 * findings. Each part (operations, servers, security, parameters, request bodies, responses) is a module of its
 * own that takes this context; `openapi.ts` composes them into tools.
 */
import type { Finding, SpecPath } from "../diagnostics/diagnostic.ts";
import type { Resolver } from "./refs.ts";
import type { OpenApiVersion } from "./schema.ts";

export interface ImportOptions {
  /** Keep only operations with one of these tags, operationIds or `METHOD /path` routes. */
  readonly include?: readonly string[];
  /** Leave out operations with one of these tags, operationIds or routes. */
  readonly exclude?: readonly string[];
  /** Keep only GET operations. */
  readonly readOnly?: boolean;
  /** Leave out operations that cannot be imported, with a warning each, instead of failing the import. */
  readonly skipInvalid?: boolean;
  /** The API's base URL, instead of the document's `servers`. */
  readonly serverUrl?: string;
  /** Fill each tool's `tags` from its operation's tags (the kervanc extension toolsets, for `--toolsets`). */
  readonly toolsets?: boolean;
  /**
   * Turn OAuth client-credentials schemes into `oauth2ClientCredentials` credentials (the kervanc extension
   * upstream-auth): the server fetches and renews the token. Without it, such a scheme is a static token secret.
   */
  readonly upstreamAuth?: boolean;
  /** Import operations that answer only binary types with the kervanc extension binary-output. */
  readonly binaryOutput?: boolean;
  /** KV9006 above this many estimated tokens of tools/list. */
  readonly toolsBudget?: number;
}

export interface ImportContext {
  readonly resolver: Resolver;
  /** The document's top level (an empty object when it is not a mapping). */
  readonly root: Record<string, unknown>;
  readonly version: OpenApiVersion;
  readonly options: ImportOptions;
  report(f: Finding): void;
}

/** One operation of the document, where it is, and what selects it. */
export interface Operation {
  readonly route: string;
  readonly method: string;
  readonly at: SpecPath;
  readonly op: Record<string, unknown>;
  readonly item: Record<string, unknown>;
  readonly itemAt: SpecPath;
  readonly operationId: string | null;
  readonly tags: readonly string[];
}
