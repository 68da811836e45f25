/**
 * deploy/ in every generated package (issue 15): the Dockerfile, the Kubernetes manifest and wrangler.toml
 * parse and carry the settings the issue lists. The manifest is validated against the published Kubernetes
 * JSON schemas (kubernetes-models ships them compiled, so no network is needed), and the check is shown to
 * refuse a broken manifest. Every golden package is checked (the golden test proves they are what a build writes).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Service } from "kubernetes-models/v1/Service";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { compileSpec } from "../../packages/compiler/src/compile.ts";
import { dockerfile, kubernetesManifest, RUN_AS_ID } from "../../packages/compiler/src/emit/files/deploy-files.ts";

const GOLDEN = resolve(import.meta.dirname, "..", "..", "fixtures", "golden");
const packages = readdirSync(GOLDEN).filter((name) => existsSync(join(GOLDEN, name, "manifest.json")));
const read = (pkg: string, file: string): string => readFileSync(join(GOLDEN, pkg, file), "utf8");
const secretsOf = (pkg: string): string[] =>
  (JSON.parse(read(pkg, "manifest.json")) as { secrets: { name: string }[] }).secrets.map((s) => s.name);

/** Dockerfile instructions: comments dropped, continuations joined. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

function validateK8s(doc: Record<string, unknown>): void {
  if (doc["kind"] === "Deployment") new Deployment(doc as never).validate();
  else if (doc["kind"] === "Service") new Service(doc as never).validate();
  else throw new Error(`unexpected kind ${String(doc["kind"])}`);
}

describe.each(packages)("deploy/ of %s", (pkg) => {
  it("has a Dockerfile: minimal Node base, non-root, code generation refused, /healthz, no secret baked in", () => {
    const steps = instructions(read(pkg, "deploy/Dockerfile"));
    expect(steps[0]).toEqual({ op: "FROM", args: expect.stringMatching(/^node:\d+-alpine$/) });
    // The cache's warm-up runs as the image's node user (by number, the one the Kubernetes manifest runs as),
    // root then takes the cache, and the server runs as that user. dockerfile-cache.test.ts runs these steps.
    const user = `${RUN_AS_ID}:${RUN_AS_ID}`;
    expect(steps.filter((s) => s.op === "USER").map((s) => s.args)).toEqual([user, "root", user]);
    const entry = JSON.parse(steps.find((s) => s.op === "ENTRYPOINT")!.args) as string[];
    expect(entry.slice(0, 3)).toEqual(["node", "--disallow-code-generation-from-strings", "server.mjs"]);
    expect(entry).toContain("--http");
    expect(steps.find((s) => s.op === "HEALTHCHECK")!.args).toContain("/healthz");
    // Nothing but the bundle and its manifest goes in, and no ENV holds a secret: secrets come at run time.
    expect(
      steps.filter((s) => s.op === "COPY").map((s) => s.args.split(" ").filter((a) => !a.startsWith("--"))),
    ).toEqual([["server.mjs", "manifest.json", "./"]]);
    expect(steps.filter((s) => s.op === "ENV").map((s) => s.args)).toEqual([
      "NODE_ENV=production",
      "NODE_COMPILE_CACHE=/app/.node-compile-cache",
    ]);
    // The RUN steps build the compile cache and nothing else: no package manager, no download.
    const runs = steps.filter((s) => s.op === "RUN").map((s) => s.args);
    expect(runs).toHaveLength(3);
    for (const run of runs) expect(run).toMatch(/^(install -d |printf |chown -R )/);
    expect(runs.join("\n")).not.toMatch(/\b(npm|apk|wget|curl)\b/);
    // The warm-up runs the server with the ENTRYPOINT's Node flags: Node keeps a cache folder per set of flags.
    expect(runs[1]).toContain(`| ${entry.slice(0, 3).join(" ")} > /dev/null`);
  });

  it("has a Kubernetes Deployment and Service that pass the Kubernetes schemas and carry the hardening", () => {
    const docs = parseAllDocuments(read(pkg, "deploy/kubernetes.yaml")).map((d) => {
      expect(d.errors).toEqual([]);
      return d.toJSON() as Record<string, unknown>;
    });
    expect(docs.map((d) => d["kind"])).toEqual(["Deployment", "Service"]);
    for (const doc of docs) validateK8s(doc);
    const deployment = docs[0] as {
      spec: { template: { spec: { securityContext: Record<string, unknown>; containers: Record<string, any>[] } } };
    };
    const pod = deployment.spec.template.spec;
    // No service account token and no variables for other Services in the pod's environment.
    expect(pod).toMatchObject({ automountServiceAccountToken: false, enableServiceLinks: false });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: RUN_AS_ID, runAsGroup: RUN_AS_ID });
    const [container] = pod.containers;
    expect(container!["securityContext"]).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(Object.keys(container!["resources"]["requests"]).sort()).toEqual(["cpu", "memory"]);
    expect(Object.keys(container!["resources"]["limits"]).sort()).toEqual(["cpu", "memory"]);
    for (const probe of ["readinessProbe", "livenessProbe"])
      expect(container![probe]["httpGet"]["path"]).toBe("/healthz");
    const env = container!["env"] as {
      name: string;
      value?: string;
      valueFrom?: { secretKeyRef: { name: string; key: string } };
    }[];
    // Every secret, and the bearer tokens, come from a Secret; no value is written here.
    expect(env.map((e) => e.name).sort()).toEqual([...secretsOf(pkg), "KERVANC_AUTH_TOKENS"].sort());
    for (const e of env) expect(e.value === undefined && e.valueFrom?.secretKeyRef.key === e.name).toBe(true);
  });

  it("has a wrangler.toml that serves worker.mjs without nodejs_compat", () => {
    const config = parseToml(read(pkg, "deploy/wrangler.toml")) as Record<string, unknown>;
    expect(existsSync(join(GOLDEN, pkg, "deploy", config["main"] as string))).toBe(true);
    expect(config["main"]).toBe("../worker.mjs");
    expect(config["compatibility_flags"] ?? []).not.toContain("nodejs_compat");
    expect(JSON.stringify(config)).not.toContain("nodejs_compat");
    expect(config["compatibility_date"]).toMatch(/^\d{4}-\d\d-\d\d$/);
    // Secrets are never vars: only the allowed host is.
    expect(Object.keys(config["vars"] as object)).toEqual(["KERVANC_ALLOWED_HOSTS"]);
  });
});

describe("the Kubernetes schema check", () => {
  it("refuses a manifest the schemas do not allow (so a pass means something)", () => {
    const docs = parseAllDocuments(read(packages[0]!, "deploy/kubernetes.yaml")).map(
      (d) => d.toJSON() as Record<string, any>,
    );
    const broken = structuredClone(docs[0]!);
    broken["spec"]["replicas"] = "two";
    expect(() => validateK8s(broken)).toThrow();
    const noImage = structuredClone(docs[0]!);
    delete noImage["spec"]["template"]["spec"]["containers"][0]["name"];
    expect(() => validateK8s(noImage)).toThrow();
  });
});

/** Docker's reference grammar (distribution/reference): a lower-case path component, and a tag. */
const IMAGE_NAME = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const IMAGE_TAG = /^\w[\w.-]{0,127}$/;
/** A Kubernetes label value, which the API server checks and the JSON schemas do not. */
const LABEL_VALUE = /^(?:(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe("deploy/ with the values a spec and its file name may hold", () => {
  // Versions are semver (else 0.0.0): build metadata has '+', which image tags and label values refuse, and
  // a version may be 64 characters. Folder names may hold dots and underscores anywhere but first and last.
  const versions = ["1.0.0-rc.1+build.5", `1.0.0-${"a".repeat(58)}`, "2.0.0-x-"];
  const folders = ["a..b", "API_v2_", "9-lives", "x._-y"];
  for (const version of versions) {
    for (const folder of folders) {
      it(`names a valid image and valid labels for version ${version} in folder ${folder}`, () => {
        const compiled = compileSpec(
          `${folder}.yaml`,
          new TextEncoder().encode(`specVersion: 1
name: s
version: "${version}"
tools:
  - name: a
    description: a
    http: { url: "https://api.example.com/a" }
    output: { select: "@" }
`),
        );
        if (!compiled.planned) throw new Error(JSON.stringify(compiled.diagnostics));
        const docs = parseAllDocuments(kubernetesManifest(compiled.planned, folder, "header")).map(
          (d) => d.toJSON() as Record<string, any>,
        );
        for (const doc of docs) validateK8s(doc);
        const labels = docs.flatMap((d) => [
          ...Object.values(d["metadata"]["labels"] as Record<string, string>),
          ...Object.values((d["spec"]["template"]?.["metadata"]["labels"] ?? {}) as Record<string, string>),
        ]);
        for (const label of labels) {
          expect(label, "label value").toMatch(LABEL_VALUE);
          expect(label.length).toBeLessThanOrEqual(63);
        }
        const image = docs[0]!["spec"]["template"]["spec"]["containers"][0]["image"] as string;
        const [name, tag] = image.split(":");
        expect(name, image).toMatch(IMAGE_NAME);
        expect(tag, image).toMatch(IMAGE_TAG);
        // The Dockerfile's build and run lines name the same image.
        const docker = dockerfile(compiled.planned, folder, "header");
        expect(docker).toContain(`docker build -f deploy/Dockerfile -t ${image} .`);
        expect(docker).toContain(` ${image} --allowed-host mcp.example.com`);
      });
    }
  }
});
