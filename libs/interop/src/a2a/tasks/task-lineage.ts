import type { Run, Storage } from "@agent-server/core";

/**
 * Task lineage over existing run records. A task is the first run of an A2A exchange (internal
 * `captureResult`, no `taskId`); each continuation is a later run on the same thread whose internal
 * `taskId` names that first run. The lineage is server-private (RunInternal), never read from requests.
 */

/** How many runs of one thread (or, for ListTasks, of the store) a lookup reads at most. */
export const LINEAGE_SCAN_LIMIT = 10_000;

/** The run as a task of `assistantId`: the first run of an A2A task, or null when it is none. */
export async function taskRun(storage: Storage, taskId: string, assistantId: string): Promise<Run | null> {
  if (!taskId) return null;
  const run = await storage.runs.get(taskId);
  // A run of another assistant, a plain (non-A2A) run, or a continuation is not a task of this agent.
  if (!run || run.assistant_id !== assistantId) return null;
  const internal = await storage.runs.getInternal(run.run_id);
  if (!internal?.captureResult || internal.taskId) return null;
  return run;
}

/**
 * The task's CURRENT run: the newest run with internal `taskId` == the task id, or the first run itself.
 *
 * Cost: RunRepo cannot search by internal lineage, so this reads the runs of the task's thread (newest
 * first) and calls `getInternal` for each run newer than the first one until a continuation of this task
 * turns up — O(runs of the thread) reads in the worst case. Only runs created after the first run can
 * continue it, so the scan stops at the first run.
 */
export async function currentRun(storage: Storage, first: Run): Promise<Run> {
  const runs = await storage.runs.search({ thread_id: first.thread_id, limit: LINEAGE_SCAN_LIMIT });
  for (const run of runs) {
    if (run.run_id === first.run_id) break;
    const internal = await storage.runs.getInternal(run.run_id);
    if (internal?.taskId === first.run_id) return run;
  }
  return first;
}

/**
 * Tasks of an assistant (first runs with internal `captureResult`), newest first, optionally in one
 * context. Cost: O(runs searched) `getInternal` reads — all runs of the context, or of the store when no
 * context is given (bounded by LINEAGE_SCAN_LIMIT).
 */
export async function listTaskRuns(storage: Storage, assistantId: string, contextId: string | undefined): Promise<Run[]> {
  const runs = await storage.runs.search({ ...(contextId ? { thread_id: contextId } : {}), limit: LINEAGE_SCAN_LIMIT });
  const tasks: Run[] = [];
  for (const run of runs) {
    if (run.assistant_id !== assistantId) continue;
    const internal = await storage.runs.getInternal(run.run_id);
    if (internal?.captureResult && !internal.taskId) tasks.push(run);
  }
  return tasks;
}
