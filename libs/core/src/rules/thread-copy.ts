import type { RunInternal } from "../model.js";
import type { RunResult } from "../result.js";

/** A run of the source thread as a copy reads it: its id, its internals and its result (null when none). */
export interface CopySourceRun {
  run_id: string;
  internal: RunInternal;
  result: RunResult | null;
}

/**
 * One run of the copy. The driver inserts the source run's row (assistant, status, metadata, kwargs,
 * strategy, attempt, timestamps, error) with these values in place of the source's.
 */
export interface CopiedRun {
  source_run_id: string;
  run_id: string;
  thread_id: string;
  internal: RunInternal;
  result: RunResult | null;
  /**
   * Always null: no worker holds a lease on a copy, so a copied running run is never renewed by the
   * source's worker nor reported as a lapsed lease to recover.
   */
  lease: { owner: string; until: string } | null;
}

/**
 * The runs a thread copy inserts, given the source thread's runs in insertion order (the copy keeps it):
 * - every run under a new id (`newRunId`, a random UUID by default);
 * - `internal.taskId` naming a copied run is remapped to its copy, so copied roots are roots of the copy
 *   and copied continuations point at the copied root; a taskId naming a run outside the thread stays;
 * - a result's `checkpoint.thread_id` that points at the source thread now points at the copy; other
 *   coordinates stay as they are;
 * - no lease.
 * Push configs, events and deliveries are not copied: they belong to the original task and run.
 * Checkpoints keep their ids; their metadata is `copiedCheckpointMetadata`.
 * Inputs are not modified; outputs share nothing with them.
 */
export function planThreadCopy(
  sourceThreadId: string,
  newThreadId: string,
  runs: readonly CopySourceRun[],
  newRunId: () => string = () => crypto.randomUUID(),
): CopiedRun[] {
  const ids = new Map(runs.map((run) => [run.run_id, newRunId()]));
  return runs.map((run) => {
    const internal = structuredClone(run.internal);
    if (typeof internal.taskId === "string" && ids.has(internal.taskId)) internal.taskId = ids.get(internal.taskId);
    const result = run.result === null ? null : structuredClone(run.result);
    if (result?.checkpoint?.thread_id === sourceThreadId) result.checkpoint.thread_id = newThreadId;
    return { source_run_id: run.run_id, run_id: ids.get(run.run_id)!, thread_id: newThreadId, internal, result, lease: null };
  });
}

/**
 * A checkpoint's metadata in the copy: a `thread_id` naming the source thread names the copy; `run_id`
 * keeps naming the run that wrote the checkpoint in the source thread (as on the official server), so
 * a copy's state and history differ from the source's only in `thread_id`. Returns `metadata` itself
 * when nothing changes.
 */
export function copiedCheckpointMetadata<T extends Record<string, unknown>>(metadata: T, sourceThreadId: string, newThreadId: string): T {
  return metadata.thread_id === sourceThreadId ? { ...metadata, thread_id: newThreadId } : metadata;
}
