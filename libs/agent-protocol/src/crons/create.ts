import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { v4 as uuidv4 } from "uuid";
import { matchesAuthFilter, nowIso, type Metadata } from "@agent-server/core";
import { nextRunDate } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { checkWebhookUrl } from "../runs/webhook-url.js";
import { checkSchedule, checkTimezone, runPayload, toWireCron } from "./cron-payload.js";
import { Cron, CronCreate, ThreadIdParam } from "./schemas.js";

const tags = ["Crons"];
type CronCreateBody = z.infer<typeof CronCreate>;

/**
 * Creates a cron (stateless when `threadId` is undefined). Order: input checks (schedule, timezone,
 * end time: 422), the assistant (404), `crons:create`, then for a thread cron the thread itself.
 */
async function createCron(c: Context<AppEnv>, body: CronCreateBody, threadId: string | undefined) {
  const { storage, engine } = c.var.deps;
  checkSchedule(body.schedule);
  checkTimezone(body.timezone);
  checkWebhookUrl(engine, body.webhook);
  const endTime = body.end_time ? new Date(body.end_time).toISOString() : null;
  // Throws InvalidInputError (422) for a schedule croner cannot parse.
  const nextRun = nextRunDate(body.schedule, nowIso(), endTime);

  const assistantId = engine.registry.resolveAssistantId(body.assistant_id);
  if (!(await storage.assistants.get(assistantId))) {
    throw new HTTPException(404, { message: `Assistant "${body.assistant_id}" not found` });
  }
  const onRunCompleted = body.on_run_completed ?? "delete";
  const payload = runPayload(body as Record<string, unknown>, { stateless: threadId === undefined, onRunCompleted });
  const value: Record<string, unknown> = {
    cron_id: uuidv4(),
    thread_id: threadId ?? null,
    assistant_id: assistantId,
    schedule: body.schedule,
    payload,
    metadata: body.metadata ?? {},
    user_id: c.var.auth.user?.identity ?? null,
    end_time: endTime,
  };
  await c.var.auth.authorize("crons", "create", value);
  if (threadId !== undefined) await authorizeThread(c, threadId, value);

  const metadata = (value.metadata as Metadata) ?? {};
  const finalPayload = { ...((value.payload as Record<string, unknown>) ?? payload) };
  // Ticks' runs carry the cron's metadata, including what an auth handler added (an owner).
  if (Object.keys(metadata).length > 0) finalPayload.metadata = metadata;
  const cron = await storage.crons.create({
    cron_id: String(value.cron_id),
    assistant_id: assistantId,
    thread_id: threadId ?? null,
    schedule: body.schedule,
    payload: finalPayload,
    metadata,
    user_id: (value.user_id as string | null) ?? null,
    end_time: endTime,
    next_run_date: nextRun,
    on_run_completed: onRunCompleted,
    enabled: body.enabled ?? true,
  });
  return toWireCron(cron);
}

/**
 * Every tick of a thread cron creates a run on that thread, so scheduling one needs what creating a run
 * there needs: `threads:create_run` on a thread the caller can see (outside the filter: 404).
 */
async function authorizeThread(c: Context<AppEnv>, threadId: string, cron: Record<string, unknown>): Promise<void> {
  const payload = cron.payload as Record<string, unknown>;
  const filter = await c.var.auth.authorize("threads", "create_run", {
    thread_id: threadId,
    assistant_id: cron.assistant_id,
    metadata: payload.metadata ?? {},
    kwargs: payload,
    multitask_strategy: payload.multitask_strategy ?? "reject",
    status: "pending",
  });
  const thread = await c.var.deps.storage.threads.get(threadId);
  if (!thread || !matchesAuthFilter(thread.metadata, filter)) {
    throw new HTTPException(404, { message: `Thread "${threadId}" not found` });
  }
}

const responses = {
  200: jsonResponse(Cron, "The created cron"),
  404: jsonResponse(ErrorDetail, "Unknown assistant or thread"),
  422: jsonResponse(ErrorDetail, "Invalid schedule, timezone or body"),
};

/** POST /runs/crons (stateless) and POST /threads/{thread_id}/runs/crons. */
export const cronCreate = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/crons",
      tags,
      summary: "Create a stateless cron: each tick runs on a new thread",
      request: { body: jsonBody(CronCreate) },
      responses,
    }),
    async (c) => reply(c, await createCron(c, c.req.valid("json"), undefined)),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/runs/crons",
      tags,
      summary: "Create a cron whose ticks run on this thread",
      request: { params: ThreadIdParam, body: jsonBody(CronCreate) },
      responses,
    }),
    async (c) => reply(c, await createCron(c, c.req.valid("json"), c.req.valid("param").thread_id)),
  );
