import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
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
 *
 * Truncation wipes every user's data, and no auth event describes it, so no handler can scope it: with
 * custom auth configured it is refused outright. Like every route it sits behind authentication, so an
 * unauthenticated call answers 401 first (as on the official server, which registers it after its auth
 * middleware); an authenticated one answers 403. The official suites reset state this way without
 * credentials on their auth project and ignore the answer.
 */
export const internal = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/internal/truncate",
    tags: ["Internal"],
    summary: "Delete runs, threads, assistants, store items and/or checkpoints (dev mode only)",
    description: "System assistants (one per graph) survive, or are re-created, so every graph stays runnable.",
    request: { body: jsonBody(TruncateRequest) },
    responses: {
      200: jsonResponse(z.object({ ok: z.literal(true) }), "Truncated"),
      401: jsonResponse(ErrorDetail, "Not authenticated (custom auth configured)"),
      403: jsonResponse(ErrorDetail, "Refused: custom auth is configured"),
      422: jsonResponse(ErrorDetail, "Invalid flags"),
    },
  }),
  async (c) => {
    if (c.var.deps.auth != null) {
      throw new HTTPException(403, {
        message: "/internal/truncate is disabled when custom auth is configured: it would delete every user's data",
      });
    }
    const flags = c.req.valid("json");
    const { storage, engine } = c.var.deps;
    await storage.truncate(flags);
    await engine.registry.ensureSystemAssistants(storage);
    return reply(c, { ok: true });
  },
);
