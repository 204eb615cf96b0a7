import type { Context } from "hono";
import { NotFoundError, type Run } from "@agent-server/core";
import { CancelReasons, type Engine } from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { reply, type JsonReply } from "../http/route-helpers.js";
import { admitting, prepareRun, runLocation } from "./create.js";
import type { RunCreateBody } from "./schemas.js";
import { sseResponse, streamOutput, type StreamOutputRequest } from "./sse.js";
import { endValues, waitResponse } from "./wait.js";

/**
 * The three ways a run is created over HTTP, shared by thread runs (`threadId` given) and stateless runs
 * (`threadId` undefined, a temporary thread). Admission errors (404, 422) are answered before any
 * long-lived response starts.
 */

/** Background run: the created run as JSON. */
export async function createInBackground(c: Context<AppEnv>, threadId: string | undefined, body: RunCreateBody): Promise<JsonReply> {
  const { request, options } = await prepareRun(c, threadId, body);
  const run = await admitting(() => c.var.deps.engine.createRun(request, options));
  c.header("Content-Location", runLocation(run, threadId === undefined));
  return reply(c, run);
}

/**
 * Run and stream its events. The subscription exists before the run can start, so the stream begins
 * with `metadata`. A resumable thread run also gets `Location` (its join path): the SDK then reconnects
 * there with `Last-Event-ID` if the connection drops. Events carry ids except on a stateless run's own
 * non-resumable stream, as on the official server. `query`: the namespaces to send, and the `end` event.
 */
export async function createAndStream(
  c: Context<AppEnv>,
  threadId: string | undefined,
  body: RunCreateBody,
  query: StreamOutputRequest = {},
): Promise<Response> {
  const { request, options } = await prepareRun(c, threadId, body);
  const { engine } = c.var.deps;
  const abort = new AbortController();
  const output = streamOutput(c, query);
  const { run, events } = await admitting(() => engine.streamRun(request, options, { signal: abort.signal, end: output.end }));
  const headers: Record<string, string> = { "Content-Location": runLocation(run, threadId === undefined) };
  if (threadId !== undefined && request.stream_resumable) headers.Location = `/threads/${threadId}/runs/${run.run_id}/stream`;
  return sseResponse(c, events, {
    headers,
    abort,
    ids: threadId !== undefined || request.stream_resumable === true,
    keep: output.keep,
    onDisconnect: request.on_disconnect === "cancel" ? () => cancelGone(engine, run) : undefined,
  });
}

/** Run and answer its final values (keep-alive newlines until then). */
export async function createAndWait(c: Context<AppEnv>, threadId: string | undefined, body: RunCreateBody): Promise<JsonReply> {
  const { request, options } = await prepareRun(c, threadId, body);
  const { engine, storage } = c.var.deps;
  const { run, end } = await admitting(() => engine.createRunWatched(request, options));
  const result = end.then((ended) => endValues(ended, () => storage.threads.get(run.thread_id)));
  return waitResponse(c, result, {
    headers: { "Content-Location": runLocation(run, threadId === undefined) },
    onDisconnect: request.on_disconnect === "cancel" ? () => cancelGone(engine, run) : undefined,
  });
}

/**
 * `on_disconnect: cancel` (and `cancel_on_disconnect=1` on joins): the client went away, so the run is
 * interrupted. A run that ended (or was erased) in the meantime has nothing left to cancel.
 */
export async function cancelGone(engine: Engine, run: Pick<Run, "run_id" | "thread_id">): Promise<void> {
  try {
    await engine.cancel([run.run_id], { action: "interrupt", threadId: run.thread_id, reason: CancelReasons.disconnect });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}
