import type { Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";
import { createApp } from "../../src/app.js";
import { listen, type RunningServer } from "../../src/server.js";
import type { AuthAction, AuthResource } from "../../src/auth/request-auth.js";

/**
 * Test support: the real app (real auth middleware, real error mapping) with one extra route,
 * `POST /__probe/{resource}/{action}`, that calls `c.var.auth.authorize(resource, action, body)` the way
 * every feature route does and answers what it saw. It lets the auth tests pin down the semantics of
 * `authorize` independently of the feature routes, which are exercised end to end in auth-e2e.test.ts.
 * Dev mode is on, so the dev-only routes are part of the route table the auth tests walk.
 */
export async function startProbeServer(engine: Engine, storage: Storage, auth: unknown): Promise<RunningServer> {
  const app = createApp({ engine, storage, version: "test", auth, dev: true });
  app.post("/__probe/:resource/:action", async (c) => {
    const value = (await c.req.json()) as Record<string, unknown>;
    const resource = c.req.param("resource") as AuthResource;
    const action = c.req.param("action") as AuthAction;
    const filter = await c.var.auth.authorize(resource, action, value);
    return c.json({ filter: filter ?? null, value, user: c.var.auth.user ?? null });
  });
  return listen(app.fetch, { host: "127.0.0.1", port: 0 });
}

/** POSTs `value` to the probe; returns the status and the JSON answer. */
export async function probe(
  server: RunningServer,
  event: `${AuthResource}:${AuthAction}`,
  value: Record<string, unknown> = {},
  headers: Record<string, string> = { authorization: "Bearer alice" },
): Promise<{ status: number; body: ProbeAnswer & { detail?: string }; headers: Headers }> {
  const [resource, action] = event.split(":");
  const response = await fetch(`${server.url}/__probe/${resource}/${action}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(value),
  });
  return { status: response.status, body: (await response.json()) as ProbeAnswer, headers: response.headers };
}

export interface ProbeAnswer {
  filter: Record<string, unknown> | null;
  value: Record<string, unknown>;
  user: Record<string, unknown> | null;
}
