import { createRoute, z } from "@hono/zod-openapi";
import { v7 as uuidv7 } from "uuid";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import {
  ConflictError,
  matchesAuthFilter,
  NotFoundError,
  type Metadata,
  type Thread as ThreadRow,
  type ThreadTtlStrategy,
} from "@agent-server/core";
import type { AppEnv } from "../app-env.js";
import type { Superstep as EngineSuperstep } from "@agent-server/engine";
import { createRouter } from "../http/router.js";
import { jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { stateService, stopThreadRuns, visibleThread } from "./access.js";
import { errorResponses, Thread, ThreadCount, ThreadCreate, ThreadParams, ThreadPatch, ThreadSearch } from "./schemas.js";
import { selectThreadFields } from "./select.js";

const tags = ["Threads"];
const { 404: notFoundResponse, 409: conflictResponse, 422: invalidResponse } = errorResponses;

/** Create, search, count, read, patch and delete threads. */
export const crudRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/threads",
      tags,
      summary: "Create a thread (optionally seeded with supersteps of state updates)",
      request: { body: jsonBody(ThreadCreate) },
      responses: { 200: jsonResponse(Thread, "The thread"), 409: conflictResponse, 422: invalidResponse },
    }),
    async (c) => {
      const payload = c.req.valid("json");
      const { storage } = c.var.deps;
      const value = { thread_id: payload.thread_id ?? uuidv7(), metadata: payload.metadata ?? {}, if_exists: payload.if_exists ?? "raise" };
      const filter = await c.var.auth.authorize("threads", "create", value);
      const threadId = value.thread_id;
      const ttl = threadTtl(c, payload.ttl);
      let thread: ThreadRow;
      let created = true;
      try {
        thread = await storage.threads.create({ thread_id: threadId, metadata: value.metadata as Metadata, ...(ttl ? { ttl } : {}) });
      } catch (error) {
        if (!(error instanceof ConflictError) || value.if_exists !== "do_nothing") throw conflict(error, threadId);
        // do_nothing answers with the existing thread — unless the caller may not see it. Then the answer
        // is the one `raise` gives for any taken id, the owner's own included: the same 409 and detail.
        // "Create as if it did not exist" is impossible (ids are global, the row is taken), and handing
        // back anything else would expose the thread. That a chosen id is taken cannot be hidden from
        // any create (`raise`, the default, must say so), so the 409 tells nothing more; both official
        // servers answer a filtered-out id this way. Nothing of the thread (metadata, owner, state) leaks.
        const existing = await storage.threads.get(threadId);
        if (!existing || !matchesAuthFilter(existing.metadata, filter)) throw conflict(error, threadId);
        thread = existing;
        created = false;
      }
      if (payload.supersteps?.length) {
        // As the official server does: seeding state is an update of the thread.
        await visibleThread(c, "update", threadId);
        try {
          await stateService(c).bulkUpdate(threadId, payload.supersteps as EngineSuperstep[]);
        } catch (error) {
          // Nothing is left half-created: a thread made by this request goes if its seeding fails.
          if (created) await storage.threads.delete(threadId);
          throw error;
        }
        thread = (await storage.threads.get(threadId)) ?? thread;
      }
      return reply(c, thread);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/search",
      tags,
      summary: "Search threads",
      request: { body: jsonBody(ThreadSearch) },
      responses: { 200: jsonResponse(z.array(Thread), "Matching threads"), 422: invalidResponse },
    }),
    async (c) => {
      const value = { ...c.req.valid("json") };
      const filter = await c.var.auth.authorize("threads", "search", value);
      const threads = await c.var.deps.storage.threads.search({
        ids: value.ids,
        metadata: value.metadata,
        values: value.values,
        status: value.status,
        limit: value.limit,
        offset: value.offset,
        sort_by: value.sort_by === "state_updated_at" ? "updated_at" : value.sort_by,
        sort_order: value.sort_order,
        filter,
      });
      return reply(
        c,
        threads.map((thread) => selectThreadFields(thread, value.select)),
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/count",
      tags,
      summary: "Count threads",
      request: { body: jsonBody(ThreadCount) },
      responses: { 200: jsonResponse(z.number().int(), "How many threads match"), 422: invalidResponse },
    }),
    async (c) => {
      const value = { ...c.req.valid("json") };
      const filter = await c.var.auth.authorize("threads", "search", value);
      const count = await c.var.deps.storage.threads.count({
        metadata: value.metadata,
        values: value.values,
        status: value.status,
        filter,
      });
      return reply(c, count);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}",
      tags,
      summary: "Get a thread",
      request: { params: ThreadParams },
      responses: { 200: jsonResponse(Thread, "The thread"), 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread } = await visibleThread(c, "read", c.req.valid("param").thread_id);
      return reply(c, thread);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/threads/{thread_id}",
      tags,
      summary: "Merge metadata into a thread",
      request: { params: ThreadParams, body: jsonBody(ThreadPatch) },
      responses: {
        200: jsonResponse(Thread, "The updated thread"),
        204: { description: "Updated (Prefer: return=minimal)" },
        404: notFoundResponse,
        422: invalidResponse,
      },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const { metadata, ttl: requested } = c.req.valid("json");
      const ttl = requested ? threadTtl(c, requested) : undefined;
      const { value } = await visibleThread(c, "update", thread_id, { metadata: metadata ?? {} });
      const updated = await c.var.deps.storage.threads.update(thread_id, { metadata: value.metadata as Metadata, ...(ttl ? { ttl } : {}) });
      if (!updated) throw new NotFoundError(`Thread "${thread_id}" not found`);
      // The SDK's `returnMinimal` asks for no body.
      if (/return=minimal/i.test(c.req.header("prefer") ?? "")) return c.body(null, 204);
      return reply(c, updated);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/threads/{thread_id}",
      tags,
      summary: "Delete a thread with its runs and checkpoints (active runs are cancelled first)",
      request: { params: ThreadParams },
      responses: { 204: { description: "Deleted" }, 404: notFoundResponse, 422: invalidResponse },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      await visibleThread(c, "delete", thread_id);
      // Under the thread's lock (across processes): no run is admitted between stopping its runs and the delete.
      await c.var.deps.engine.withThreadLock(thread_id, async (heldLock) => {
        await stopThreadRuns(c, thread_id, heldLock);
        await c.var.deps.storage.threads.delete(thread_id);
        // Its protocol events are keyed by the thread, not by its runs: the drivers' run cascade misses them.
        await c.var.deps.engine.threadEvents.delete(thread_id);
      });
      return c.body(null, 204);
    },
  );

/**
 * A thread's TTL from the request's `ttl`, else langgraph.json `checkpointer.ttl.default_ttl`. A driver
 * without TTL sweeps refuses a requested TTL (422) rather than keep the thread forever, and gets no default.
 */
function threadTtl(c: Context<AppEnv>, requested: { strategy?: ThreadTtlStrategy | null; ttl: number } | null | undefined) {
  const { storage, engine } = c.var.deps;
  const sweeps = storage.threads.listExpired !== undefined && storage.threads.sweep !== undefined;
  if (requested && !sweeps) throw new HTTPException(422, { message: "ttl: thread TTLs are not supported by this server's storage driver" });
  return sweeps ? engine.threadTtl(requested) : undefined;
}

function conflict(error: unknown, threadId: string): unknown {
  return error instanceof ConflictError ? new ConflictError(`Thread "${threadId}" already exists`) : error;
}
