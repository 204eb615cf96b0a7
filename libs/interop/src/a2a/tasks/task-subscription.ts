import { TaskState, type StreamResponse, type Task } from "@a2a-js/sdk";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { Run } from "@agent-server/core";
import { whenAborted } from "../call-signal.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import { TERMINAL_TASK_STATES } from "../task-projection.js";
import type { FoundTask } from "./task-lineage.js";
import { nextTaskRun } from "./task-moves.js";
import type { TaskRenderer } from "./task-renderer.js";
import { joinTokenStream, outcomeUpdates, pullTokens, runUpdates, type PulledTokens } from "./task-stream.js";

/**
 * SubscribeToTask: the task as it stands, then its updates until it reaches a terminal state (COMPLETED,
 * FAILED, CANCELED, REJECTED), then the stream closes (A2A v1.0 section 3.1.6). A task waiting for input
 * is followed across its runs: the stream stays open while it waits, and the run a later message with
 * its taskId admits (anywhere: another process's is found by polling) is followed like the first —
 * WORKING, its LLM tokens when that message streamed, its recorded artifact and status; a cancel that
 * ends the wait shows as CANCELED. A task already terminal is refused (UnsupportedOperation).
 *
 * `signal` aborts when the subscriber leaves; the wait for input stops on it (a run being followed ends
 * the stream at its end anyway). The runs themselves are never affected.
 */
export async function* subscribeToTask(
  deps: A2AHandlerDeps,
  renderer: TaskRenderer,
  assistantId: string,
  found: FoundTask,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamResponse, void, undefined> {
  const { first } = found;
  let current = found.current;
  // Joined before the task is rendered, so tokens from the moment of subscription on are kept.
  let joined = active(current) ? join(deps, current) : undefined;
  try {
    let task = await renderer.render(first, current, {}, found.internal);
    if (terminal(task)) {
      throw new UnsupportedOperationError(`task "${first.run_id}" is ${TaskState[task.status!.state]}: nothing to subscribe to`);
    }
    yield { payload: { $case: "task", value: task } };
    while (!terminal(task) && !signal?.aborted) {
      if (active(current)) {
        joined ??= join(deps, current);
        const outcome = yield* followRun(deps, renderer, first, current, joined, signal);
        joined.close();
        joined = undefined;
        if (!outcome) return;
        ({ task, current } = outcome);
        continue;
      }
      // Waiting for input: the next run is a continuation, or the cancelled run that ends the wait.
      const next = await nextTaskRun(deps, assistantId, first.run_id, current.run_id, signal);
      if (!next) return;
      current = next;
      if (!active(next)) {
        // It ended before it was seen (a fast run, a cancel): its outcome, as GetTask renders it.
        task = await renderer.render(first, next);
        yield* outcomeUpdates(task);
      }
    }
  } finally {
    joined?.close();
  }
}

/** A run's token stream (empty when its message did not stream), joined now. */
interface JoinedRun {
  tokens: PulledTokens | undefined;
  close(): void;
}

function join(deps: A2AHandlerDeps, run: Run): JoinedRun {
  const events = joinTokenStream(deps.engine, run);
  return { tokens: pullTokens(events), close: () => events?.close() };
}

/**
 * One run followed to its end (`runUpdates`): the task it ended in and the run that task was rendered
 * from (the task's current run, which the loop goes on from); undefined when the subscriber left first.
 */
async function* followRun(
  deps: A2AHandlerDeps,
  renderer: TaskRenderer,
  first: Run,
  run: Run,
  joined: JoinedRun,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamResponse, { task: Task; current: Run } | undefined, undefined> {
  const end = deps.engine.waitRun(run.run_id, run.thread_id);
  end.catch(() => undefined);
  const aborted = whenAborted(signal);
  // A subscriber that leaves mid-run stops the token stream, so the generator gets to its next yield.
  void aborted.promise.then(() => joined.close());
  try {
    const outcome = yield* runUpdates(deps.storage, renderer, first, run, Promise.race([end, aborted.promise]), joined.tokens);
    return signal?.aborted ? undefined : outcome;
  } finally {
    aborted.dispose();
  }
}

function active(run: Run): boolean {
  return run.status === "pending" || run.status === "running";
}

function terminal(task: Task): boolean {
  return TERMINAL_TASK_STATES.includes(task.status!.state);
}
