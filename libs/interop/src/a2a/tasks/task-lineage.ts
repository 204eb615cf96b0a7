import type { Run, RunInternal, Storage, TaskRuns } from "@agent-server/core";

/**
 * Task lineage over existing run records. A task is the first run of an A2A exchange (internal
 * `captureResult`, no `taskId`); each continuation is a later run on the same thread whose internal
 * `taskId` names that first run. The lineage is server-private (RunInternal), never read from requests;
 * the drivers index it (`searchTaskRoots`, `latestContinuation`), so no lookup scans unrelated runs.
 */

/** How many task roots one `searchTaskRoots` call reads while listing. */
const TASK_PAGE = 500;

/** A task as one read finds it: its first run, that run's internal marker, and its CURRENT run. */
export interface FoundTask {
  first: Run;
  internal: RunInternal;
  /** The newest continuation, or the first run itself. */
  current: Run;
}

/**
 * The run as a task of `assistantId` (the first run of an A2A task) with its marker and current run, or
 * null when it is none. One read with `RunRepo.getTask`, else three (run, marker, latest continuation).
 */
export async function findTask(storage: Storage, taskId: string, assistantId: string): Promise<FoundTask | null> {
  if (!taskId) return null;
  const read = await readRunLineage(storage, taskId);
  // A run of another assistant, a plain (non-A2A) run, or a continuation is not a task of this agent.
  if (!read || read.run.assistant_id !== assistantId) return null;
  if (!read.internal.captureResult || read.internal.taskId) return null;
  return { first: read.run, internal: read.internal, current: read.latest ?? read.run };
}

/**
 * Any run with its internal marker and (were it a task) its latest continuation, null for an unknown
 * run; whether it is a task, and whose, is the caller's to decide. One read with `RunRepo.getTask`.
 */
export async function readRunLineage(storage: Storage, runId: string): Promise<TaskRuns | null> {
  if (storage.runs.getTask) return storage.runs.getTask(runId);
  const run = await storage.runs.get(runId);
  if (!run) return null;
  return { run, internal: (await storage.runs.getInternal(runId)) ?? {}, latest: await storage.runs.latestContinuation(runId) };
}

/** The task's CURRENT run: its newest continuation, or the first run itself. One indexed read. */
export async function currentRun(storage: Storage, first: Run): Promise<Run> {
  return (await storage.runs.latestContinuation(first.run_id)) ?? first;
}

/**
 * Tasks of an assistant (first runs with internal `captureResult`), newest first, optionally in one
 * context, read in pages from the index. Cost: O(tasks of the assistant, or of the context) — ordinary
 * runs in the store cost nothing.
 */
export async function* taskRuns(storage: Storage, assistantId: string, contextId: string | undefined): AsyncGenerator<Run> {
  for (let offset = 0; ; offset += TASK_PAGE) {
    const page = await storage.runs.searchTaskRoots({
      assistant_id: assistantId,
      ...(contextId ? { thread_id: contextId } : {}),
      limit: TASK_PAGE,
      offset,
    });
    yield* page;
    if (page.length < TASK_PAGE) return;
  }
}
