import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";

const TruncateRequest = z
  .object({
    runs: z.boolean().default(false),
    threads: z.boolean().default(false),
    assistants: z.boolean().default(false),
    store: z.boolean().default(false),
    checkpointer: z.boolean().default(false),
  })
  .openapi("TruncateRequest");

/**
 * Dev-mode only routes; mounted by createApp when deps.dev is set (`agent-server dev`), as the official
 * dev server exposes /internal/truncate for test suites that reset state between cases.
 */
export const internal = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/internal/truncate",
    tags: ["Internal"],
    summary: "Delete runs, threads, assistants, store items and/or checkpoints (dev mode only)",
    description: "System assistants (one per graph) survive, or are re-created, so every graph stays runnable.",
    request: { body: jsonBody(TruncateRequest) },
    responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), "Truncated"), 422: jsonResponse(ErrorDetail, "Invalid flags") },
  }),
  async (c) => {
    const flags = c.req.valid("json");
    const { storage, engine } = c.var.deps;
    await storage.truncate(flags);
    await engine.registry.ensureSystemAssistants(storage);
    return reply(c, { ok: true });
  },
);
