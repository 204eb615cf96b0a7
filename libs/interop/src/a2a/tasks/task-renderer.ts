import { Message, Role, type Task } from "@a2a-js/sdk";
import type { Run, RunError, RunInternal, RunResult, Storage } from "@agent-server/core";
import { interruptsMessage, projectTask, replyText, textPart } from "../task-projection.js";

/** What a caller asked to see of a task. */
export interface RenderOptions {
  /** Most recent history messages to include: unset = all, 0 = none. */
  historyLength?: number;
  /** ListTasks leaves artifacts out unless asked (A2A's `includeArtifacts`, default false). */
  includeArtifacts?: boolean;
}

/** How many turns of one task the history reads at most. */
const HISTORY_TURNS = 100;

/**
 * Renders tasks from run records: the state and artifacts from the CURRENT run and its recorded result,
 * the history from the task's runs in order — each run's A2A message (kept in its RunInternal at
 * admission) and what the agent answered (its recorded reply or interrupts). The current status message
 * is not repeated in the history. Cost: one result read (and one error read for a failed run), plus
 * O(turns of the task) reads for history.
 */
export class TaskRenderer {
  constructor(private readonly storage: Storage) {}

  /**
   * `firstInternal`: the first run's marker, when the caller has it (else it is read for the history);
   * `currentResult`: the current run's result, when the caller has it from settlement in this process,
   * or `null` when the caller knows there is none yet (a run it has just admitted).
   */
  async render(
    first: Run,
    current: Run,
    options: RenderOptions = {},
    firstInternal?: RunInternal,
    currentResult?: RunResult | null,
  ): Promise<Task> {
    const result = currentResult !== undefined ? currentResult : await this.result(current);
    const failure = await this.failure(current);
    const task = projectTask({ run: current, result, taskId: first.run_id, failure });
    if (options.includeArtifacts === false) task.artifacts = [];
    if (options.historyLength !== 0) {
      const history = await this.history(first, current, result, task, firstInternal);
      task.history = options.historyLength === undefined ? history : history.slice(-options.historyLength);
    }
    return task;
  }

  /** `currentResult` is the current run's result, already read for the task's state and artifacts. */
  private async history(
    first: Run,
    current: Run,
    currentResult: RunResult | null,
    task: Task,
    firstInternal: RunInternal | undefined,
  ): Promise<Message[]> {
    const runs =
      first.run_id === current.run_id
        ? [first]
        : [first, ...(await this.storage.runs.listContinuations(first.run_id, { limit: HISTORY_TURNS }))];
    const history: Message[] = [];
    for (const run of runs) {
      const internal = run === first && firstInternal ? firstInternal : await this.storage.runs.getInternal(run.run_id);
      const asked = internal?.message;
      if (asked) history.push(Message.fromJSON(asked));
      const isCurrent = run.run_id === current.run_id;
      // The current run's answer is the status message when it asks for input: not repeated here.
      if (isCurrent && task.status?.message) continue;
      const answer = agentMessage(run, first.run_id, isCurrent ? currentResult : await this.result(run));
      if (answer) history.push(answer);
    }
    return history;
  }

  /** A failed (or timed-out) run's own error, kept with the run: later turns, prunes and restarts leave it as it was. */
  private async failure(run: Run): Promise<RunError | undefined> {
    if (run.status !== "error" && run.status !== "timeout") return undefined;
    return (await this.storage.runs.getError(run.run_id)) ?? undefined;
  }

  private async result(run: Run): Promise<RunResult | null> {
    return (await this.storage.runs.getResult?.(run.run_id)) ?? null;
  }
}

/** The agent's side of one turn: the interrupts it asked, or its reply; nothing for a run without a result. */
function agentMessage(run: Run, taskId: string, result: RunResult | null): Message | undefined {
  if (!result || run.status !== "success") return undefined;
  if (result.interrupts?.length) return interruptsMessage(run, taskId, result.interrupts);
  if (result.reply === undefined) return undefined;
  return {
    messageId: `${run.run_id}:reply`,
    contextId: run.thread_id,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(replyText(result.reply))],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
