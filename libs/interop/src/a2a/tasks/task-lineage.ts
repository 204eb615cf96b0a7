import type { Run, RunInternal, Storage } from "@agent-server/core";

/**
 * Task lineage over existing run records. A task is the first run of an A2A exchange (internal
 * `captureResult`, no `taskId`); each continuation is a later run on the same thread whose internal
 * `taskId` names that first run. The lineage is server-private (RunInternal), never read from requests;
 * the drivers index it (`searchTaskRoots`, `latestContinuation`), so no lookup scans unrelated runs.
 */

/**
 * The internal marker a call already read for a run object (`taskRun` reads it to tell a task), so the
 * same call's rendering does not read it again. Keyed by the object: it lives as long as the call holds it.
 */
const loadedInternals = new WeakMap<Run, RunInternal>();

/** `run`'s internal marker is `internal` (this call wrote or read it). */
export function rememberInternal(run: Run, internal: RunInternal): void {
  loadedInternals.set(run, internal);
}

/** The run's internal marker: the one this call loaded with the run, else read. */
export async function internalOf(storage: Storage, run: Run): Promise<RunInternal | null> {
  return loadedInternals.get(run) ?? (await storage.runs.getInternal(run.run_id));
}

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
  loadedInternals.set(run, internal);
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
