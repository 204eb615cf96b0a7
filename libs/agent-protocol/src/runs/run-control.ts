import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchesAuthFilter, NotFoundError, readThreadHeader, type Run } from "@agent-server/core";
import { CancelReasons } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { createRouter } from "../http/router.js";
import { ErrorDetail, jsonBody, jsonResponse, reply } from "../http/route-helpers.js";
import { authorizedRun, authorizedThread, runNotFound } from "./access.js";
import { cancelGone } from "./respond.js";
import { CancelAction, eventStreamResponse, JoinStreamQuery, QueryFlag, RunIdParam, RunsCancel, ThreadRunParams } from "./schemas.js";
import { keepAll, keepModes, sseResponse, streamOutput, type StreamOutputRequest } from "./sse.js";
import { endValues } from "./wait.js";

const tags = ["Thread Runs"];
const notFound = jsonResponse(ErrorDetail, "Unknown thread or run");

/** Joining a run (its final values or its event stream) and cancelling runs. */
export const runControl = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/runs/{run_id}/join",
      tags,
      summary: "Wait for a run to end; its final values",
      request: { params: ThreadRunParams, query: z.object({ cancel_on_disconnect: QueryFlag }) },
      responses: { 200: jsonResponse(z.unknown(), "Final values, or {__error__} when the run failed"), 404: notFound },
    }),
    async (c) => {
      const { thread_id, run_id } = c.req.valid("param");
      const { run } = await authorizedRun(c, thread_id, run_id, "read");
      const { engine, storage } = c.var.deps;
      if (c.req.valid("query").cancel_on_disconnect) {
        c.req.raw.signal.addEventListener("abort", () => void cancelGone(engine, run).catch(() => undefined), { once: true });
      }
      const thread = () => storage.threads.get(thread_id);
      // Rolled back while we waited: the run is gone, and the thread's state is what is left.
      const ended = await engine.waitRun(run_id, thread_id).catch(ignoreGone);
      return reply(c, await endValues(ended ?? { status: "interrupted", values: null }, thread));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/threads/{thread_id}/runs/{run_id}/stream",
      tags,
      summary: "Join a run's event stream (Last-Event-ID replays a resumable run)",
      request: { params: ThreadRunParams, query: JoinStreamQuery },
      responses: { 200: eventStreamResponse, 404: notFound },
    }),
    async (c) => {
      const { thread_id, run_id } = c.req.valid("param");
      const found = await inStream(authorizedRun(c, thread_id, run_id, "read"));
      if ("refused" in found) return errorStream(c, found.refused);
      return joinStream(c, found.run, c.req.valid("query"), `/threads/${thread_id}/runs/${run_id}/stream`);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/runs/{run_id}/stream",
      tags: ["Stateless Runs"],
      summary: "Join a run's event stream by run id alone",
      request: { params: RunIdParam, query: JoinStreamQuery },
      responses: { 200: eventStreamResponse, 404: notFound },
    }),
    async (c) => {
      const { run_id } = c.req.valid("param");
      const found = await inStream(visibleRun(c, run_id));
      if ("refused" in found) return errorStream(c, found.refused);
      return joinStream(c, found.run, c.req.valid("query"));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/threads/{thread_id}/runs/{run_id}/cancel",
      tags,
      summary: "Cancel a run (interrupt, or rollback: erase it and its checkpoints)",
      request: {
        params: ThreadRunParams,
        query: z.object({
          wait: QueryFlag,
          action: CancelAction.optional(),
          reason: z
            .enum(["taken"])
            .optional()
            .openapi({ description: "`taken`: the run's input was absorbed by the running run (steering); cancel_reason `taken:client`." }),
        }),
      },
      responses: {
        202: { description: "Cancellation requested" },
        204: { description: "Cancelled, and the run has ended (wait=1)" },
        404: notFound,
        422: jsonResponse(ErrorDetail, "Invalid request (reason with action rollback)"),
      },
    }),
    async (c) => {
      const { thread_id, run_id } = c.req.valid("param");
      const { wait, action = "interrupt", reason } = c.req.valid("query");
      // A rolled-back run is erased: there is no row left to say why (the SDK documents this too).
      if (reason && action !== "interrupt")
        throw new HTTPException(422, { message: `reason "${reason}" is only valid with action interrupt` });
      await authorizedThread(c, thread_id, "update", { run_id, run_ids: [run_id], action });
      const { engine } = c.var.deps;
      // Waiting starts before the cancel, so the end of a run that settles (or is erased) at once is seen.
      const ended = wait ? engine.waitRun(run_id, thread_id).catch(ignoreGone) : undefined;
      await engine.cancel([run_id], {
        action,
        threadId: thread_id,
        reason: reason === "taken" ? CancelReasons.taken : CancelReasons.request,
      });
      await ended;
      return c.body(null, wait ? 204 : 202);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/runs/cancel",
      tags: ["Runs"],
      summary: "Cancel several runs: by id within a thread, or every pending/running run",
      request: { body: jsonBody(RunsCancel), query: z.object({ action: CancelAction.optional() }) },
      responses: { 204: { description: "Cancelled" }, 404: notFound, 422: jsonResponse(ErrorDetail, "Invalid request") },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const action = c.req.valid("query").action ?? "interrupt";
      const { engine, storage } = c.var.deps;
      if (body.run_ids && body.thread_id) {
        const threadId = body.thread_id;
        await authorizedThread(c, threadId, "update", { run_ids: body.run_ids, action });
        // All or nothing: every id must be a run of this thread before any is cancelled.
        for (const runId of body.run_ids) if (!(await storage.runs.get(runId, threadId))) runNotFound(runId);
        await engine.cancel(body.run_ids, { action, threadId });
        return c.body(null, 204);
      }
      const filter = await c.var.auth.authorize("threads", "update", { status: body.status, action });
      const statuses = body.status === "all" ? (["pending", "running"] as const) : ([body.status!] as const);
      for (const run of await runsByStatus(c, [...statuses])) {
        if (filter && !matchesAuthFilter((await readThreadHeader(storage.threads, run.thread_id))?.metadata, filter)) continue;
        // A run that ended and was deleted meanwhile (a stateless run) has nothing left to cancel.
        await engine.cancel([run.run_id], { action }).catch(ignoreGone);
      }
      return c.body(null, 204);
    },
  );

/** The run, if the caller may read its thread (joins by run id alone). */
async function visibleRun(c: Context<AppEnv>, runId: string): Promise<{ run: Run }> {
  const filter = await c.var.auth.authorize("threads", "read", { run_id: runId });
  const { storage } = c.var.deps;
  const run = await storage.runs.get(runId);
  if (!run) runNotFound(runId);
  if (filter && !matchesAuthFilter((await readThreadHeader(storage.threads, run.thread_id))?.metadata, filter)) runNotFound(runId);
  return { run };
}

/**
 * A join stream whose run cannot be reached (unknown, another user's, or refused by an auth handler)
 * answers as the official server does: a 200 event stream holding one `error` event that carries the
 * status, so a reconnecting `useStream`/`joinStream` client sees a stream error rather than a fetch failure.
 */
async function inStream<T>(lookup: Promise<T>): Promise<T | { refused: HTTPException }> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof HTTPException && error.status >= 400 && error.status < 500) return { refused: error };
    throw error;
  }
}

function errorStream(c: Context<AppEnv>, refused: HTTPException): Response {
  const name = refused.status === 404 ? "NotFoundError" : refused.status === 403 ? "ForbiddenError" : "HTTPException";
  const event = { event: "error", data: { error: name, message: `${refused.status}: ${refused.message}` } };
  return sseResponse(
    c,
    (async function* () {
      yield event;
    })(),
  );
}

/**
 * Streams a run's events from now on, or, with `Last-Event-ID` on a resumable run, its stored events
 * after that id first, then live ones. A run that already ended yields only what was stored. With
 * `checkpoint_id` and `Last-Event-ID: -1` (or none), the stored events after that checkpoint of the run.
 */
function joinStream(
  c: Context<AppEnv>,
  run: Run,
  query: StreamOutputRequest & { cancel_on_disconnect: boolean; stream_mode?: string | string[]; checkpoint_id?: string },
  location?: string,
): Response {
  const lastEventId = c.req.header("Last-Event-ID") || undefined;
  const { engine } = c.var.deps;
  const abort = new AbortController();
  const output = streamOutput(c, query);
  const checkpointId = query.checkpoint_id || undefined;
  const events = engine.joinStream(run.run_id, {
    threadId: run.thread_id,
    lastEventId,
    checkpointId,
    end: output.end,
    signal: abort.signal,
  });
  const resumable = (run.kwargs as { resumable?: boolean }).resumable === true;
  return sseResponse(c, events, {
    abort,
    // The SDK reconnects to `Location` with Last-Event-ID when the connection drops: useful only if replayable.
    headers: resumable && location ? { Location: location } : {},
    keep: keepAll(keepModes(query.stream_mode === undefined ? undefined : [query.stream_mode].flat()), output.keep),
    onDisconnect: query.cancel_on_disconnect ? () => cancelGone(engine, run) : undefined,
  });
}

async function runsByStatus(c: Context<AppEnv>, statuses: ("pending" | "running")[]): Promise<Run[]> {
  const page = 500;
  const found: Run[] = [];
  for (let offset = 0; ; offset += page) {
    const batch = await c.var.deps.storage.runs.search({ status: statuses, limit: page, offset });
    found.push(...batch);
    if (batch.length < page) return found;
  }
}

function ignoreGone(error: unknown): undefined {
  if (error instanceof NotFoundError) return undefined;
  throw error;
}
