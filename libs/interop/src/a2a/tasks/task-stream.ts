import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import type { Run, Storage } from "@agent-server/core";
import { TERMINAL_TASK_STATES } from "../task-projection.js";
import { currentRun } from "./task-lineage.js";
import type { TaskRenderer } from "./task-renderer.js";

/**
 * Stream events of one run of a task (SendStreamingMessage, SubscribeToTask): the task, WORKING, then —
 * once `end` settles — its artifacts and the final status, read back from the records like GetTask.
 * A task already terminal or waiting for input gets the task and its status, and the stream ends.
 */
export async function* followTask(
  storage: Storage,
  renderer: TaskRenderer,
  taskId: string,
  run: Run,
  end: Promise<unknown>,
): AsyncGenerator<StreamResponse, void, undefined> {
  const first = (await storage.runs.get(taskId)) ?? run;
  const initial = await renderer.render(first, (await storage.runs.get(run.run_id)) ?? run);
  yield { payload: { $case: "task", value: initial } };
  if (TERMINAL_TASK_STATES.includes(initial.status!.state) || initial.status!.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    yield statusUpdate(initial);
    return;
  }
  yield statusUpdate({
    ...initial,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
  });
  await end.catch(() => undefined);
  // Read again: the first run object above predates the run's end.
  const settled = (await storage.runs.get(taskId)) ?? first;
  const final = await renderer.render(settled, await currentRun(storage, settled));
  for (const artifact of final.artifacts) {
    yield {
      payload: {
        $case: "artifactUpdate",
        value: { taskId, contextId: final.contextId, artifact, append: false, lastChunk: true, metadata: undefined },
      },
    };
  }
  yield statusUpdate(final);
}

function statusUpdate(task: Task): StreamResponse {
  return {
    payload: { $case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status: task.status, metadata: undefined } },
  };
}
