/**
 * An OpenAPI document as the differential suite reads it: its operations (path-level parameters merged), `$ref`
 * resolution, route matching, the documented success answer, and its schemas as JSON Schema 2020-12 for Ajv
 * (OpenAPI 3.0's `nullable`, boolean exclusive bounds; readOnly properties dropped from requests, writeOnly ones
 * from responses).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { flatten, type Schema } from "./values.ts";

export const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required: boolean;
  readonly style: string;
  readonly explode: boolean;
  readonly schema: Schema;
  readonly content?: Schema;
  readonly description?: string;
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  /** `METHOD /path`, as the import's comments name it. */
  readonly route: string;
  readonly parameters: Parameter[];
  readonly body?: { readonly required: boolean; readonly content: Record<string, Schema> };
  /** The documented success: its status, media type and schema (no media type: no body). */
  readonly success: { readonly status: number; readonly mediaType?: string; readonly schema?: Schema };
  readonly security: Schema[];
  readonly pattern: RegExp;
}

export class Document {
  readonly doc: Schema;
  readonly version31: boolean;
  readonly operations: Operation[] = [];
  readonly ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(doc: Schema) {
    this.doc = doc;
    this.version31 = String(doc["openapi"]).startsWith("3.1");
    for (const [path, item] of Object.entries(doc["paths"] as Record<string, Schema>)) {
      const pathItem = this.deref(item);
      for (const method of METHODS) {
        const op = pathItem[method] as Schema | undefined;
        if (op === undefined) continue;
        this.operations.push(this.#operation(path, method, pathItem, this.deref(op)));
      }
    }
    this.ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, validateFormats: true });
    addFormats.default(this.ajv);
    for (const f of ["int32", "int64", "float", "double", "byte", "binary", "password"]) this.ajv.addFormat(f, true);
  }

  resolve = (ref: string): Schema => {
    if (!ref.startsWith("#/")) throw new Error(`an external reference: ${ref}`);
    let node: any = this.doc;
    for (const part of ref.slice(2).split("/")) {
      const key = decodeURIComponent(part.replace(/~1/g, "/").replace(/~0/g, "~"));
      node = Array.isArray(node) ? node[Number(key)] : node?.[key];
    }
    if (node === undefined) throw new Error(`an unresolved reference: ${ref}`);
    return node as Schema;
  };

  deref(node: Schema): Schema {
    let n = node;
    for (let i = 0; i < 16 && typeof n?.["$ref"] === "string"; i++) n = this.resolve(n["$ref"]);
    return n;
  }

  #operation(path: string, method: string, item: Schema, op: Schema): Operation {
    const byKey = new Map<string, Parameter>();
    for (const raw of [...((item["parameters"] as Schema[]) ?? []), ...((op["parameters"] as Schema[]) ?? [])]) {
      const p = this.deref(raw);
      const where = p["in"] as Parameter["in"];
      const style = (p["style"] as string | undefined) ?? (where === "query" || where === "cookie" ? "form" : "simple");
      const content = p["content"] as Record<string, Schema> | undefined;
      const schema = (p["schema"] as Schema | undefined) ?? Object.values(content ?? {})[0]?.["schema"] ?? {};
      byKey.set(`${where}:${p["name"]}`, {
        name: p["name"],
        in: where,
        required: p["required"] === true || where === "path",
        style,
        explode: typeof p["explode"] === "boolean" ? p["explode"] : style === "form",
        schema,
        ...(content ? { content } : {}),
        ...(typeof p["description"] === "string" ? { description: p["description"] } : {}),
      });
    }
    let body: Operation["body"];
    if (op["requestBody"] !== undefined) {
      const rb = this.deref(op["requestBody"]);
      const content: Record<string, Schema> = {};
      for (const [type, media] of Object.entries((rb["content"] ?? {}) as Record<string, Schema>))
        content[type] = (media["schema"] as Schema | undefined) ?? {};
      body = { required: rb["required"] === true, content };
    }
    const route = `${method.toUpperCase()} ${path}`;
    const regex = path
      .replace(/[#?].*$/, "")
      .split(/(\{[^}]+\})/)
      .map((part) => (/^\{[^}]+\}$/.test(part) ? "([^/]+)" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("");
    return {
      method: method.toUpperCase(),
      path,
      ...(typeof op["operationId"] === "string" ? { operationId: op["operationId"] } : {}),
      route,
      parameters: [...byKey.values()],
      ...(body ? { body } : {}),
      success: this.#success(op),
      security: (op["security"] ?? this.doc["security"] ?? []) as Schema[],
      pattern: new RegExp(`^${regex}$`),
    };
  }

  #success(op: Schema): Operation["success"] {
    const responses = (op["responses"] ?? {}) as Record<string, Schema>;
    const codes = Object.keys(responses)
      .filter((c) => /^2(\d\d|XX)$/i.test(c))
      .sort();
    const code = codes.find((c) => c !== "204") ?? codes[0];
    if (code === undefined) return { status: 200 };
    const response = this.deref(responses[code]!);
    const status = /^\d+$/.test(code) ? Number(code) : 200;
    const content = (response["content"] ?? {}) as Record<string, Schema>;
    const types = Object.keys(content);
    const type = types.find((t) => /json/i.test(t)) ?? types[0];
    if (type === undefined) return { status };
    return { status, mediaType: type, schema: (content[type]!["schema"] as Schema | undefined) ?? {} };
  }

  /** The operation a request reaches: literal segments before parameters, as a router would. */
  match(method: string, path: string): { op: Operation; values: string[] } | undefined {
    const found = this.operations
      .filter((o) => o.method === method)
      .map((op) => ({ op, m: op.pattern.exec(path) }))
      .filter((x) => x.m !== null)
      .sort((a, b) => a.m!.length - b.m!.length);
    const first = found[0];
    return first ? { op: first.op, values: first.m!.slice(1) } : undefined;
  }

  /** A validator for a schema of this document, as JSON Schema 2020-12, for a request or a response. */
  validator(schema: Schema, mode: "request" | "response", oneOfAsAnyOf = false): ValidateFunction {
    const key = `${mode}:${oneOfAsAnyOf}:${JSON.stringify(schema)}`;
    let v = this.#validators.get(key);
    if (v === undefined) {
      const defs: Record<string, Schema> = {};
      const converted = this.convert(schema, mode, defs, [], oneOfAsAnyOf);
      v = this.ajv.compile({ ...(converted as object), $defs: defs });
      this.#validators.set(key, v);
    }
    return v;
  }

  /**
   * OpenAPI schema to JSON Schema 2020-12; `$ref`s become `#/$defs/<n>` entries of the root. With `loose`, each
   * `oneOf` is read as `anyOf` (to tell a value matching several branches from one matching none).
   */
  convert(
    node: unknown,
    mode: "request" | "response",
    defs: Record<string, Schema>,
    stack: string[],
    loose = false,
  ): unknown {
    if (Array.isArray(node)) return node.map((n) => this.convert(n, mode, defs, stack, loose));
    if (typeof node !== "object" || node === null) return node;
    const s = node as Schema;
    if (typeof s["$ref"] === "string") {
      const ref = s["$ref"];
      const name = ref.replace(/[^A-Za-z0-9_]/g, "_");
      if (!(name in defs)) {
        defs[name] = {};
        defs[name] = this.convert(this.resolve(ref), mode, defs, [...stack, ref], loose) as Schema;
      }
      return { $ref: `#/$defs/${name}` };
    }
    const out: Schema = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === "properties" && typeof v === "object" && v !== null) {
        const props: Schema = {};
        for (const [pk, pv] of Object.entries(v as Schema)) {
          const target = typeof pv?.["$ref"] === "string" ? this.deref(pv) : pv;
          if (mode === "request" && target?.["readOnly"] === true) continue;
          if (mode === "response" && target?.["writeOnly"] === true) continue;
          props[pk] = this.convert(pv, mode, defs, stack, loose);
        }
        out[k] = props;
      } else if (["example", "examples", "xml", "discriminator", "externalDocs", "nullable"].includes(k)) {
        continue;
      } else if (k.startsWith("x-")) {
        continue;
      } else if (k === "exclusiveMinimum" || k === "exclusiveMaximum") {
        if (typeof v === "number") out[k] = v;
        else if (v === true) {
          const bound = k === "exclusiveMinimum" ? "minimum" : "maximum";
          if (typeof s[bound] === "number") out[k] = s[bound];
        }
      } else if (
        (k === "minimum" || k === "maximum") &&
        s[k === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"] === true
      ) {
        continue;
      } else if (k === "items" && Array.isArray(v)) {
        out["prefixItems"] = this.convert(v, mode, defs, stack, loose);
      } else if (k === "format" && typeof v === "string" && !this.#knownFormat(v)) {
        continue;
      } else if (k === "oneOf" && loose) {
        out["anyOf"] = this.convert(v, mode, defs, stack, loose);
      } else out[k] = this.convert(v, mode, defs, stack, loose);
    }
    if (mode === "request" && Array.isArray(out["required"]) && out["properties"] !== undefined) {
      const props = s["properties"] as Schema;
      out["required"] = (out["required"] as string[]).filter((r) => {
        const p = props?.[r];
        const target = p && typeof p["$ref"] === "string" ? this.deref(p) : p;
        return target?.["readOnly"] !== true;
      });
    }
    if (!this.version31 && s["nullable"] === true) {
      if (typeof out["type"] === "string") out["type"] = [out["type"], "null"];
      else if (out["type"] === undefined) return { anyOf: [out, { type: "null" }] };
      if (Array.isArray(out["enum"]) && !out["enum"].includes(null)) out["enum"] = [...out["enum"], null];
    }
    return out;
  }

  #knownFormat(f: string): boolean {
    return this.ajv.formats[f] !== undefined;
  }

  /** A schema with `allOf` merged and the top `$ref` followed. */
  flat(schema: Schema | undefined): Schema {
    return flatten(schema ?? {}, this.resolve);
  }
}
