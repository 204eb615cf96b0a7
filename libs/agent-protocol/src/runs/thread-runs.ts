import { createRoute, z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { ACTIVE_RUN_STATUSES, type Metadata, type Run as RunRecord } from "@agent-server/core";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { authorizedRun, authorizedThread } from "./access.js";
import { createAndStream, createAndWait, createInBackground } from "./respond.js";
import { eventStreamResponse, Run, RUN_FIELDS, RunCreate, RunStatus, RunStreamQuery, ThreadIdParam, ThreadRunParams } from "./schemas.js";

const tags = ["Thread Runs"];
const notFound = jsonResponse(ErrorDetail, "Unknown thread, run or assistant");
const invalid = jsonResponse(ErrorDetail, "Invalid request, or the thread is busy and multitask_strategy is reject");

const RunField = z.enum(RUN_FIELDS);

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  status: RunStatus.optional(),
  metadata: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      try {
        const parsed: unknown = JSON.parse(raw);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Metadata;
      } catch {
        // reported below
      }
      ctx.addIssue({ code: "custom", message: "metadata must be a JSON object" });
      return z.NEVER;
    })
    .openapi({ type: "string", description: "JSON object the runs' metadata must contain." }),
  select: z
    .union([RunField, z.array(RunField)])
    .optional()
    .openapi({ description: "Fields of each run to return (an unknown field name answers 422)." }),
});

/** Runs of one thread: list, create (background, streamed, waited), get, delete. */
export const threadRuns = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/runs",
      tags,
      summary: "List a thread's runs, newest first",
      request: { params: ThreadIdParam, query: ListQuery },
      responses: {
        200: jsonResponse(z.array(Run.partial()), "The runs, with only the selected fields when `select` is given"),
        404: notFound,
        422: invalid,
      },
    }),
    async (c) => {
      const { thread_id } = c.req.valid("param");
      const query = c.req.valid("query");
      await authorizedThread(c, thread_id, "read");
      const runs = await c.var.deps.storage.runs.search({
        thread_id,
        status: query.status,
        metadata: query.metadata,
        limit: query.limit ?? 10,
        offset: query.offset ?? 0,
      });
      return reply(c, select(runs, query.select));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/runs",
      tags,
      summary: "Create a background run",
      request: { params: ThreadIdParam, body: jsonBody(RunCreate) },
      responses: { 200: jsonResponse(Run, "The created (pending) run"), 404: notFound, 422: invalid },
    }),
    (c) => createInBackground(c, c.req.valid("param").thread_id, c.req.valid("json")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/runs/stream",
      tags,
      summary: "Create a run and stream its events",
      request: { params: ThreadIdParam, query: RunStreamQuery, body: jsonBody(RunCreate) },
      responses: { 200: eventStreamResponse, 404: notFound, 422: invalid },
    }),
    (c) => createAndStream(c, c.req.valid("param").thread_id, c.req.valid("json"), c.req.valid("query")),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/runs/wait",
      tags,
      summary: "Create a run and wait for its final values",
      request: { params: ThreadIdParam, body: jsonBody(RunCreate) },
      responses: {
        200: jsonResponse(z.unknown(), "The final state values, or {__error__} when the run failed"),
        404: notFound,
        422: invalid,
      },
    }),
    (c) => createAndWait(c, c.req.valid("param").thread_id, c.req.valid("json")),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/runs/{run_id}",
      tags,
      summary: "Get a run",
      request: { params: ThreadRunParams },
      responses: { 200: jsonResponse(Run, "The run"), 404: notFound },
    }),
    async (c) => {
      const { thread_id, run_id } = c.req.valid("param");
      const { run } = await authorizedRun(c, thread_id, run_id, "read");
      return reply(c, run);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/threads/{thread_id}/runs/{run_id}",
      tags,
      summary: "Delete a finished run",
      request: { params: ThreadRunParams },
      responses: {
        204: { description: "Deleted" },
        404: notFound,
        409: jsonResponse(ErrorDetail, "The run is pending or running: cancel it first"),
      },
    }),
    async (c) => {
      const { thread_id, run_id } = c.req.valid("param");
      const { run } = await authorizedRun(c, thread_id, run_id, "delete");
      // An executing run cannot lose its row under the worker: settlement and leases work on it.
      if (ACTIVE_RUN_STATUSES.includes(run.status)) {
        throw new HTTPException(409, { message: `Run "${run_id}" is ${run.status}; cancel it before deleting it` });
      }
      if (!(await c.var.deps.storage.runs.delete(run_id))) throw new HTTPException(404, { message: `Run "${run_id}" not found` });
      return c.body(null, 204);
    },
  );

/**
 * `select`: each run with only the named fields, as the official server answers. A field the run has no
 * value for reads null (`cancel_reason` of a run that was not cancelled), so every selected key is there.
 */
function select(runs: RunRecord[], fields: RunField | RunField[] | undefined): unknown[] {
  if (fields === undefined) return runs;
  const wanted = [...new Set([fields].flat())];
  return runs.map((run) => Object.fromEntries(wanted.map((field) => [field, run[field] ?? null])));
}

type RunField = (typeof RUN_FIELDS)[number];
