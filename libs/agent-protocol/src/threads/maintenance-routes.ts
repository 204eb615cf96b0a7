import { createRoute, z } from "@hono/zod-openapi";
import { v7 as uuidv7 } from "uuid";
import { ConflictError, jsonEqual, matchesAuthFilter, type Metadata } from "@agent-server/core";
import { createRouter } from "../http/router.js";
import { jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { stateService, stopThreadRuns } from "./access.js";
import { errorResponses, Thread, ThreadParams, ThreadPrune } from "./schemas.js";

const tags = ["Threads"];
const { 409: conflictResponse, 422: invalidResponse } = errorResponses;

/** Copy a thread; prune threads (delete them, or keep only their latest checkpoints). */
export const maintenanceRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/copy",
      tags,
      summary: "Copy a thread: its checkpoints, and its runs under new run ids",
      description:
        "409 while a run of the source thread is pending or running (a copied in-flight run would execute again), and, as on the official server, when the source does not exist or the caller may not read it.",
      request: { params: ThreadParams },
      responses: { 200: jsonResponse(Thread, "The new thread"), 409: conflictResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const { storage } = c.var.deps;
      const filter = await c.var.auth.authorize("threads", "read", { thread_id });
      const source = await storage.threads.get(thread_id);
      // 409, not 404, for a source that is missing or not the caller's: the official server's answer.
      if (!source || !matchesAuthFilter(source.metadata, filter)) throw new ConflictError(`Thread "${thread_id}" not found`);
      // The copy is a new thread: the create handler sees it (and may stamp its metadata), as in the official server.
      const created = { thread_id: uuidv7(), metadata: { ...source.metadata }, if_exists: "raise" };
      await c.var.auth.authorize("threads", "create", created);
      // Under the source's lock (across processes): no run of it is admitted between the check and the copy.
      let copy = await c.var.deps.engine.withThreadLock(thread_id, async () => {
        if (await stateService(c).isBusy(thread_id)) {
          throw new ConflictError(`Thread "${thread_id}" is busy: copy it once its runs have finished`);
        }
        return storage.threads.copy(thread_id, created.thread_id);
      });
      if (!copy) throw new ConflictError(`Thread "${thread_id}" not found`);
      if (!jsonEqual(created.metadata, source.metadata)) {
        copy = (await storage.threads.update(copy.thread_id, { metadata: created.metadata as Metadata })) ?? copy;
      }
      return reply(c, copy);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/prune",
      tags,
      summary: "Prune threads",
      description:
        "`delete` removes the threads entirely (cancelling their active runs); `keep_latest` keeps each thread, its runs and its latest checkpoint per namespace. Threads that do not exist or that the caller may not see are skipped.",
      request: { body: jsonBody(ThreadPrune) },
      responses: { 200: jsonResponse(z.object({ pruned_count: z.number().int() }), "How many threads were pruned"), 422: invalidResponse },
    }),
    async (c) => {
      const { thread_ids, strategy } = c.req.valid("json");
      const { storage } = c.var.deps;
      const action = strategy === "delete" ? "delete" : "update";
      const allowed: string[] = [];
      for (const threadId of new Set(thread_ids)) {
        const filter = await c.var.auth.authorize("threads", action, { thread_id: threadId });
        const thread = await storage.threads.get(threadId);
        if (thread && matchesAuthFilter(thread.metadata, filter)) allowed.push(threadId);
      }
      // Thread by thread under its lock (across processes), so no run is admitted to a thread between
      // stopping its runs and deleting it, nor while its checkpoints are pruned.
      let pruned = 0;
      for (const threadId of allowed) {
        pruned += await c.var.deps.engine.withThreadLock(threadId, async (heldLock) => {
          if (strategy === "delete") await stopThreadRuns(c, threadId, heldLock);
          return storage.threads.prune([threadId], strategy);
        });
      }
      return reply(c, { pruned_count: pruned });
    },
  );
