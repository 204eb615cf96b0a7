import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import type { Run, Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";
import { whenAborted } from "../call-signal.js";
import { findTask } from "./task-lineage.js";

/**
 * How often (ms) a subscriber waiting for a task's next run reads the task anyway: a run admitted by
 * another process (or an announcement missed) is seen within this; one admitted in this process at once.
 */
export const TASK_RUN_POLL_MS = 1000;

/** Per engine, the wake-ups of the subscribers waiting in this process, by task id. */
const waiting = new WeakMap<Engine, Map<string, Set<() => void>>>();

/**
 * Tells the subscribers of task `taskId` waiting in this process that the task has a new run: a
 * continuation admitted for it, or the already-cancelled run that ends its wait for input.
 */
export function announceTaskRun(engine: Engine, taskId: string): void {
  for (const wake of waiting.get(engine)?.get(taskId) ?? []) wake();
}

/**
 * The next run of task `taskId` (of assistant `assistantId`): its current run once that is another run
 * than `seenRunId`. Undefined when `signal` aborts first (the subscriber left); TaskNotFound when the task
 * is gone meanwhile (its thread was deleted). Each round registers for the announcement before it reads
 * the task, so a run admitted between the read and the wait is not missed. Cost: one task read
 * (`findTask`) per announcement or `pollMs`, for as long as the task waits.
 */
export async function nextTaskRun(
  deps: { engine: Engine; storage: Storage },
  assistantId: string,
  taskId: string,
  seenRunId: string,
  signal: AbortSignal | undefined,
  pollMs = TASK_RUN_POLL_MS,
): Promise<Run | undefined> {
  while (!signal?.aborted) {
    const announced = listen(deps.engine, taskId);
    const aborted = whenAborted(signal);
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = await findTask(deps.storage, taskId, assistantId);
      if (!found) throw new TaskNotFoundError(`task "${taskId}" no longer exists`);
      if (found.current.run_id !== seenRunId) return found.current;
      const polled = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, pollMs);
        timer.unref();
      });
      await Promise.race([announced.promise, aborted.promise, polled]);
    } finally {
      clearTimeout(timer);
      announced.dispose();
      aborted.dispose();
    }
  }
  return undefined;
}

function listen(engine: Engine, taskId: string): { promise: Promise<void>; dispose(): void } {
  let byTask = waiting.get(engine);
  if (!byTask) waiting.set(engine, (byTask = new Map()));
  let wakes = byTask.get(taskId);
  if (!wakes) byTask.set(taskId, (wakes = new Set()));
  const registered = wakes;
  let wake = () => {};
  const promise = new Promise<void>((resolve) => (wake = resolve));
  registered.add(wake);
  return {
    promise,
    dispose: () => {
      registered.delete(wake);
      if (registered.size === 0 && byTask.get(taskId) === registered) byTask.delete(taskId);
    },
  };
}
