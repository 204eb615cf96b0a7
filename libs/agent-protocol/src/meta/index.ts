import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../http/router.js";
import { jsonResponse, reply } from "../http/route-helpers.js";
import { docs } from "./docs.js";
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

const Readiness = z.object({ ready: z.boolean(), draining: z.boolean() }).openapi("Readiness");

export const meta = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/ok",
      tags: ["System"],
      summary: "Health check",
      responses: { 200: jsonResponse(z.object({ ok: z.boolean() }), "The server is up") },
    }),
    (c) => reply(c, { ok: true }),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/ready",
      tags: ["System"],
      summary: "Readiness check",
      description:
        "200 while this process takes new work; 503 from SIGTERM/SIGINT on, while it drains (reads and streams are still " +
        "served, runs still executing are handed back to the queue at the end of the grace period). Point a load " +
        "balancer's health check here and the liveness check at /ok, which answers 200 until the process exits.",
      responses: {
        200: jsonResponse(Readiness, "This process takes new work"),
        503: jsonResponse(Readiness, "This process is draining: send new work elsewhere"),
      },
    }),
    (c) => (c.var.deps.engine.draining ? reply(c, { ready: false, draining: true }, 503) : reply(c, { ready: true, draining: false })),
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
