import type { Run, RunStatus } from "@agent-server/core";
import type { StreamedRunEnd, Subscription } from "./stream-hub.js";
import type { StreamEvent } from "./types.js";

/** How a run ended, as the `end` event says it (`EndStreamEvent` of `@langchain/langgraph-sdk`). */
export type StreamEndStatus = Exclude<RunStatus, "pending" | "running"> | "rollback";

/**
 * The last event of a classic run stream, as the Python Agent Server sends it: `end` with the run's
 * final status (`rollback` for a run that was rolled back, so no longer exists), or `null` data when the
 * status is not known (the run is gone without a word, a stateless run deleted with its thread, say).
 * The SDK stops reconnecting once it has seen it. The official JS server sends none, and its clients and
 * test suites read the event list exactly, so streams carry it only when asked (see the HTTP layer).
 */
export function streamEndEvent(runId: string, status: StreamEndStatus | null): StreamEvent {
  return { event: "end", data: status === null ? null : { run_id: runId, status } };
}

/** The end of a run whose row is at hand (it had ended before the stream was joined). */
export function endOfRun(run: Pick<Run, "run_id" | "status">): StreamEvent {
  return streamEndEvent(run.run_id, isEnded(run.status) ? run.status : null);
}

/**
 * A subscription's events, then `end` once the run's end closed it (not when the consumer did).
 * `readRun` reads the run back when its end was only noticed, without a status.
 */
export async function* withStreamEnd(
  runId: string,
  subscription: Subscription,
  readRun: () => Promise<Run | null>,
): AsyncGenerator<StreamEvent> {
  yield* subscription;
  if (subscription.ended) yield await endOfStream(runId, subscription.ended, readRun);
}

/** The `end` event for a subscription the run's end closed. */
export async function endOfStream(runId: string, ended: StreamedRunEnd, readRun: () => Promise<Run | null>): Promise<StreamEvent> {
  if (ended.end) return streamEndEvent(runId, ended.end.erased ? "rollback" : isEnded(ended.end.status) ? ended.end.status : null);
  const run = await readRun().catch(() => null);
  return run ? endOfRun(run) : streamEndEvent(runId, null);
}

function isEnded(status: RunStatus): status is Exclude<RunStatus, "pending" | "running"> {
  return status !== "pending" && status !== "running";
}
