import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import { toWireJson, toWireObject, type Interrupt, type JsonValue, type Run, type RunError, type RunResult } from "@agent-server/core";

/**
 * What a task is rendered from: its run row (the effective status) and the result recorded for that run
 * at settlement (`RunRepo.getResult`) — never the thread's latest state, which later turns and pruning
 * change (docs/decisions/0001-durable-a2a-results.md).
 */
export interface TaskSource {
  /** The task's current run (the first run, or its newest continuation). */
  run: Run;
  result: RunResult | null;
  /** The task id: the first run's id (defaults to `run.run_id`). */
  taskId?: string;
  /** For a failed run: its own error as settlement stored it with the run (`RunRepo.getError`), when known. */
  failure?: RunError | undefined;
}

/** The longest error message shown in a failed task's status message (a graph may throw a long one). */
const MAX_FAILURE_MESSAGE = 500;

/**
 * Task state from the run's status. A run that ended "success" while the graph waits at `interrupt()`
 * is a task that needs input; a cancelled run ("interrupted" is how the engine records a cancel) is
 * CANCELED, not input-required.
 */
/** States after which a task takes no further message (and cannot be cancelled). */
export const TERMINAL_TASK_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
];

export function taskState(run: Run, interrupts: Interrupt[]): TaskState {
  switch (run.status) {
    case "pending":
      // Handed back to the queue by a shutdown or a lost worker (`RunRepo.requeue` counts the attempt):
      // the task was already worked on and resumes where it stopped.
      return Number(run.metadata?.run_attempt) > 1 ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED;
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
 * A recorded reply as text. A reply that is not a string is shown as its wire JSON: SendMessage renders
 * the result settlement just recorded (in memory), GetTask the stored copy, and both must give one text.
 */
export function replyText(reply: JsonValue): string {
  return typeof reply === "string" ? reply : JSON.stringify(toWireJson(reply));
}

/** The id of a run's result artifact (one per run: a continuation's result is a new artifact). */
export function resultArtifactId(run: Run): string {
  return `${run.run_id}:result`;
}

/**
 * A task as the A2A client sees it. State follows the run's effective terminal status, so a run whose
 * cancel won the race renders CANCELED without artifacts even if settlement had recorded a result; the
 * artifact is the run's own recorded reply and values.
 */
export function projectTask(source: TaskSource): Task {
  const { run, result } = source;
  const taskId = source.taskId ?? run.run_id;
  const interrupts = result?.interrupts ?? [];
  const state = taskState(run, interrupts);
  const artifacts: Artifact[] = [];
  if (result && (state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_INPUT_REQUIRED)) {
    const parts: Part[] = [];
    if (result.reply !== undefined) parts.push(textPart(replyText(result.reply)));
    parts.push(dataPart(toWireObject(result.values)));
    artifacts.push({ artifactId: resultArtifactId(run), name: "result", description: "", parts, metadata: undefined, extensions: [] });
  }
  return {
    id: taskId,
    contextId: run.thread_id,
    status: { state, message: statusMessage(run, taskId, state, interrupts, source.failure), timestamp: run.updated_at },
    artifacts,
    // Filled by TaskRenderer from the task's runs when history is asked for.
    history: [],
    metadata: { assistant_id: run.assistant_id },
  };
}

/**
 * Input-required tasks carry the pending interrupts so a client can see what is asked; failed tasks say
 * what failed.
 */
function statusMessage(run: Run, taskId: string, state: TaskState, interrupts: Interrupt[], failure?: RunError): Message | undefined {
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return interruptsMessage(run, taskId, interrupts);
  if (state === TaskState.TASK_STATE_FAILED) return agentText(run, taskId, "failure", failureText(run, failure));
  return undefined;
}

/**
 * Why a task failed, for its client. A run error is what the graph threw (the project's own error type
 * and message, which the same caller can read as the thread's `error` through the HTTP API) or the
 * engine's own (`WorkerLost`, a result that could not be stored): its type and message are shown, the
 * message cut at 500 characters; never a stack. A run that failed before runs kept their errors says
 * only that it failed.
 */
export function failureText(run: Run, failure: RunError | undefined): string {
  if (run.status === "timeout") return failure ? `The run timed out: ${failure.message}` : "The run timed out before it finished.";
  if (!failure) return "The run failed.";
  const message = failure.message.length > MAX_FAILURE_MESSAGE ? `${failure.message.slice(0, MAX_FAILURE_MESSAGE)}…` : failure.message;
  return message ? `The run failed: ${failure.error}: ${message}` : `The run failed: ${failure.error}`;
}

/** An agent message of one text part, with an id derived from the run (`<run id>:<kind>`). */
function agentText(run: Run, taskId: string, kind: string, text: string): Message {
  return {
    messageId: `${run.run_id}:${kind}`,
    contextId: run.thread_id,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The agent message asking for input: the run's pending interrupts as a data part. */
export function interruptsMessage(run: Run, taskId: string, interrupts: Interrupt[]): Message {
  return {
    messageId: `${run.run_id}:interrupts`,
    contextId: run.thread_id,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [dataPart(toWireObject({ interrupts }))],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
