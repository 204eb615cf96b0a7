import { Message as A2AMessage, type SendMessageRequest } from "@a2a-js/sdk";
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { v7 as uuidv7 } from "uuid";
import {
  ConflictError,
  readThreadHeader,
  ThreadExistsError,
  type Assistant,
  type NewThread,
  type Run,
  type RunInternal,
  type ThreadHeader,
} from "@agent-server/core";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import {
  deleteThreadEventually,
  type RunAuthContext,
  type RunCreateRequest,
  type RunEnd,
  type RunEventStream,
  type ThreadStateService,
} from "@agent-server/engine";
import { pushIdRules, type TaskPushConfigs, type RequestedPushConfig } from "../push/push-configs.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import type { A2ARequestScope } from "../request-scope.js";
import type { AdmittedTask } from "./admitted-task.js";
import { messageContent, resumeValue, runInput, type MessageContent } from "./message-input.js";
import { mayBeRepeat, messageRunId, repeatedMessage, type SentMessage } from "./repeated-message.js";
import { requireWaitingForInput } from "./resume-check.js";
import type { TaskAccess } from "./task-access.js";
import { announceTaskRun } from "./task-moves.js";

/** How a message is answered: `stream` (SendStreamingMessage) also follows the run's LLM tokens. */
export interface AdmitOptions {
  stream?: boolean;
  /** The call's context: its protocol version decides push config id defaults (`pushIdRules`). */
  context?: ServerCallContext | undefined;
}

/**
 * A streaming message's run also streams LangGraph's `messages` mode (the engine's `messages-tuple`:
 * LLM chunks through `graph.stream`, cheap; the engine's `messages` mode would switch the run to
 * streamEvents). Nothing else is asked for: A2A reads the outcome from the records, never from `values`
 * events. A non-streaming message keeps the default mode, so it pays nothing for this.
 */
const TOKEN_STREAM: Pick<RunCreateRequest, "stream_mode"> = { stream_mode: ["messages-tuple"] };

/**
 * Turns a SendMessage into a run of one agent: a new task (its first run), or a continuation of a task
 * waiting for input. Runs go through the engine's normal admission, queue and cancellation; every one is
 * server-marked for result capture, and a continuation carries internal lineage (`taskId` = the first
 * run's id) and `command: { resume }` as input.
 */
export class TaskAdmission {
  constructor(
    private readonly deps: A2AHandlerDeps,
    private readonly assistant: Assistant,
    private readonly access: TaskAccess,
    private readonly push: TaskPushConfigs,
    private readonly threadState: ThreadStateService,
    /** The routes' caller, used when a call context carries no scoped auth of its own. */
    private readonly auth: RunAuthContext | undefined,
    /** The media types the agent's card declares (message-input.ts `declaredInputModes`): file parts of others are refused. */
    private readonly inputModes: readonly string[] = [],
  ) {}

  /**
   * Admits the run a message asks for, or throws before anything exists: the message is validated first,
   * a thread made for a message without contextId is removed again when admission fails, and a
   * continuation is validated and admitted in one step under the thread's execution lock. The run's id
   * comes from the message (`messageRunId`): a message sent again (same messageId, same caller) is
   * answered with the task its first send made (repeated-message.ts), and of two sent at once, the one
   * whose run is inserted second answers the first's.
   */
  async admit(params: SendMessageRequest, scope: A2ARequestScope, options: AdmitOptions = {}): Promise<AdmittedTask> {
    const message = params.message;
    if (!message) throw new RequestMalformedError("params.message is required");
    // Checked before anything is created: without both result methods a task could not be read back.
    const { recordResult, getResult } = this.deps.storage.runs;
    if (!recordResult || !getResult) {
      throw new UnsupportedOperationError("this server's storage driver cannot record run results, which A2A tasks need");
    }
    const content = messageContent(message, this.inputModes);
    // A push config is checked before anything is created too (-32003 without support, -32602 invalid).
    const push = this.push.requested(params, pushIdRules(options.context));
    const auth = scope.auth ?? this.auth;
    const runId = messageRunId(this.assistant.assistant_id, auth, message.messageId);
    const sent: SentMessage = { messageId: message.messageId, contextId: message.contextId ?? "", taskId: message.taskId ?? "" };
    if (message.taskId)
      return admitting(() => this.continueTask(message.taskId, sent, runId, content, A2AMessage.toJSON(message), scope, options, push));

    let threadId: string;
    let thread: ThreadHeader | undefined;
    let createThread: NewThread | undefined;
    if (message.contextId) {
      // The context's state is not read: a long conversation's is large, and admission needs its metadata.
      thread = (await readThreadHeader(this.deps.storage.threads, message.contextId)) ?? undefined;
      // A context the caller may not see answers like an unknown one; a push config needs update too.
      const allowed =
        thread &&
        (await this.access.visibleThread(thread, scope, "create_run")) &&
        (!push || (await this.access.visibleThread(thread, scope, "update")));
      if (!thread || !allowed) {
        throw new RequestMalformedError(`unknown contextId "${message.contextId}"`);
      }
      threadId = thread.thread_id;
    } else {
      // threads:create handlers may change the metadata (e.g. add an owner) the thread is created with.
      const ref = { thread_id: uuidv7(), metadata: {} as Record<string, unknown> };
      await scope.authorize("create", ref);
      // Checked on a copy before anything is written (an update handler's changes are not the thread's).
      if (push && !(await this.access.visibleThread({ ...ref, metadata: { ...ref.metadata } }, scope, "update"))) {
        throw new TaskNotFoundError("not allowed to register push notifications on the new task");
      }
      const ttl = this.deps.storage.threads.sweep ? this.deps.engine.threadTtl() : undefined; // checkpointer.ttl.default_ttl
      // Written by admission with the run (one write where the driver can), the thread already busy when
      // the run starts at once; if the run cannot be inserted, neither is left.
      createThread = { thread_id: ref.thread_id, metadata: ref.metadata ?? {}, ...(ttl ? { ttl } : {}) };
      threadId = ref.thread_id;
    }
    let events: RunEventStream | undefined;
    let inserted = false;
    try {
      // A new task in a context where another task is at work waits its turn (enqueue), as a chat does.
      const internal: RunInternal = { captureResult: true, message: A2AMessage.toJSON(message) };
      const admitted = await this.deps.engine.createRunWatched(
        {
          assistant_id: this.assistant.assistant_id,
          input: runInput(content),
          multitask_strategy: "enqueue",
          ...(options.stream ? TOKEN_STREAM : {}),
        },
        {
          threadId,
          runId,
          // Read by this call: admission takes them instead of reading them again. A thread to create has an
          // id nobody else has seen yet: admission needs no lock on it.
          loaded: { assistant: this.assistant, ...(thread ? { thread } : {}) },
          ...(createThread ? { createThread } : {}),
          internal,
          ...(auth ? { auth } : {}),
        },
        { stream: options.stream === true },
      );
      const { run, end } = admitted;
      inserted = true;
      events = admitted.events;
      // Registered once the task (its first run) exists; see TaskPushConfigs.register for a fast run.
      if (push) await this.push.register(run.run_id, push, run);
      return { taskId: run.run_id, run, internal, end: quiet(end), ...(events ? { events } : {}) };
    } catch (error) {
      events?.close();
      // The new context goes again (admission itself leaves nothing behind when the run is not inserted, but
      // the call may fail after it). A thread id that was taken is someone else's thread: left alone.
      if (createThread && !(error instanceof ThreadExistsError)) await deleteThreadEventually(this.deps.storage, threadId);
      // With "enqueue" nothing but a taken run id is a conflict: the message was sent before. Its first
      // send registered its push config; a repeat registers none (v1.0 would give it a second id).
      if (!inserted && error instanceof ConflictError) {
        const repeated = await this.repeatOf(runId, sent, scope, options);
        if (repeated) return repeated;
      }
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
   *
   * A continuation sent again finds its task no longer waiting (or, waiting again, its run id taken):
   * only on that refusal is the message's run looked up, and answered if it continues this task. The
   * path that admits pays no read for it.
   */
  private async continueTask(
    taskId: string,
    sent: SentMessage,
    runId: string,
    content: MessageContent,
    asked: unknown,
    scope: A2ARequestScope,
    options: AdmitOptions,
    push?: RequestedPushConfig,
  ): Promise<AdmittedTask> {
    const first = await this.access.requireTask(taskId, scope, "create_run");
    if (push) await this.access.requireTask(taskId, scope, "update");
    const auth = scope.auth ?? this.auth;
    const contextId = sent.contextId;
    if (contextId && contextId !== first.thread_id) {
      throw new RequestMalformedError(`task "${taskId}" belongs to context "${first.thread_id}", not "${contextId}"`);
    }
    const repeated = async (refusal: unknown): Promise<AdmittedTask> => {
      if (!mayBeRepeat(refusal)) throw refusal;
      const found = await this.repeatOf(runId, sent, scope, options);
      if (!found) throw refusal;
      return found;
    };
    // Checked once without the lock, so a message to a task at work fails at once instead of waiting
    // for its run (which holds the lock) to end; then again under the lock, where it counts.
    try {
      await requireWaitingForInput(this.deps.storage, this.threadState, first);
    } catch (error) {
      return repeated(error);
    }
    const admitted = await this.deps.engine.withThreadExecution(first.thread_id, async (heldLock) => {
      let watched: { run: Run; end: Promise<RunEnd>; events?: RunEventStream };
      try {
        await requireWaitingForInput(this.deps.storage, this.threadState, first);
        watched = await this.deps.engine.createRunWatched(
          { assistant_id: this.assistant.assistant_id, command: { resume: resumeValue(content) }, ...(options.stream ? TOKEN_STREAM : {}) },
          {
            threadId: first.thread_id,
            runId,
            heldLock,
            loaded: { assistant: this.assistant },
            internal: { captureResult: true, taskId: first.run_id, message: asked },
            ...(auth ? { auth } : {}),
          },
          { stream: options.stream === true },
        );
      } catch (error) {
        // Looked up once the lock is released: the lookup needs none, and the thread's runs wait for it.
        if (mayBeRepeat(error)) return { refusal: error };
        throw error;
      }
      const { run, end, events } = watched;
      try {
        // Stored under the lock, so the continuation cannot execute here before its task has the config.
        if (push) await this.push.register(first.run_id, push, run);
      } catch (error) {
        events?.close();
        throw error;
      }
      return { taskId: first.run_id, run, end: quiet(end), ...(events ? { events } : {}) };
    });
    if ("refusal" in admitted) return repeated(admitted.refusal);
    // Subscribers of the task in this process follow the continuation at once (task-moves.ts).
    announceTaskRun(this.deps.engine, first.run_id);
    return admitted;
  }

  /** The task the message made when it was sent before (repeated-message.ts); undefined if it made none. */
  private repeatOf(runId: string, sent: SentMessage, scope: A2ARequestScope, options: AdmitOptions): Promise<AdmittedTask | undefined> {
    return repeatedMessage(this.deps, this.access, this.assistant.assistant_id, runId, sent, scope, options.stream === true);
  }
}

/**
 * Admission refused because the context has a run in flight (reject strategy) is the client's to retry,
 * not an internal error: -32004 with the reason.
 */
export async function admitting<T>(admit: () => Promise<T>): Promise<T> {
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
