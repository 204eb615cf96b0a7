import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import { toWireObject, type DefaultValues, type Interrupt, type Run } from "@agent-server/core";
import { defaultReply } from "@agent-server/engine";

/** What a task is rendered from: the run row and the thread state as it is NOW (step 1 has nothing else). */
export interface TaskSource {
  run: Run;
  values: DefaultValues;
  interrupts: Interrupt[];
}

/**
 * Task state from the run's status. A run that ended "success" while the graph waits at `interrupt()`
 * is a task that needs input; a cancelled run ("interrupted" is how the engine records a cancel) is
 * CANCELED, not input-required.
 */
export function taskState(run: Run, interrupts: Interrupt[]): TaskState {
  switch (run.status) {
    case "pending":
      return TaskState.TASK_STATE_SUBMITTED;
    case "running":
      return TaskState.TASK_STATE_WORKING;
    case "success":
      return interrupts.length > 0 ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_COMPLETED;
    case "interrupted":
      return TaskState.TASK_STATE_CANCELED;
    case "error":
    case "timeout":
      return TaskState.TASK_STATE_FAILED;
  }
}

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/**
 * PROJECTION ONLY (the amendment's gate): the artifact is derived from the thread's current state, not
 * from anything recorded for this run. After a later turn or a prune it therefore shows whatever the
 * thread holds now — which is the behaviour the reproducer test documents.
 */
export function projectTask(source: TaskSource): Task {
  const { run, values, interrupts } = source;
  const state = taskState(run, interrupts);
  const artifacts: Artifact[] = [];
  // Only a finished (or input-waiting) task has output; a pending/running one would show the previous turn's.
  if (state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    const reply = defaultReply(values);
    const parts: Part[] = [];
    if (reply !== undefined) parts.push(textPart(typeof reply === "string" ? reply : JSON.stringify(reply)));
    // Wire JSON: LangChain message instances become the plain dicts the HTTP API emits.
    parts.push(dataPart(toWireObject(values)));
    artifacts.push({ artifactId: `${run.run_id}:result`, name: "result", description: "", parts, metadata: undefined, extensions: [] });
  }
  return {
    id: run.run_id,
    contextId: run.thread_id,
    status: { state, message: statusMessage(run, state, interrupts), timestamp: run.updated_at },
    artifacts,
    history: [],
    metadata: { assistant_id: run.assistant_id },
  };
}

/** Input-required tasks carry the pending interrupts so a client can see what is asked. */
function statusMessage(run: Run, state: TaskState, interrupts: Interrupt[]): Message | undefined {
  if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) return undefined;
  return {
    messageId: `${run.run_id}:interrupts`,
    contextId: run.thread_id,
    taskId: run.run_id,
    role: Role.ROLE_AGENT,
    parts: [dataPart(toWireObject({ interrupts }))],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
