import {
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
import { TaskNotCancelableError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { isStorageOutage, type Assistant, type Run } from "@agent-server/core";
import { ThreadStateService, type RunAuthContext } from "@agent-server/engine";
import { extendedCard, extendedCardCaller } from "./card/extended.js";
import type { AgentCardOptions } from "./card/options.js";
import { openScope, requestScopeOf, type A2ARequestScope } from "./request-scope.js";
import { pushIdRules, TaskPushConfigs, type TaskLookup } from "./push/push-configs.js";
import { historyLength, listTasksQuery } from "./tasks/list-tasks-query.js";
import { checkConfigId, checkPushConfigShape, checkSendMessage, checkTaskId } from "./tasks/request-checks.js";
import { requireWaitingForInput } from "./tasks/resume-check.js";
import { TaskAccess } from "./tasks/task-access.js";
import { declaredInputModes } from "./tasks/message-input.js";
import { admitting, TaskAdmission } from "./tasks/task-admission.js";
import { currentRun, taskRuns } from "./tasks/task-lineage.js";
import { TaskRenderer, type RenderOptions } from "./tasks/task-renderer.js";
import { followTask } from "./tasks/task-stream.js";
import { announceTaskRun } from "./tasks/task-moves.js";
import { subscribeToTask } from "./tasks/task-subscription.js";
import { callSignalOf } from "./call-signal.js";
import type { A2AHandlerDeps } from "./handler-deps.js";

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
 *   SDK's InvalidParams); file parts of a media type the card does not declare -32005
 *   (ContentTypeNotSupported, tasks/message-input.ts); cancel of a task that is not
 *   SUBMITTED/WORKING -32002 (TaskNotCancelable).
 * - Push notification configs (CRUD and SendMessage's `taskPushNotificationConfig`): push/push-configs.ts.
 * - Admission of messages (new tasks and continuations): tasks/task-admission.ts; who may act on which
 *   task: tasks/task-access.ts.
 * - Every method checks the shape of its params first (tasks/request-checks.ts, tasks/list-tasks-query.ts):
 *   the v0.3 translators pass values of any JSON type through; a wrong one is -32602, nothing written.
 */
export class TaskRequestHandler implements A2ARequestHandler {
  private readonly threadState: ThreadStateService;
  private readonly push: TaskPushConfigs;
  private readonly renderer: TaskRenderer;
  private readonly access: TaskAccess;
  private readonly admission: TaskAdmission;

  constructor(
    private readonly deps: A2AHandlerDeps,
    private readonly assistant: Assistant,
    private readonly card: AgentCard,
    private readonly auth: RunAuthContext | undefined,
    /** The app's card options (routes.ts builds them once): the extended card and whether auth is configured. */
    private readonly cardOptions: AgentCardOptions = {},
  ) {
    this.threadState = new ThreadStateService(deps.storage, deps.engine.registry);
    this.push = new TaskPushConfigs(deps);
    this.renderer = new TaskRenderer(deps.storage);
    this.access = new TaskAccess(deps.storage, assistant.assistant_id);
    this.admission = new TaskAdmission(deps, assistant, this.access, this.push, this.threadState, auth, declaredInputModes(card));
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async sendMessage(params: SendMessageRequest, context?: ServerCallContext): Promise<Message | Task> {
    checkSendMessage(params);
    const length = historyLength(params.configuration?.historyLength);
    const admitted = await this.admission.admit(params, this.scope(context), { context });
    if (!params.configuration?.returnImmediately) {
      // A run its storage keeps refusing (a full disk) is kept: the task is answered as it stands
      // (SUBMITTED/WORKING, to be polled) rather than the send hanging or losing its task id.
      const end = await admitted.end.catch((error: unknown) => {
        if (isStorageOutage(error)) return undefined;
        throw error;
      });
      if (!end) return this.render(admitted.taskId, openScope, { historyLength: length });
      // A new task that settled here: its row and result come with its end and its marker with its
      // admission, so nothing is read (a continuation, or a run settled elsewhere, is read as GetTask reads it).
      if (admitted.internal && end.run?.run_id === admitted.taskId) {
        return this.renderer.render(end.run, end.run, { historyLength: length }, admitted.internal, end.result);
      }
    }
    return this.render(admitted.taskId, openScope, { historyLength: length });
  }

  /**
   * The task at once, WORKING, the LLM's tokens as they come (artifact updates), then (after the run's
   * end) its recorded artifact and the final status: tasks/task-stream.ts.
   */
  async *sendMessageStream(params: SendMessageRequest, context?: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    checkSendMessage(params);
    const admitted = await this.admission.admit(params, this.scope(context), { stream: true, context });
    yield* followTask(this.deps.storage, this.renderer, admitted);
  }

  async getTask(params: GetTaskRequest, context?: ServerCallContext): Promise<Task> {
    return this.render(checkTaskId(params.id), this.scope(context), { historyLength: historyLength(params.historyLength) });
  }

  /**
   * SUBMITTED/WORKING: cancels the task's current run (engine.cancel: the normal cancellation path, a
   * compare-and-set against settlement). A cancel that won answers the CANCELED task, which never shows
   * artifacts; a completion that won the race meanwhile renders what it ended as, and the cancel is
   * answered as for a task found in that state (COMPLETED/FAILED: -32002). INPUT_REQUIRED: ends the wait — under the thread's execution lock, with
   * the same checks as a resume, a continuation run is admitted already cancelled
   * (`engine.createCancelledRun`: never queued, never executed); the task renders CANCELED. Terminal states: -32002.
   */
  async cancelTask(params: CancelTaskRequest, context?: ServerCallContext): Promise<Task> {
    const scope = this.scope(context);
    const found = await this.access.requireTaskRuns(checkTaskId(params.id), scope, "update");
    const first = found.first;
    let current = found.current;
    if (current.status === "pending" || current.status === "running") {
      await this.deps.engine.cancel([current.run_id], { threadId: current.thread_id });
      const after = await this.render(first.run_id, openScope);
      if (after.status!.state === TaskState.TASK_STATE_CANCELED) return after;
      current = await currentRun(this.deps.storage, first);
    }
    const task = await this.renderRuns(first, current, { historyLength: 0 });
    if (task.status!.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new TaskNotCancelableError(`task "${first.run_id}" is ${TaskState[task.status!.state]} and cannot be cancelled`);
    }
    const auth = scope.auth ?? this.auth;
    await admitting(() =>
      this.deps.engine.withThreadExecution(first.thread_id, async (heldLock) => {
        await requireWaitingForInput(this.deps.storage, this.threadState, first);
        await this.deps.engine.createCancelledRun(
          { assistant_id: this.assistant.assistant_id, command: { resume: null } },
          { threadId: first.thread_id, heldLock, internal: { captureResult: true, taskId: first.run_id }, ...(auth ? { auth } : {}) },
        );
      }),
    );
    // Its subscribers see the wait end (CANCELED) at once.
    announceTaskRun(this.deps.engine, first.run_id);
    return this.render(first.run_id, openScope);
  }

  /**
   * Tasks of this assistant, newest first, by contextId, status and status timestamp (parameters as
   * tasks/list-tasks-query.ts validates them). pageToken is the offset.
   */
  async listTasks(params: ListTasksRequest, context?: ServerCallContext): Promise<ListTasksResponse> {
    const scope = this.scope(context);
    const query = listTasksQuery(params);
    const { pageSize, offset } = query;
    const shown: RenderOptions = { historyLength: query.historyLength, includeArtifacts: query.includeArtifacts };
    const filtered = query.status !== undefined || query.statusTimestampAfter !== undefined;
    // Time O(tasks of this assistant, or of the context), as totalSize counts every visible match;
    // memory O(pageSize): only tasks on the page are kept, and only they (or, with a status filter,
    // the candidates) are rendered.
    const page: Task[] = [];
    let total = 0;
    for await (const first of taskRuns(this.deps.storage, this.assistant.assistant_id, query.contextId)) {
      // Tasks on threads the caller may not read are left out (as if they did not exist).
      if (!(await this.access.visible(first, scope, "read"))) continue;
      const current = await currentRun(this.deps.storage, first);
      let task: Task | undefined;
      if (filtered) {
        task = await this.renderRuns(first, current, shown);
        if (query.status !== undefined && task.status?.state !== query.status) continue;
        if (query.statusTimestampAfter !== undefined && !(Date.parse(task.status?.timestamp ?? "") >= query.statusTimestampAfter)) continue;
      }
      if (total >= offset && total < offset + pageSize) page.push(task ?? (await this.renderRuns(first, current, shown)));
      total++;
    }
    const next = offset + pageSize < total ? String(offset + pageSize) : "";
    return { tasks: page, nextPageToken: next, pageSize, totalSize: total };
  }

  /**
   * The task now, then its updates until it is terminal, across its runs: a task waiting for input keeps
   * the stream open for the run that resumes it (tasks/task-subscription.ts).
   */
  async *resubscribe(params: SubscribeToTaskRequest, context?: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const found = await this.access.requireTaskRuns(checkTaskId(params.id), this.scope(context), "read");
    yield* subscribeToTask(this.deps, this.renderer, this.assistant.assistant_id, found, callSignalOf(context));
  }

  /** The caller's scope the routes put into the call context (everything allowed outside the routes). */
  private scope(context: ServerCallContext | undefined): A2ARequestScope {
    return requestScopeOf(context) ?? openScope;
  }

  /** The task: its current run row (effective status) and the result recorded for that run. */
  private async render(taskId: string, scope: A2ARequestScope, options?: RenderOptions): Promise<Task> {
    const { first, internal, current } = await this.access.requireTaskRuns(taskId, scope, "read");
    return this.renderer.render(first, current, options, internal);
  }

  private renderRuns(first: Run, current: Run, options?: RenderOptions): Promise<Task> {
    return this.renderer.render(first, current, options);
  }

  /**
   * GetExtendedAgentCard (v0.3 `agent/getAuthenticatedExtendedCard`, HTTP+JSON `GET /extendedAgentCard`,
   * and any other binding that calls this): langgraph.json `a2a.extended_card` applied to this card for
   * the caller of `context` — under custom auth an authenticated one only (card/extended.ts). Without
   * the setting the card says `extendedAgentCard: false` and this is UnsupportedOperation, as the SDK's
   * own handler answers for such a card.
   */
  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest, context?: ServerCallContext): Promise<AgentCard> {
    const hook = this.cardOptions.extendedCard;
    if (!hook) throw new UnsupportedOperationError("this agent has no extended card (a2a.extended_card in langgraph.json)");
    const user = extendedCardCaller(this.scope(context), this.cardOptions.authConfigured ?? false);
    return extendedCard(this.card, hook, { user, assistant: this.assistant });
  }

  /**
   * Push notification configs (push/push-configs.ts): read needs `read` on the task, create/delete `update`.
   * Config ids default by the call's protocol version (`pushIdRules`: v0.3 uses the task id).
   */
  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context?: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    checkPushConfigShape(params);
    checkTaskId(params.taskId, "taskId");
    return this.push.create(params, this.taskLookup(context), pushIdRules(context));
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context?: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    checkTaskId(params.taskId, "taskId");
    checkConfigId(params.id);
    return this.push.get(params, this.taskLookup(context), pushIdRules(context));
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context?: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    checkTaskId(params.taskId, "taskId");
    return this.push.list(params, this.taskLookup(context));
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context?: ServerCallContext): Promise<void> {
    checkTaskId(params.taskId, "taskId");
    checkConfigId(params.id);
    return this.push.delete(params, this.taskLookup(context), pushIdRules(context));
  }

  private taskLookup(context: ServerCallContext | undefined): TaskLookup {
    const scope = this.scope(context);
    return (taskId, action) => this.access.requireTask(taskId, scope, action);
  }
}
