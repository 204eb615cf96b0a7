import { createRoute, z } from "@hono/zod-openapi";
import { storageFault } from "@agent-server/core";
import { createRouter } from "../http/router.js";
import { jsonResponse, reply } from "../http/route-helpers.js";
import { docs } from "./docs.js";
import { checkServices } from "./health.js";
import { serverInfo } from "./server-info.js";

const Info = z
  .object({
    version: z.string(),
    langgraph_js_version: z.string().nullable(),
    context: z.literal("js"),
    flags: z.object({
      assistants: z.boolean(),
      crons: z.boolean(),
      langsmith: z
        .boolean()
        .openapi({ description: "LangChain tracing to LangSmith is on in this process (API key and tracing variable set)" }),
      langsmith_tracing_replicas: z
        .boolean()
        .openapi({ description: "Whether runs honour per-run LangSmith tracing replicas (they do not)" }),
      a2a: z.boolean(),
      stream_namespaces: z.boolean().openapi({ description: "Run streams and joins take `namespace`: only those namespaces' events" }),
    }),
    host: z.object({
      kind: z.literal("self-hosted"),
      project_id: z.null(),
      host_revision_id: z.null(),
      revision_id: z.null(),
      tenant_id: z.null(),
    }),
  })
  .openapi("ServerInfo");

const Services = z
  .record(z.string(), z.enum(["ok", "unavailable"]))
  .openapi("Services", { description: "Each dependency checked: `database` is the storage answering a trivial statement within 2 s." });

const Health = z.object({ ok: z.boolean(), services: Services.optional() }).openapi("Health");

const Readiness = z.object({ ready: z.boolean(), draining: z.boolean(), services: Services }).openapi("Readiness");

/** A storage fault is the expected answer of a health check during an outage: one line, no stack, per check. */
const logDown = (service: string, error: unknown) => {
  const fault = storageFault(error);
  if (fault) console.warn(`health check: ${service} unavailable: ${fault.reason}`);
  else console.error(`health check: ${service} unavailable:`, error);
};

export const meta = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/ok",
      tags: ["System"],
      summary: "Health check",
      description:
        "200 while the process is up. With `check_db=1` the storage is asked too: 503 with `services` naming the " +
        "dependency that is down.",
      request: {
        query: z.object({
          check_db: z.enum(["0", "1", "true", "false"]).optional().openapi({ description: "Also check the database" }),
        }),
      },
      responses: {
        200: jsonResponse(Health, "The server (and, when asked, its database) is up"),
        503: jsonResponse(Health, "A dependency is down: `services` says which"),
      },
    }),
    async (c) => {
      const { check_db: checkDb } = c.req.valid("query");
      if (checkDb !== "1" && checkDb !== "true") return reply(c, { ok: true }, 200);
      const { healthy, services } = await checkServices(c.var.deps.storage, logDown);
      return healthy ? reply(c, { ok: true, services }, 200) : reply(c, { ok: false, services }, 503);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/ready",
      tags: ["System"],
      summary: "Readiness check",
      description:
        "200 once every listener (HTTP, and gRPC when configured) is bound, while this process takes new work and its " +
        "database answers; 503 from SIGTERM/SIGINT on, while it drains (reads and streams are still served, runs still " +
        "executing are handed back to the queue at the end of the grace period), or while the database is unavailable " +
        "(`services` says so). Point a load balancer's health check here and the liveness check at /ok, which answers " +
        "200 until the process exits.",
      responses: {
        200: jsonResponse(Readiness, "This process takes new work"),
        503: jsonResponse(Readiness, "This process is draining, or a dependency is down: send new work elsewhere"),
      },
    }),
    async (c) => {
      const draining = c.var.deps.engine.draining;
      const { healthy, services } = await checkServices(c.var.deps.storage, logDown);
      const ready = healthy && !draining;
      return ready ? reply(c, { ready, draining, services }, 200) : reply(c, { ready, draining, services }, 503);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/info",
      tags: ["System"],
      summary: "Server information and feature flags",
      description: "The fields of the official servers' /info (version, langgraph_js_version, context, flags, host), plus `flags.a2a`.",
      responses: { 200: jsonResponse(Info, "Server information") },
    }),
    (c) => reply(c, serverInfo(c.var.deps.version)),
  )
  .route("/", docs);
