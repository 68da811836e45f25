/**
 * Points tools of a planned server at a local stand-in (the spec-test stub, or the recorder of `call --record`)
 * instead of their API: the request's scheme, host and port change, everything else (path, query, headers,
 * body, limits, output) stays as planned. Secrets bound to the tool's real host are bound to the stand-in
 * instead, so the runtime's binding check still runs, against the stand-in.
 */
import type { PlannedServer } from "../plan/plan.ts";

/** `origin` is `http://127.0.0.1:<port>`; `only` limits the change to the tools named. */
export function retarget(server: PlannedServer, origin: string, only?: ReadonlySet<string>): PlannedServer {
  const url = new URL(origin);
  const hostPort = `${url.hostname}:${url.port}`;
  const moved = new Set<string>();
  const tools = server.tools.map((tool) => {
    if (only !== undefined && !only.has(tool.plan.listing.name)) return tool;
    moved.add(tool.plan.request.hostPort);
    return {
      ...tool,
      plan: {
        ...tool.plan,
        request: { ...tool.plan.request, protocol: "http:" as const, origin: url.origin, host: url.host, hostPort },
        limits: { ...tool.plan.limits, allowInsecureHttp: true },
      },
    };
  });
  const secrets = server.plan.secrets.map((s) =>
    s.hosts === undefined || !s.hosts.some((h) => moved.has(h))
      ? s
      : { ...s, hosts: [...s.hosts.filter((h) => !moved.has(h)), hostPort] },
  );
  return { ...server, plan: { ...server.plan, secrets }, tools };
}

/** The path of the stand-in's token endpoint for one credential (spectest/stub.ts answers it). */
export const TOKEN_PATH = "/__kervanc_token/";

/**
 * Points the upstream-auth extension's token endpoints at the stand-in too (`kervanc test`): each at its own path
 * under TOKEN_PATH, where the stub issues the credential's placeholder token. Secrets bound to a token endpoint's
 * host are bound to the stand-in, as for tools.
 */
export function retargetCredentials(server: PlannedServer, origin: string): PlannedServer {
  const credentials = server.plan.credentials;
  if (credentials === undefined) return server;
  const url = new URL(origin);
  const hostPort = `${url.hostname}:${url.port}`;
  const moved = new Set<string>();
  const retargeted = credentials.map((c) => {
    if (c.kind === "callerHeader") return c;
    moved.add(c.hostPort);
    return { ...c, tokenUrl: `${url.origin}${TOKEN_PATH}${c.name}`, protocol: "http:" as const, hostPort };
  });
  const secrets = server.plan.secrets.map((s) =>
    s.hosts === undefined || !s.hosts.some((h) => moved.has(h))
      ? s
      : { ...s, hosts: [...new Set([...s.hosts.filter((h) => !moved.has(h)), hostPort])] },
  );
  return { ...server, plan: { ...server.plan, secrets, credentials: retargeted } };
}
