/**
 * The deploy/ folder of a generated package: a Dockerfile, a Kubernetes manifest (Deployment and Service) and a
 * wrangler.toml for Cloudflare Workers.
 *
 * Each is a starting point an operator edits (the image name, the Host name clients use, the replica count),
 * with the safe settings already in place: a non-root user, nothing written to the root filesystem, code
 * generation from strings refused, every capability dropped, secrets from the environment (a Kubernetes Secret,
 * `wrangler secret put`), authentication required off loopback (the server refuses to start without it), and
 * /healthz for the health checks. The image carries Node's compile cache of the server, built at image build
 * time and read-only at run time, so that no start compiles the bundle again. Every spec-derived value is
 * written as a JSON string, which YAML and TOML both read as a plain string, so no name can break out of its field.
 */
import type { PlannedServer } from "../../plan/plan.ts";
import { hashComment } from "../code/code.ts";
import { packageName, packageVersion } from "./package-json.ts";
import { SAMPLE_PORT } from "./sample-port.ts";
import { WORKERD_COMPATIBILITY_DATE } from "./workerd-config.ts";
import { TARGET } from "../targets.ts";

export const DEPLOY_FILES = {
  dockerfile: "deploy/Dockerfile",
  kubernetes: "deploy/kubernetes.yaml",
  wrangler: "deploy/wrangler.toml",
} as const;

/** The Node image: the release line the tests run on, Alpine for the smallest base with a shell for HEALTHCHECK. */
export const DOCKER_BASE_IMAGE = "node:22-alpine";
/**
 * The user the server runs as: the Node image's `node` user, by number, so that Kubernetes (`runAsNonRoot`
 * verifies only a numeric user) and the manifest's `runAsUser` name the same one.
 */
export const RUN_AS_ID = 1000;
/** The settings every generated package's environment may hold besides its secrets. */
const AUTH_TOKENS = "KERVANC_AUTH_TOKENS";

const q = (text: string): string => JSON.stringify(text);

/** Where the image keeps Node's compile cache, built at image build time (see `dockerfile`). */
export const COMPILE_CACHE_DIR = "/app/.node-compile-cache";
export const COMPILE_CACHE_ENV = "NODE_COMPILE_CACHE";
/** What the cache's warm-up asks the server over stdio: its answer runs the code every start runs. */
export const WARM_UP_REQUEST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

/** A Kubernetes object name (RFC 1123 label): lower-case letters, digits and '-', at most 63 characters. */
export function kubernetesName(folder: string): string {
  const name = packageName(folder)
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 52)
    .replace(/-+$/, "");
  return /^[a-z]/.test(name) ? name : `mcp-${name}`.replace(/-+$/, "");
}

/**
 * The image reference the files name, `name:tag`, valid for Docker and Kubernetes: the name is the Kubernetes
 * name (a package name such as `a..b` or `api_` is no valid image name), and the tag is the version with semver's
 * `+` (build metadata), which tags refuse, written `_`.
 */
export function imageReference(server: PlannedServer, folder: string): string {
  return `${kubernetesName(folder)}:${packageVersion(server).replace(/\+/g, "_")}`;
}

/**
 * A Kubernetes label value: at most 63 characters of letters, digits, `-`, `_` and `.`, starting and ending
 * with a letter or digit (the API server refuses the object otherwise; the JSON schemas do not check it).
 */
export function labelValue(text: string): string {
  let value = text.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 63);
  while (value !== "" && !/[A-Za-z0-9]$/.test(value)) value = value.slice(0, -1);
  while (value !== "" && !/^[A-Za-z0-9]/.test(value)) value = value.slice(1);
  return value;
}

function secretNames(server: PlannedServer): string[] {
  return [...new Set(server.plan.secrets.map((s) => s.name))].sort();
}

export function dockerfile(server: PlannedServer, folder: string, header: string): string {
  const image = imageReference(server, folder);
  const port = String(SAMPLE_PORT);
  // The same Node flags for the cache's warm-up as for the server: Node keeps a cache folder per set of flags.
  const nodeFlags = ["--disallow-code-generation-from-strings"];
  const entry = ["node", ...nodeFlags, TARGET.node.file, "--http", "--host", "0.0.0.0", "--port", port];
  const secrets = [...secretNames(server), AUTH_TOKENS];
  return `${hashComment(header)}
# ${packageName(folder)} ${packageVersion(server)}: build from the package folder with
#   docker build -f deploy/Dockerfile -t ${image} .
# and run with a read-only root filesystem, secrets from the environment, and the Host name clients use:
#   docker run --read-only --cap-drop ALL --security-opt no-new-privileges -p ${port}:${port} \\
#     ${secrets.map((s) => `-e ${s}`).join(" ")} ${image} --allowed-host mcp.example.com
# Off loopback the server refuses to start without authentication: ${AUTH_TOKENS} (bearer tokens) or
# --oauth-issuer/--oauth-jwks-url (OAuth). server.mjs is one file with no dependencies: no npm install here.
FROM ${DOCKER_BASE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --chown=root:root --chmod=0444 ${TARGET.node.file} manifest.json ./
# Node's compile cache (docs/runtime.md), built once here so that no start compiles ${TARGET.node.file} again: the
# server's user fills it (Node keeps a folder per user id and per Node flags) by answering one tools/list over
# stdio, then root takes it and makes it read-only: the running server reads it, and nobody can change it.
# Run under another user id, the server finds no folder of its own and compiles as it would without one.
ENV ${COMPILE_CACHE_ENV}=${COMPILE_CACHE_DIR}
RUN install -d -o ${RUN_AS_ID} -g ${RUN_AS_ID} -m 0700 ${COMPILE_CACHE_DIR}
USER ${RUN_AS_ID}:${RUN_AS_ID}
RUN printf '%s\\n' '${WARM_UP_REQUEST}' | node ${nodeFlags.join(" ")} ${TARGET.node.file} > /dev/null
USER root
RUN chown -R root:root ${COMPILE_CACHE_DIR} && chmod -R u=rwX,go=rX ${COMPILE_CACHE_DIR}
# The image's unprivileged user (node), by number; the server writes no file, so the root filesystem can be
# read-only.
USER ${RUN_AS_ID}:${RUN_AS_ID}
EXPOSE ${port}
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 CMD wget -q -O /dev/null http://127.0.0.1:${port}/healthz || exit 1
ENTRYPOINT [${entry.map(q).join(", ")}]
CMD ["--allowed-host", "localhost"]
`;
}

export function kubernetesManifest(server: PlannedServer, folder: string, header: string): string {
  const name = kubernetesName(folder);
  const version = packageVersion(server);
  const port = SAMPLE_PORT;
  const env = [...secretNames(server), AUTH_TOKENS]
    .map(
      (secret) => `            - name: ${q(secret)}
              valueFrom:
                secretKeyRef: { name: ${q(`${name}-secrets`)}, key: ${q(secret)} }`,
    )
    .join("\n");
  const probe = `httpGet: { path: "/healthz", port: "http" }`;
  return `${hashComment(header)}
# ${name} ${version}: a Deployment and a Service. Build the image from deploy/Dockerfile, set the Host name
# clients use (--allowed-host) and, behind an ingress or load balancer, its addresses (--trust-proxy CIDR),
# then create the Secret the pods read:
#   kubectl create secret generic ${name}-secrets ${[...secretNames(server), AUTH_TOKENS].map((s) => `--from-literal=${s}=...`).join(" ")}
# The server is stateless: scale replicas freely. Limits (requests per client, per tool) count per replica.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${q(name)}
  labels: { app.kubernetes.io/name: ${q(name)}, app.kubernetes.io/version: ${q(labelValue(version))} }
spec:
  replicas: 2
  selector:
    matchLabels: { app.kubernetes.io/name: ${q(name)} }
  template:
    metadata:
      labels: { app.kubernetes.io/name: ${q(name)} }
    spec:
      automountServiceAccountToken: false
      # No variables for the namespace's other Services: the environment holds the secrets and settings only.
      enableServiceLinks: false
      securityContext:
        runAsNonRoot: true
        runAsUser: ${RUN_AS_ID}
        runAsGroup: ${RUN_AS_ID}
        seccompProfile: { type: RuntimeDefault }
      containers:
        - name: server
          image: ${q(imageReference(server, folder))}
          args: ["--allowed-host", "mcp.example.com", "--log-format", "json"]
          ports:
            - { name: http, containerPort: ${port}, protocol: TCP }
          env:
${env}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: { drop: ["ALL"] }
          resources:
            requests: { cpu: "50m", memory: "64Mi" }
            limits: { cpu: "500m", memory: "256Mi" }
          readinessProbe: { ${probe}, periodSeconds: 10 }
          livenessProbe: { ${probe}, periodSeconds: 20, failureThreshold: 3 }
---
apiVersion: v1
kind: Service
metadata:
  name: ${q(name)}
  labels: { app.kubernetes.io/name: ${q(name)} }
spec:
  type: ClusterIP
  selector: { app.kubernetes.io/name: ${q(name)} }
  ports:
    - { name: http, port: 80, targetPort: http, protocol: TCP }
`;
}

export function wranglerToml(server: PlannedServer, folder: string, header: string): string {
  const name = kubernetesName(folder);
  const secrets = [...secretNames(server), AUTH_TOKENS];
  return `${hashComment(header)}
# ${name} on Cloudflare Workers: from the package folder, \`npx wrangler deploy -c deploy/wrangler.toml\`.
# worker.mjs imports no Node built-in, so no nodejs_compat flag is set. Set each secret (never in this file):
${secrets.map((s) => `#   npx wrangler secret put ${s}`).join("\n")}
# (or KERVANC_OAUTH_ISSUER and KERVANC_OAUTH_JWKS_URL for OAuth instead of ${AUTH_TOKENS}). With
# KERVANC_ALLOWED_HOSTS naming a public host, the worker refuses to start without authentication.
name = ${q(name)}
main = ${q(`../${TARGET.fetch.file}`)}
compatibility_date = ${q(WORKERD_COMPATIBILITY_DATE)}
workers_dev = true

[vars]
KERVANC_ALLOWED_HOSTS = ${q(`${name}.example.workers.dev`)}
`;
}
