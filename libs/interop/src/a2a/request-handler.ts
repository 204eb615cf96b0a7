import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { v4 as uuidv4 } from "uuid";
import type { Assistant, Storage } from "@agent-server/core";
import type { Engine, RunAuthContext } from "@agent-server/engine";
import { projectTask } from "./task-projection.js";

export interface A2AHandlerDeps {
  engine: Engine;
  storage: Storage;
}

/**
 * Our own `A2ARequestHandler` for one assistant, over the engine's existing records (no SDK TaskStore:
 * that would be a second task authority with overwrite semantics). Task id = run id, contextId = thread
 * id. Every A2A run is server-marked for result capture, and a task renders from its run's recorded
 * `RunResult` (the durable-results contract). Blocking SendMessage and GetTask so far.
 */
export class TaskRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: A2AHandlerDeps,
    private readonly assistant: Assistant,
    private readonly card: AgentCard,
    private readonly auth: RunAuthContext | undefined,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const message = params.message;
    if (!message) throw new RequestMalformedError("params.message is required");
    // Checked before anything is created: without both result methods a task could not be read back.
    const { recordResult, getResult } = this.deps.storage.runs;
    if (!recordResult || !getResult) {
      throw new UnsupportedOperationError("this server's storage driver cannot record run results, which A2A tasks need");
    }
    // Continuing a task (resume after INPUT_REQUIRED) needs the internal lineage of step 2.
    if (message.taskId) throw new UnsupportedOperationError("continuing a task is not supported yet");
    if (params.configuration?.returnImmediately) throw new UnsupportedOperationError("non-blocking SendMessage is not supported yet");
    const text = message.parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join("\n");
    if (!text) throw new RequestMalformedError("the message needs a text part");

    const threadId = await this.context(message.contextId);
    const { run } = await this.deps.engine.createRunAndWait(
      { assistant_id: this.assistant.assistant_id, input: { messages: [{ role: "user", content: text }] } },
      { threadId, internal: { captureResult: true }, ...(this.auth ? { auth: this.auth } : {}) },
    );
    return this.render(run.run_id);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return this.render(params.id);
  }

  /** The thread a message runs on: its contextId's thread, or a new one when it has none. */
  private async context(contextId: string): Promise<string> {
    if (!contextId) {
      const thread = await this.deps.storage.threads.create({ thread_id: uuidv4() });
      return thread.thread_id;
    }
    const thread = await this.deps.storage.threads.get(contextId);
    if (!thread) throw new RequestMalformedError(`unknown contextId "${contextId}"`);
    return thread.thread_id;
  }

  /** The run row (effective status) and the result recorded for it at settlement. */
  private async render(taskId: string): Promise<Task> {
    const run = taskId ? await this.deps.storage.runs.get(taskId) : null;
    // A run of another assistant is not a task of this agent.
    if (!run || run.assistant_id !== this.assistant.assistant_id) throw new TaskNotFoundError(`task "${taskId}" not found`);
    const result = (await this.deps.storage.runs.getResult?.(run.run_id)) ?? null;
    return projectTask({ run, result });
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest): Promise<AgentCard> {
    throw unsupported("GetExtendedAgentCard");
  }

  // eslint-disable-next-line require-yield
  async *sendMessageStream(_params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    throw unsupported("SendStreamingMessage");
  }

  async cancelTask(_params: CancelTaskRequest): Promise<Task> {
    throw unsupported("CancelTask");
  }

  async listTasks(_params: ListTasksRequest): Promise<ListTasksResponse> {
    throw unsupported("ListTasks");
  }

  async createTaskPushNotificationConfig(_params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    throw unsupported("CreateTaskPushNotificationConfig");
  }

  async getTaskPushNotificationConfig(_params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    throw unsupported("GetTaskPushNotificationConfig");
  }

  async listTaskPushNotificationConfigs(
    _params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    throw unsupported("ListTaskPushNotificationConfigs");
  }

  async deleteTaskPushNotificationConfig(_params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    throw unsupported("DeleteTaskPushNotificationConfig");
  }

  // eslint-disable-next-line require-yield
  async *resubscribe(_params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    throw unsupported("SubscribeToTask");
  }
}

function unsupported(method: string): Error {
  return new UnsupportedOperationError(`${method} is not supported by this server yet`);
}
