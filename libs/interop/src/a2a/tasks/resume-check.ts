import { TaskState } from "@a2a-js/sdk";
import { RequestMalformedError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { Run, Storage } from "@agent-server/core";
import type { ThreadStateService } from "@agent-server/engine";
import { projectTask, TERMINAL_TASK_STATES } from "../task-projection.js";
import { currentRun } from "./task-lineage.js";

/**
 * The precondition of anything that acts on a task waiting for input (a resume, or a cancel of the
 * wait): the task is INPUT_REQUIRED (else -32004), i.e. its current run ended `success` with recorded
 * interrupts, and the checkpoint recorded in that run's RunResult is exactly the thread's current
 * checkpoint, read from the checkpointer (else -32602, stale: a later turn, a state update or a prune
 * moved the thread on). Recorded result values are never used to rebuild a checkpoint. Callers check
 * again under `withThreadExecution`, where it counts. Returns the interrupted current run.
 */
export async function requireWaitingForInput(storage: Storage, threadState: ThreadStateService, first: Run): Promise<Run> {
  const taskId = first.run_id;
  const current = await currentRun(storage, first);
  const result = (await storage.runs.getResult?.(current.run_id)) ?? null;
  const state = projectTask({ run: current, result, taskId }).status!.state;
  if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
    throw new UnsupportedOperationError(
      TERMINAL_TASK_STATES.includes(state)
        ? `task "${taskId}" is ${TaskState[state]} and takes no further messages`
        : `task "${taskId}" is ${TaskState[state]}: it does not await input`,
    );
  }
  const recorded = result?.checkpoint;
  const now = await threadState.currentCheckpoint(first.thread_id);
  if (
    current.status !== "success" ||
    !result?.interrupts?.length ||
    !recorded ||
    !now ||
    recorded.thread_id !== now.thread_id ||
    (recorded.checkpoint_ns ?? "") !== now.checkpoint_ns ||
    recorded.checkpoint_id !== now.checkpoint_id
  ) {
    throw new RequestMalformedError(
      `stale checkpoint: task "${taskId}" waits at a checkpoint that is no longer the thread's current one (a later turn, update or prune moved the thread on)`,
    );
  }
  return current;
}
