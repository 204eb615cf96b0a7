import {
  activeContext,
  contextFromTraceparent,
  hasActiveSpan,
  markFailed,
  recordError,
  SpanKind,
  startSpan,
  traced,
  traceparentOf,
  tracingEnabled,
  withSpan,
  type ClaimedRun,
  type Run,
  type RunInternal,
} from "@agent-server/core";
import type { AdmissionOptions, EngineRunKwargs, RunCreateRequest } from "../runs/run-request.js";

// The spans of a run's life: admission (where the caller's trace is recorded with the run), the wait in
// the queue, and the execution. The trace context admission saw is stored in the run's server-private
// `internal` (its `traceparent`), so whichever process claims the run — another one, the next attempt
// after a crash, the one a shutdown handed it back to — continues the same trace.

/** `Engine.createRun` as a span (`run.create`); with tracing off, `admit` as it is. */
export function traceAdmission<T extends { run: Run }>(
  request: RunCreateRequest,
  options: AdmissionOptions,
  admit: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return admit();
  return traced(
    "run.create",
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        "agent_server.assistant.id": request.assistant_id,
        ...(options.threadId ? { "agent_server.thread.id": options.threadId } : {}),
        "agent_server.run.multitask_strategy": request.multitask_strategy ?? "reject",
      },
    },
    async (span) => {
      const admitted = await admit();
      const { run } = admitted;
      span?.setAttributes({
        "agent_server.run.id": run.run_id,
        "agent_server.thread.id": run.thread_id,
        "agent_server.run.status": run.status,
      });
      return admitted;
    },
  );
}

/**
 * The internal marker a run is admitted with: tracing on and inside a trace, it carries the active
 * context's `traceparent` (written by the same insert: no statement more). Otherwise as given.
 */
export function withTraceparent(internal: RunInternal | undefined): RunInternal | undefined {
  if (!tracingEnabled() || !hasActiveSpan()) return internal;
  const traceparent = traceparentOf();
  return traceparent ? { ...internal, traceparent } : internal;
}

/**
 * Executes a claimed run under its spans: `run.queued` (from when it became due — admission, or its
 * `after_seconds` — or, for a later attempt, from when it went back to the queue, to now) and `run`
 * around `execute`, which resolves with the run's final status. Both descend from the trace stored at
 * admission (a fresh trace for a run admitted without one).
 */
export function traceExecution(claimed: ClaimedRun, execute: () => Promise<string | undefined>): Promise<string | undefined> {
  if (!tracingEnabled()) return execute();
  const { run, attempt } = claimed;
  const parent = contextFromTraceparent((claimed.internal as RunInternal | undefined)?.traceparent);
  const ids = { "agent_server.run.id": run.run_id, "agent_server.thread.id": run.thread_id, "agent_server.run.attempt": attempt };
  const queuedSince = Date.parse(attempt > 1 ? run.updated_at : run.created_at);
  const now = Date.now();
  startSpan("run.queued", { kind: SpanKind.INTERNAL, startTime: Math.min(queuedSince, now), attributes: ids }, parent).end(now);
  const graphId = (run.kwargs as EngineRunKwargs).config?.configurable?.graph_id;
  const span = startSpan(
    typeof graphId === "string" ? `run ${graphId}` : "run",
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...ids,
        "agent_server.assistant.id": run.assistant_id,
        ...(typeof graphId === "string" ? { "agent_server.graph.id": graphId } : {}),
      },
    },
    parent,
  );
  return withSpan(span, execute, parent).then(
    (status) => {
      span.setAttribute("agent_server.run.status", status ?? "unknown");
      if (status === "error" || status === "timeout") markFailed(span, `run ended ${status}`);
      span.end();
      return status;
    },
    (error: unknown) => {
      recordError(span, error);
      span.end();
      throw error;
    },
  );
}

/** The active context, for callers that start spans later under it (the graph's callback handler). */
export { activeContext };
