import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter, nowIso, type Cron as CronRow, type CronPatch as RepoPatch, type Metadata } from "@agent-server/core";
import { nextRunDate } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import type { AuthAction } from "../auth/request-auth.js";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { checkWebhookUrl } from "../runs/webhook-url.js";
import { checkSchedule, checkTimezone, combineFilters, pickFields, runPayload, toWireCron } from "./cron-payload.js";
import { Cron, CronCount, CronIdParam, CronPatch, CronSearch } from "./schemas.js";

const tags = ["Crons"];

/** Authorizes `crons:<action>` and loads the cron; unknown and out-of-scope both answer 404. */
async function authorizedCron(c: Context<AppEnv>, cronId: string, action: AuthAction, extra: Record<string, unknown> = {}) {
  const value: Record<string, unknown> = { cron_id: cronId, ...extra };
  const filter = await c.var.auth.authorize("crons", action, value);
  const cron = await c.var.deps.storage.crons.get(cronId);
  if (!cron || !matchesAuthFilter(cron.metadata, filter)) throw new HTTPException(404, { message: `Cron "${cronId}" not found` });
  return { cron, value };
}

/** Search and count share their filtering: assistant (id or graph name), thread, metadata, auth scope. */
async function searchFilter(
  c: Context<AppEnv>,
  body: { assistant_id?: string | null; thread_id?: string | null; metadata?: Metadata | null },
  extra: Record<string, unknown>,
) {
  const value: Record<string, unknown> = {
    assistant_id: body.assistant_id ? c.var.deps.engine.registry.resolveAssistantId(body.assistant_id) : undefined,
    thread_id: body.thread_id ?? undefined,
    ...extra,
  };
  const auth = await c.var.auth.authorize("crons", "search", value);
  return {
    assistant_id: value.assistant_id as string | undefined,
    thread_id: value.thread_id as string | undefined,
    filter: combineFilters(auth, body.metadata),
  };
}

/** Search, count, update and delete of crons. */
export const cronManage = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/crons/search",
      tags,
      summary: "Search crons",
      request: { body: jsonBody(CronSearch) },
      responses: { 200: jsonResponse(z.array(Cron.partial()), "Matching crons"), 422: jsonResponse(ErrorDetail, "Invalid request") },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const { filter, ...query } = await searchFilter(c, body, { limit: body.limit, offset: body.offset });
      if (filter === null) return reply(c, []);
      const crons = await c.var.deps.storage.crons.search({
        ...query,
        filter,
        enabled: body.enabled ?? undefined,
        limit: body.limit,
        offset: body.offset,
        sort_by: body.sort_by ?? undefined,
        sort_order: body.sort_order ?? undefined,
      });
      return reply(
        c,
        crons.map((cron) => pickFields(toWireCron(cron), body.select)),
      );
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/crons/count",
      tags,
      summary: "Count crons",
      request: { body: jsonBody(CronCount) },
      responses: { 200: jsonResponse(z.number().int(), "How many crons match"), 422: jsonResponse(ErrorDetail, "Invalid request") },
    }),
    async (c) => {
      const { filter, ...query } = await searchFilter(c, c.req.valid("json"), {});
      if (filter === null) return reply(c, 0);
      return reply(c, await c.var.deps.storage.crons.count({ ...query, filter }));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/runs/crons/{cron_id}",
      tags,
      summary: "Update a cron (schedule, end time, enabled, run payload)",
      request: { params: CronIdParam, body: jsonBody(CronPatch) },
      responses: {
        200: jsonResponse(Cron, "The updated cron"),
        404: jsonResponse(ErrorDetail, "Unknown cron"),
        422: jsonResponse(ErrorDetail, "Invalid schedule, timezone or body"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      if (body.schedule) checkSchedule(body.schedule);
      checkTimezone(body.timezone);
      checkWebhookUrl(c.var.deps.engine, body.webhook);
      const { cron, value } = await authorizedCron(c, c.req.valid("param").cron_id, "update", {
        schedule: body.schedule ?? undefined,
        payload: runPayload(body as Record<string, unknown>, { stateless: false, onRunCompleted: "delete" }),
        metadata: body.metadata ?? undefined,
      });
      const updated = await c.var.deps.storage.crons.update(cron.cron_id, cronChanges(cron, body, value));
      if (!updated) throw new HTTPException(404, { message: `Cron "${cron.cron_id}" not found` });
      return reply(c, toWireCron(updated));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/runs/crons/{cron_id}",
      tags,
      summary: "Delete a cron",
      request: { params: CronIdParam },
      responses: { 204: { description: "Deleted" }, 404: jsonResponse(ErrorDetail, "Unknown cron") },
    }),
    async (c) => {
      const { cron } = await authorizedCron(c, c.req.valid("param").cron_id, "delete");
      if (!(await c.var.deps.storage.crons.delete(cron.cron_id)))
        throw new HTTPException(404, { message: `Cron "${cron.cron_id}" not found` });
      return c.body(null, 204);
    },
  );

/**
 * What a PATCH changes. Run fields merge into the stored payload; a new schedule, end time, or
 * re-enabling recomputes the next tick from now (an end time in the past ends the cron: null).
 */
function cronChanges(cron: CronRow, body: z.infer<typeof CronPatch>, value: Record<string, unknown>): RepoPatch {
  const changes: RepoPatch = {};
  const onRunCompleted = body.on_run_completed ?? cron.on_run_completed;
  changes.payload = runPayload(body as Record<string, unknown>, {
    base: cron.payload,
    stateless: cron.thread_id === null,
    onRunCompleted,
  });
  if (body.on_run_completed) changes.on_run_completed = body.on_run_completed;
  const metadata = (value.metadata as Metadata | undefined) ?? undefined;
  if (metadata) {
    // Merged, as PATCH merges the metadata of assistants and threads; the ticks' runs carry it too.
    changes.metadata = { ...cron.metadata, ...metadata };
    changes.payload.metadata = changes.metadata;
  }
  if (body.enabled !== undefined && body.enabled !== null) changes.enabled = body.enabled;
  const schedule = body.schedule ?? cron.schedule;
  const endTime = body.end_time === undefined ? cron.end_time : body.end_time === null ? null : new Date(body.end_time).toISOString();
  if (body.schedule) changes.schedule = body.schedule;
  if (body.end_time !== undefined) changes.end_time = endTime;
  const reenabled = body.enabled === true && !cron.enabled;
  if (body.schedule || body.end_time !== undefined || reenabled) {
    changes.next_run_date = nextRunDate(schedule, nowIso(), endTime);
  }
  return changes;
}
