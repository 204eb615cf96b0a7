import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../http/router.js";
import { docs } from "./docs.js";

const Info = z
  .object({
    version: z.string(),
    context: z.literal("js"),
    flags: z.object({ assistants: z.boolean(), crons: z.boolean(), a2a: z.boolean(), langsmith: z.boolean() }),
  })
  .openapi("ServerInfo");

export const meta = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/ok",
      tags: ["System"],
      summary: "Health check",
      responses: { 200: { description: "The server is up", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } } },
    }),
    (c) => c.json({ ok: true }, 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/info",
      tags: ["System"],
      summary: "Server information and feature flags",
      responses: { 200: { description: "Server information", content: { "application/json": { schema: Info } } } },
    }),
    (c) =>
      c.json(
        {
          version: c.var.deps.version,
          context: "js" as const,
          flags: { assistants: true, crons: true, a2a: true, langsmith: false },
        },
        200,
      ),
  )
  .route("/", docs);
