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
  return { plan: { ...server.plan, secrets }, tools };
}
