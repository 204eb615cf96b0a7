import type { Run, Storage } from "@agent-server/core";

/**
 * Task lineage over existing run records. A task is the first run of an A2A exchange (internal
 * `captureResult`, no `taskId`); each continuation is a later run on the same thread whose internal
 * `taskId` names that first run. The lineage is server-private (RunInternal), never read from requests;
 * the drivers index it (`searchTaskRoots`, `latestContinuation`), so no lookup scans unrelated runs.
 */

/** How many task roots one `searchTaskRoots` call reads while listing. */
const TASK_PAGE = 500;

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
