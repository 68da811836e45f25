/** workerd.capnp, the sample workerd configuration of a package (the fetch target on workerd). */
import type { PlannedServer } from "../../plan/plan.ts";
import { SAMPLE_PORT } from "./sample-port.ts";
import { TARGET } from "../targets.ts";

export const WORKERD_CONFIG_FILE = "workerd.capnp";
/**
 * The Workers compatibility date of the sample workerd configuration: fixed (a build must not depend on the
 * day), and not newer than the workerd the tests run (a workerd refuses dates after its own release).
 */
export const WORKERD_COMPATIBILITY_DATE = "2025-09-01";

/** A Cap'n Proto text literal (the secret names it carries are plain identifiers; this keeps it so). */
const capnpText = (text: string): string => JSON.stringify(text);

/**
 * The sample workerd configuration: worker.mjs on 127.0.0.1 at SAMPLE_PORT, no `nodejs_compat`, secrets from the
 * environment workerd runs in, and outbound requests to public addresses only (workerd's own address check,
 * which also covers what host names resolve to).
 */
export function workerdConfig(server: PlannedServer): string {
  const bindings = server.plan.secrets.map(
    (s) => `    (name = ${capnpText(s.name)}, fromEnvironment = ${capnpText(s.name)}),`,
  );
  return `# Run: workerd serve ${WORKERD_CONFIG_FILE}
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .server),
    # Outbound requests: public addresses only. workerd refuses loopback, private and link-local addresses here,
    # for IP literals and for whatever a host name resolves to.
    (name = "internet", network = (allow = ["public"], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${SAMPLE_PORT}", http = (), service = "main")],
);

const server :Workerd.Worker = (
  modules = [(name = "${TARGET.fetch.file}", esModule = embed "${TARGET.fetch.file}")],
  compatibilityDate = "${WORKERD_COMPATIBILITY_DATE}",
  bindings = [
${bindings.length > 0 ? `${bindings.join("\n")}\n` : ""}    # Other settings of the fetch handler, for example:
    # (name = "KERVANC_ALLOWED_HOSTS", text = "mcp.example.com"),
  ],
  globalOutbound = "internet",
);
`;
}
