import {
  Message as A2AMessage,
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { v4 as uuidv4 } from "uuid";
import { ConflictError, type Assistant, type Run, type Storage } from "@agent-server/core";
import { ThreadStateService, type Engine, type RunAuthContext, type RunEnd } from "@agent-server/engine";
import { openScope, requestScopeOf, type A2ARequestScope, type A2AThreadAction } from "./request-scope.js";
import { TaskPushConfigs, type RequestedPushConfig, type TaskLookup } from "./push/push-configs.js";
import { TERMINAL_TASK_STATES } from "./task-projection.js";
import { messageContent, resumeValue, runInput, type MessageContent } from "./tasks/message-input.js";
import { requireWaitingForInput } from "./tasks/resume-check.js";
import { currentRun, taskRun, taskRuns } from "./tasks/task-lineage.js";
import { TaskRenderer, type RenderOptions } from "./tasks/task-renderer.js";
import { followTask } from "./tasks/task-stream.js";

export interface A2AHandlerDeps {
  engine: Engine;
  storage: Storage;
}

/** ListTasks page size when the request names none, and the most one page holds. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** A run just admitted for a task, and the promise of its end. */
interface Admitted {
  taskId: string;
  run: Run;
  end: Promise<RunEnd>;
}

/**
 * Our own `A2ARequestHandler` for one assistant, over the engine's existing records (no SDK TaskStore:
 * that would be a second task authority with overwrite semantics).
 *
 * - Task id = the FIRST run's id, contextId = thread id. Every A2A run is server-marked for result
 *   capture; a continuation (a message with the `taskId` of an INPUT_REQUIRED task) is a new run admitted
 *   through normal admission/queue with internal lineage `taskId` = the first run id and input
 *   `command: { resume }`.
 * - A task renders from its CURRENT run (the newest continuation, or the first run): the run row's
 *   effective status and the `RunResult` recorded for it at settlement — never the thread's latest state.
 * - Errors (JSON-RPC codes): unknown task -32001 (TaskNotFound); message to a COMPLETED/FAILED/CANCELED
 *   task -32004 (UnsupportedOperation), also to a task still SUBMITTED/WORKING (it does not await input);
 *   contextId/taskId mismatch, malformed parts and a stale resume -32602 (RequestMalformedError is the
 *   SDK's InvalidParams); file parts -32005 (ContentTypeNotSupported); cancel of a task that is not
 *   SUBMITTED/WORKING -32002 (TaskNotCancelable).
 * - Push notification configs (CRUD and SendMessage's `taskPushNotificationConfig`): push/push-configs.ts.
 */
export class TaskRequestHandler implements A2ARequestHandler {
  private readonly threadState: ThreadStateService;
  private readonly push: TaskPushConfigs;
  private readonly renderer: TaskRenderer;

  constructor(
    private readonly deps: A2AHandlerDeps,
    private readonly assistant: Assistant,
    private readonly card: AgentCard,
    private readonly auth: RunAuthContext | undefined,
  ) {
    this.threadState = new ThreadStateService(deps.storage, deps.engine.registry);
    this.push = new TaskPushConfigs(deps);
    this.renderer = new TaskRenderer(deps.storage);
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async sendMessage(params: SendMessageRequest, context?: ServerCallContext): Promise<Message | Task> {
    const length = historyLength(params.configuration?.historyLength);
    const admitted = await this.admit(params, this.scope(context));
    if (!params.configuration?.returnImmediately) await admitted.end;
    return this.render(admitted.taskId, openScope, { historyLength: length });
  }

  /** The task at once, WORKING, then (after the run's end) its artifact and the final status. */
  async *sendMessageStream(params: SendMessageRequest, context?: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const admitted = await this.admit(params, this.scope(context));
    yield* followTask(this.deps.storage, this.renderer, admitted.taskId, admitted.run, admitted.end);
  }

  async getTask(params: GetTaskRequest, context?: ServerCallContext): Promise<Task> {
    return this.render(params.id, this.scope(context), { historyLength: historyLength(params.historyLength) });
  }

  /**
   * SUBMITTED/WORKING: cancels the task's current run (engine.cancel: the normal cancellation path, a
   * compare-and-set against settlement), so a completion that won the race renders COMPLETED and a cancel
   * that won never shows artifacts. INPUT_REQUIRED: ends the wait — under the thread's execution lock, with
   * the same checks as a resume, a continuation run is admitted already cancelled
   * (`engine.createCancelledRun`: never queued, never executed); the task renders CANCELED. Terminal states: -32002.
   */
  async cancelTask(params: CancelTaskRequest, context?: ServerCallContext): Promise<Task> {
    const scope = this.scope(context);
    const first = await this.requireTask(params.id, scope, "update");
    const current = await currentRun(this.deps.storage, first);
    if (current.status === "pending" || current.status === "running") {
      await this.deps.engine.cancel([current.run_id], { threadId: current.thread_id });
      return this.render(first.run_id, openScope);
    }
    const task = await this.renderRuns(first, current, { historyLength: 0 });
    if (task.status!.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new TaskNotCancelableError(`task "${first.run_id}" is ${TaskState[task.status!.state]} and cannot be cancelled`);
    }
    const auth = scope.auth ?? this.auth;
    await admitting(() =>
      this.deps.engine.withThreadExecution(first.thread_id, async () => {
        await requireWaitingForInput(this.deps.storage, this.threadState, first);
        await this.deps.engine.createCancelledRun(
          { assistant_id: this.assistant.assistant_id, command: { resume: null } },
          { threadId: first.thread_id, internal: { captureResult: true, taskId: first.run_id }, ...(auth ? { auth } : {}) },
        );
      }),
    );
    return this.render(first.run_id, openScope);
  }

  /**
   * Tasks of this assistant, newest first, by contextId and status (TASK_STATE_UNSPECIFIED, or
   * UNRECOGNIZED as the SDK client sends an unset filter, means every status). pageToken is the offset.
   */
  async listTasks(params: ListTasksRequest, context?: ServerCallContext): Promise<ListTasksResponse> {
    const scope = this.scope(context);
    const pageSize = params.pageSize === undefined || params.pageSize <= 0 ? DEFAULT_PAGE_SIZE : Math.min(params.pageSize, MAX_PAGE_SIZE);
    const offset = params.pageToken ? Number(params.pageToken) : 0;
    if (!Number.isInteger(offset) || offset < 0) throw new RequestMalformedError(`invalid pageToken "${params.pageToken}"`);
    const shown: RenderOptions = { historyLength: historyLength(params.historyLength), includeArtifacts: params.includeArtifacts ?? false };
    // Time O(tasks of this assistant, or of the context), as totalSize counts every visible match;
    // memory O(pageSize): only tasks on the page are kept, and only they (or, with a status filter,
    // the candidates) are rendered.
    const page: Task[] = [];
    let total = 0;
    for await (const first of taskRuns(this.deps.storage, this.assistant.assistant_id, params.contextId || undefined)) {
      // Tasks on threads the caller may not read are left out (as if they did not exist).
      if (!(await this.visible(first, scope, "read"))) continue;
      const current = await currentRun(this.deps.storage, first);
      let task: Task | undefined;
      if (params.status > 0) {
        task = await this.renderRuns(first, current, shown);
        if (task.status?.state !== params.status) continue;
      }
      if (total >= offset && total < offset + pageSize) page.push(task ?? (await this.renderRuns(first, current, shown)));
      total++;
    }
    const next = offset + pageSize < total ? String(offset + pageSize) : "";
    return { tasks: page, nextPageToken: next, pageSize, totalSize: total };
  }

  /** The task now, then — while its current run is active — WORKING, its artifact and the final status. */
  async *resubscribe(params: SubscribeToTaskRequest, context?: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const first = await this.requireTask(params.id, this.scope(context), "read");
    const current = await currentRun(this.deps.storage, first);
    const task = await this.renderRuns(first, current);
    if (TERMINAL_TASK_STATES.includes(task.status!.state)) {
      throw new UnsupportedOperationError(`task "${first.run_id}" is ${TaskState[task.status!.state]}: nothing to subscribe to`);
    }
    if (current.status !== "pending" && current.status !== "running") {
      // INPUT_REQUIRED: the stream shows where the task stands and ends (it waits for a message).
      yield { payload: { $case: "task", value: task } };
      return;
    }
    yield* followTask(this.deps.storage, this.renderer, first.run_id, current, this.deps.engine.waitRun(current.run_id, current.thread_id));
  }

  /**
   * Admits the run a message asks for, or throws before anything exists: the message is validated first,
   * a thread made for a message without contextId is removed again when admission fails, and a
   * continuation is validated and admitted in one step under the thread's execution lock.
   */
  private async admit(params: SendMessageRequest, scope: A2ARequestScope): Promise<Admitted> {
    const message = params.message;
    if (!message) throw new RequestMalformedError("params.message is required");
    // Checked before anything is created: without both result methods a task could not be read back.
    const { recordResult, getResult } = this.deps.storage.runs;
    if (!recordResult || !getResult) {
      throw new UnsupportedOperationError("this server's storage driver cannot record run results, which A2A tasks need");
    }
    const content = messageContent(message);
    // A push config is checked before anything is created too (-32003 without support, -32602 invalid).
    const push = this.push.requested(params);
    if (message.taskId) return admitting(() => this.continueTask(message.taskId, message.contextId, content, A2AMessage.toJSON(message), scope, push));
    const auth = scope.auth ?? this.auth;

    let threadId: string;
    let created = false;
    if (message.contextId) {
      const thread = await this.deps.storage.threads.get(message.contextId);
      // A context the caller may not see answers like an unknown one; a push config needs update too.
      const allowed = thread && (await this.visibleThread(thread, scope, "create_run")) && (!push || (await this.visibleThread(thread, scope, "update")));
      if (!thread || !allowed) {
        throw new RequestMalformedError(`unknown contextId "${message.contextId}"`);
      }
      threadId = thread.thread_id;
    } else {
      // threads:create handlers may change the metadata (e.g. add an owner) the thread is created with.
      const ref = { thread_id: uuidv4(), metadata: {} as Record<string, unknown> };
      await scope.authorize("create", ref);
      threadId = (await this.deps.storage.threads.create({ thread_id: ref.thread_id, metadata: ref.metadata ?? {} })).thread_id;
      created = true;
      if (push && !(await this.visibleThread(ref, scope, "update"))) {
        await this.deps.storage.threads.delete(threadId).catch(() => undefined);
        throw new TaskNotFoundError("not allowed to register push notifications on the new task");
      }
    }
    try {
      // A new task in a context where another task is at work waits its turn (enqueue), as a chat does.
      const { run, end } = await this.deps.engine.createRunWatched(
        { assistant_id: this.assistant.assistant_id, input: runInput(content), multitask_strategy: "enqueue" },
        { threadId, internal: { captureResult: true, message: A2AMessage.toJSON(message) }, ...(auth ? { auth } : {}) },
      );
      // Registered once the task (its first run) exists; see TaskPushConfigs.register for a fast run.
      if (push) await this.push.register(run.run_id, push, run);
      return { taskId: run.run_id, run, end: quiet(end) };
    } catch (error) {
      if (created) await this.deps.storage.threads.delete(threadId).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A continuation of an INPUT_REQUIRED task. Under `withThreadExecution` (no run of the thread executes
   * meanwhile; admission's reject strategy keeps others out until ours ends) it checks that the task's
   * current run is the interrupted one — status success with recorded interrupts — and that the
   * checkpoint recorded in its RunResult is exactly the thread's current checkpoint (read from the
   * checkpointer). A later turn, a state update or a prune that moved the thread on makes the resume
   * stale: -32602. Recorded result values are never used to rebuild a checkpoint.
   */
  private async continueTask(
    taskId: string,
    contextId: string,
    content: MessageContent,
    asked: unknown,
    scope: A2ARequestScope,
    push?: RequestedPushConfig,
  ): Promise<Admitted> {
    const first = await this.requireTask(taskId, scope, "create_run");
    if (push) await this.requireTask(taskId, scope, "update");
    const auth = scope.auth ?? this.auth;
    if (contextId && contextId !== first.thread_id) {
      throw new RequestMalformedError(`task "${taskId}" belongs to context "${first.thread_id}", not "${contextId}"`);
    }
    // Checked once without the lock, so a message to a task at work fails at once instead of waiting
    // for its run (which holds the lock) to end; then again under the lock, where it counts.
    await requireWaitingForInput(this.deps.storage, this.threadState, first);
    return this.deps.engine.withThreadExecution(first.thread_id, async () => {
      await requireWaitingForInput(this.deps.storage, this.threadState, first);
      const { run, end } = await this.deps.engine.createRunWatched(
        { assistant_id: this.assistant.assistant_id, command: { resume: resumeValue(content) } },
        {
          threadId: first.thread_id,
          internal: { captureResult: true, taskId: first.run_id, message: asked },
          ...(auth ? { auth } : {}),
        },
      );
      // Stored under the lock, so the continuation cannot execute here before its task has the config.
      if (push) await this.push.register(first.run_id, push, run);
      return { taskId: first.run_id, run, end: quiet(end) };
    });
  }

  /** The caller's scope the routes put into the call context (everything allowed outside the routes). */
  private scope(context: ServerCallContext | undefined): A2ARequestScope {
    return requestScopeOf(context) ?? openScope;
  }

  /**
   * The task (its first run) if it is a task of this agent and the caller may `action` its thread
   * (scoped like every other run operation, through the thread); TaskNotFoundError otherwise — a
   * foreign task is indistinguishable from a missing one. Handler denials (403) propagate.
   */
  private async requireTask(taskId: string, scope: A2ARequestScope, action: A2AThreadAction): Promise<Run> {
    const first = await taskRun(this.deps.storage, taskId, this.assistant.assistant_id);
    if (!first || !(await this.visible(first, scope, action))) throw new TaskNotFoundError(`task "${taskId}" not found`);
    return first;
  }

  private async visible(first: Run, scope: A2ARequestScope, action: A2AThreadAction): Promise<boolean> {
    // No auth handlers: nothing to check, and a run's thread exists while the run does (cascade).
    if (scope === openScope) return true;
    const thread = await this.deps.storage.threads.get(first.thread_id);
    return thread ? this.visibleThread(thread, scope, action) : false;
  }

  private async visibleThread(thread: { thread_id: string; metadata?: Record<string, unknown> | null }, scope: A2ARequestScope, action: A2AThreadAction): Promise<boolean> {
    try {
      await scope.authorize(action, { thread_id: thread.thread_id, metadata: thread.metadata ?? {} });
      return true;
    } catch (error) {
      if (error instanceof TaskNotFoundError) return false;
      throw error;
    }
  }

  /** The task: its current run row (effective status) and the result recorded for that run. */
  private async render(taskId: string, scope: A2ARequestScope, options?: RenderOptions): Promise<Task> {
    const first = await this.requireTask(taskId, scope, "read");
    return this.renderRuns(first, await currentRun(this.deps.storage, first), options);
  }

  private renderRuns(first: Run, current: Run, options?: RenderOptions): Promise<Task> {
    return this.renderer.render(first, current, options);
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    throw unsupported("GetExtendedAgentCard");
  }

  /** Push notification configs (push/push-configs.ts): read needs `read` on the task, create/delete `update`. */
  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context?: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.push.create(params, this.taskLookup(context));
  }

  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest, context?: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.push.get(params, this.taskLookup(context));
  }

  async listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest, context?: ServerCallContext): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.push.list(params, this.taskLookup(context));
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context?: ServerCallContext): Promise<void> {
    return this.push.delete(params, this.taskLookup(context));
  }

  private taskLookup(context: ServerCallContext | undefined): TaskLookup {
    const scope = this.scope(context);
    return (taskId, action) => this.requireTask(taskId, scope, action);
  }
}

/** `historyLength` as requested: unset (the whole history), or a non-negative count of recent messages. */
function historyLength(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) throw new RequestMalformedError("historyLength must be a non-negative integer");
  return value;
}

/**
 * Admission refused because the context has a run in flight (reject strategy) is the client's to retry,
 * not an internal error: -32004 with the reason.
 */
async function admitting<T>(admit: () => Promise<T>): Promise<T> {
  try {
    return await admit();
  } catch (error) {
    if (error instanceof ConflictError) throw new UnsupportedOperationError(`the task's context is busy: ${error.message}`);
    throw error;
  }
}

/** An end promise nobody may await (a stream whose client left) must not become an unhandled rejection. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

function unsupported(method: string): Error {
  return new UnsupportedOperationError(`${method} is not supported by this server yet`);
}
